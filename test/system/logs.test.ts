import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { issueUserToken } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Logs (docs/operations.md, "Logs"): with stdout not a terminal every line is one JSON object
 * with time, level, service and message, and no line ever holds a token, secret,
 * password or credential, whatever the requests carried. Driven at LOG_LEVEL=debug,
 * where each answer is logged with its path and query.
 */
let world: TestWorld
let services: ServiceProcess
const processes = processGroup()

// Postgres here trusts local connections, so a password in DATABASE_URL is accepted and unused
const databasePassword = "db-Pa55word-never-logged"
const leakedInQuery = "svc_oat_QueryTokenNeverLogged123"
const cliPassword = "cli-Pa55word-never-logged"
const networkToken = "network-access-token-never-logged"

const withPassword = (url: string) => url.replace("postgres://postgres@", `postgres://postgres:${databasePassword}@`)

beforeAll(async () => {
  world = await createWorld("logs")
  services = await processes.start(world, ["gateway", "actors", "scheduler", "publisher"], {
    ready: /all services up/,
    env: { LOG_LEVEL: "debug", DATABASE_URL: withPassword(world.databaseUrl), SEED_DEMO: "false" }
  })
}, 60_000)
afterAll(async () => {
  await processes.stopAll()
  await world?.drop()
})

/** The admin CLI as an operator runs it; everything it wrote. */
const cli = (args: ReadonlyArray<string>) =>
  new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "services/cli.ts", ...args], {
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "/tmp",
        ...world.env,
        DATABASE_URL: withPassword(world.databaseUrl),
        LOG_LEVEL: "debug",
        OUTBOUND_ALLOW: ""
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")))
    child.once("close", () => resolve(output))
  })

describe("log lines", () => {
  it("are JSON objects with time, level, service and message, and never hold a secret", async () => {
    const port = services.output().match(/gateway listening on port (\d+)/)?.[1]
    const base = `http://127.0.0.1:${port}`
    const workspace = JSON.parse(
      await cli(["workspace", "create", "--name", "Logs"]).then((o) => o.split("\n").find((l) => l.includes("apiKey")) ?? "{}")
    )
    const apiKey: string = workspace.apiKey
    expect(apiKey).toMatch(/^svc_live_/)
    const created = await cli([
      "user",
      "create",
      "--workspace",
      workspace.workspaceId,
      "--email",
      "ed@example.com",
      "--password",
      cliPassword,
      "--role",
      "editor"
    ])
    const userId: string = JSON.parse(created.split("\n").find((l) => l.includes("userId")) ?? "{}").userId
    const oauthToken = await issueUserToken(world, workspace.workspaceId, userId)
    const channelOutput = await cli([
      "channel",
      "create",
      "--workspace",
      workspace.workspaceId,
      "--network",
      "mastodon",
      "--name",
      "M",
      "--credentials",
      JSON.stringify({ instance: "https://127.0.0.1:1", accessToken: networkToken })
    ])

    const requestCount = () => (services.output().match(/"message":"GET /g) ?? []).length
    const before = requestCount()
    await client(base, apiKey).get("/public/v1/is-connected")
    await client(base, `Bearer ${apiKey}`).get("/public/v1/integrations")
    await client(base, oauthToken).get("/public/v1/is-connected")
    await client(base, "svc_live_WrongKeyNeverLogged").get("/public/v1/is-connected")
    await client(base, apiKey).get(`/public/v1/is-connected?access_token=${leakedInQuery}&password=${cliPassword}`)
    await client(base).get(`/public/v1/nothing-here?token=${leakedInQuery}`, {
      authorization: `Basic ${Buffer.from(`u:${cliPassword}`).toString("base64")}`
    })
    await waitFor("the request lines", async () => (requestCount() >= before + 4 ? true : undefined))
    await services.kill("SIGTERM")

    const lines = services
      .output()
      .split("\n")
      .filter((l) => l.trim() !== "")
    expect(lines.length).toBeGreaterThan(5)
    for (const line of lines) {
      const entry = JSON.parse(line)
      expect(typeof entry.time).toBe("string")
      expect(["trace", "debug", "info", "warning", "error", "fatal"]).toContain(entry.level)
      expect(typeof entry.service).toBe("string")
      expect(typeof entry.message).toBe("string")
    }
    const requestLines = lines.map((l) => JSON.parse(l)).filter((e) => /^GET \/public/.test(e.message))
    expect(requestLines.length).toBeGreaterThanOrEqual(4)
    expect(requestLines.every((e) => typeof e.requestId === "string" && e.service === "gateway")).toBe(true)
    // the query's secrets were in the request, and only their redaction is in the line
    expect(requestLines.some((e) => e.message.includes("access_token=[REDACTED]"))).toBe(true)
    expect(requestLines.some((e) => e.workspaceId === workspace.workspaceId)).toBe(true)

    const everything = [services.output(), created, channelOutput].join("\n")
    const secrets = [
      apiKey,
      apiKey.slice("svc_live_".length),
      oauthToken,
      leakedInQuery,
      "WrongKeyNeverLogged",
      cliPassword,
      databasePassword,
      networkToken
    ]
    for (const secret of secrets) expect(everything).not.toContain(secret)
  }, 90_000)
})
