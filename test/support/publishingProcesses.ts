import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { Layer, ManagedRuntime } from "effect"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { AppConfigLive } from "../../services/platform/config.js"
import { DatabaseLive } from "../../services/platform/db.js"
import { client } from "./http.js"
import { acceptsConnections } from "./ports.js"
import { killAndWait, processGroup, type ServiceProcess } from "./processes.js"
import { worldConfig, type TestWorld } from "./system.js"
import { withDb } from "./tokens.js"
import { waitFor } from "./wait.js"

/**
 * The whole service as separate processes (gateway, actors, scheduler, publisher), for the
 * publishing fault tests: each one can be killed, paused or restarted alone. The admin
 * operations (workspaces, channels) run in the test process straight on the world's database.
 */

const readyLines = {
  gateway: /gateway listening on port (\d+)/,
  actors: /actor host ([0-9a-f-]{36}) started/,
  scheduler: /scheduler started/,
  publisher: /publisher started/
} as const
export type ProcessService = keyof typeof readyLines

export const separateServices = async (world: TestWorld, env: Record<string, string> = {}) => {
  const admin = ManagedRuntime.make(DatabaseLive.pipe(Layer.provideMerge(AppConfigLive), Layer.provide(worldConfig(world, env))))
  // migrations run here once, before any process starts
  const ops = await admin.runPromise(makeAdminOperations)
  const group = processGroup()
  let labels = 0
  const start = (service: ProcessService, extra: Record<string, string> = {}) =>
    group.start(world, [service], { env: { ...env, ...extra }, ready: readyLines[service], label: `${service} ${++labels}`, timeoutMs: 90_000 })
  const [gateway, actors, scheduler, publisher] = await Promise.all([start("gateway"), start("actors"), start("scheduler"), start("publisher")])
  const running = new Map<ProcessService, ServiceProcess>([
    ["gateway", gateway],
    ["actors", actors],
    ["scheduler", scheduler],
    ["publisher", publisher]
  ])
  const url = `http://127.0.0.1:${gateway.id}`
  return {
    url,
    /** Another process of a service, next to the running one. */
    start,
    /** The service's current process. */
    current: (service: ProcessService) => running.get(service)!,
    /**
     * SIGKILLs the service's current process and starts another with `extra` on top of the
     * environment (e.g. TEST_PAUSE_AT); `swap(service)` brings back a plain one.
     */
    swap: async (service: ProcessService, extra: Record<string, string> = {}) => {
      await running.get(service)?.kill("SIGKILL")
      const next = await start(service, extra)
      running.set(service, next)
      return next
    },
    createWorkspace: async (name = "Faults") => {
      const ws = await admin.runPromise(ops.createWorkspace({ name, plan: "ultimate" }))
      return { ...ws, api: client(url, ws.apiKey) }
    },
    createChannel: (input: Parameters<typeof ops.createChannel>[0]) => admin.runPromise(ops.createChannel(input)),
    stop: async () => {
      await group.stopAll()
      await admin.dispose()
    }
  }
}
export type SeparateServices = Awaited<ReturnType<typeof separateServices>>

/** Stops a process where it stands (SIGSTOP), as a long GC pause or a frozen VM would; `resume` lets it go on. */
export const freeze = (p: ServiceProcess) => {
  process.kill(p.pid, "SIGSTOP")
  return { resume: () => process.kill(p.pid, "SIGCONT") }
}

const FINAL = ["published", "error", "unconfirmed"]

/** What Postgres holds about an item left unsettled: its row, its jobs and its attempts (for a failure's message). */
export interface UnsettledItem {
  readonly item: Record<string, unknown>
  readonly jobs: ReadonlyArray<{ readonly claim: number; readonly enqueued_at: string | null; readonly stream_sequence: string | null }>
  readonly attempts: ReadonlyArray<Record<string, unknown>>
}

const unsettledItems = (world: TestWorld, workspaceIds: ReadonlyArray<string>) =>
  withDb(world, async (c) => {
    const items = (
      await c.query<Record<string, unknown> & { id: string }>(
        `SELECT i.id, i.content, i.status, i.attempts, i.due_at, i.claimed_at, i.held, p.status AS post_status FROM post_items i
         JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL WHERE i.workspace_id = ANY($1::uuid[]) AND NOT i.status = ANY($2)`,
        [workspaceIds, FINAL]
      )
    ).rows
    return Promise.all(
      items.map(async (item): Promise<UnsettledItem> => {
        const jobs = await c.query<UnsettledItem["jobs"][number]>(
          "SELECT claim, enqueued_at, stream_sequence::text FROM publish_jobs WHERE item_id = $1 ORDER BY claim",
          [item.id]
        )
        const attempts = await c.query("SELECT attempt, started_at, finished_at, outcome FROM publish_attempts WHERE item_id = $1 ORDER BY attempt", [
          item.id
        ])
        return { item, jobs: jobs.rows, attempts: attempts.rows }
      })
    )
  })

/**
 * The promise of the fault tests: every item of the workspaces' posts ends published,
 * failed (error) or unconfirmed within `timeoutMs`, none left publishing or queued. Answers
 * each item with its content and final state. On a timeout the error names each item left,
 * with its jobs and attempts, and what `explain` adds about them (the stream's side).
 */
export const everyItemSettles = (
  world: TestWorld,
  workspaceIds: ReadonlyArray<string>,
  timeoutMs = 90_000,
  explain: (left: ReadonlyArray<UnsettledItem>) => Promise<unknown> = async () => null
) =>
  waitFor(
    "items still publishing or queued",
    () =>
      withDb(world, async (c) => {
        const rows = (
          await c.query<{ content: string; status: string; releaseId: string | null; postId: string }>(
            `SELECT i.content, i.status, i.release_id AS "releaseId", i.post_id AS "postId" FROM post_items i
             JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL WHERE i.workspace_id = ANY($1::uuid[])`,
            [workspaceIds]
          )
        ).rows
        return rows.every((r) => FINAL.includes(r.status)) ? rows : undefined
      }),
    timeoutMs
  ).catch(async (e: unknown) => {
    const left = await unsettledItems(world, workspaceIds)
    const more = await explain(left).catch((cause: unknown) => `(explain failed: ${String(cause)})`)
    throw new Error(`${e instanceof Error ? e.message : String(e)}: ${JSON.stringify({ left, more }, null, 1)}`)
  })

/** How many times each text arrived on the built-in test network. */
export const testNetworkCopies = (world: TestWorld, texts: ReadonlyArray<string>) =>
  withDb(world, async (c) => {
    const rows = (
      await c.query<{ content: string; n: number }>(
        "SELECT content, count(*)::int AS n FROM test_network_posts WHERE content = ANY($1) GROUP BY content",
        [texts]
      )
    ).rows
    return new Map(rows.map((r) => [r.content, r.n]))
  })

/** A port nothing listens on now (the OS picks it). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * A private NATS server with JetStream on a free port and its own store directory, which a
 * test may kill and start again (the shared server is never touched).
 */
export const privateNats = async () => {
  const port = await freePort()
  const storeDir = mkdtempSync(path.join(os.tmpdir(), "nats-faults-"))
  let child: ChildProcess | undefined
  const ready = () => waitFor("private nats-server not accepting connections", () => acceptsConnections(port), 20_000)
  const start = async () => {
    child = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], { stdio: "ignore" })
    await ready()
  }
  const kill = () => killAndWait(child)
  await start()
  process.once("exit", () => child?.kill("SIGKILL"))
  return {
    url: `nats://127.0.0.1:${port}`,
    /** kill -9 and start again on the same port with the same store: what JetStream wrote survives. */
    restart: async () => {
      await kill()
      await start()
    },
    stop: async () => {
      await kill()
      rmSync(storeDir, { recursive: true, force: true })
    }
  }
}
