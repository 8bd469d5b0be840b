import { SqlClient } from "@effect/sql"
import { mkdirSync, writeFileSync } from "node:fs"
import path from "node:path"
import { Console, Effect } from "effect"
import { AppConfig } from "../platform/config.js"
import { jsonLines } from "../platform/logging.js"
import * as WorkspacesRepo from "../repos/workspacesRepo.js"
import { makeAdminOperations } from "./operations.js"

/**
 * First start with an empty database: a demo workspace with one channel on the
 * built-in test network, so the API can be tried at once. Its key is printed once.
 * An advisory lock makes sure two processes starting together create one.
 */
export const seedDemoWorkspace = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ops = yield* makeAdminOperations
  const created = yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* WorkspacesRepo.lockDemoSeed
      if ((yield* WorkspacesRepo.countWorkspaces) > 0) return null
      const { apiKey, workspaceId } = yield* ops.createWorkspace({ name: "Demo workspace", plan: "standard" })
      const password = crypto.randomUUID()
      yield* ops.createUser({ workspaceId, email: "owner@demo.localhost", password, role: "owner", timezone: null })
      const { channelId } = yield* ops.createChannel({
        workspaceId,
        network: "test",
        name: "Demo test channel",
        customerId: null,
        postingTimes: ["09:00", "13:30"]
      })
      return { apiKey, workspaceId, channelId, password }
    })
  )
  if (created === null) return
  // JSON log lines (not a terminal) never carry a secret: the credentials go to a file only this user reads
  if (yield* jsonLines()) {
    const { dataDir } = yield* AppConfig
    const file = path.resolve(dataDir, "demo-workspace.json")
    yield* Effect.sync(() => {
      mkdirSync(dataDir, { recursive: true })
      writeFileSync(file, `${JSON.stringify({ ...created, ownerEmail: "owner@demo.localhost" }, null, 2)}\n`, { mode: 0o600 })
    })
    return yield* Effect.logInfo(`created a demo workspace ${created.workspaceId}; its API key and owner password are in ${file}`)
  }
  yield* Console.log(
    [
      "",
      "Created a demo workspace (shown once):",
      `  workspace id:  ${created.workspaceId}`,
      `  API key:       ${created.apiKey}`,
      `  test channel:  ${created.channelId} (built-in test network, publishes nowhere)`,
      `  owner sign-in: owner@demo.localhost / ${created.password}`,
      ""
    ].join("\n")
  )
})
