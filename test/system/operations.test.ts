import net from "node:net"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEVELOPMENT_SECRET_KEY } from "../../services/platform/config.js"
import { client } from "../support/http.js"
import { processGroup, runToExit } from "../support/processes.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { closedPort } from "../support/ports.js"

/**
 * What an operator relies on when running the services (docs/operations.md, "Configuration"), with
 * each process started as an operator starts it: a production start needs its own
 * SECRET_KEY; every process answers /healthz and /readyz (without the gateway on its
 * health port); only the gateway needs Redis; the demo workspace only when asked.
 */

const PROCESS_TEST_TIMEOUT_MS = 60_000

let world: TestWorld
const processes = processGroup()

const healthPortLine = /health checks listening on port (\d+)/
/** Written once every service of the process has started (and the demo workspace, if any, exists). */
const allUpLine = /all services up/
const gatewayPortLine = /gateway listening on port (\d+)/

beforeAll(async () => {
  world = await createWorld("operations")
})
afterAll(async () => {
  await processes.stopAll()
  await world?.drop()
})

describe("a production start (NODE_ENV=production)", () => {
  const cannotStartLine = (output: string) => output.split("\n").filter((line) => line.startsWith("Cannot start:"))

  it(
    "without SECRET_KEY: refuses to start, one line naming SECRET_KEY and how to set it, exit 1",
    async () => {
      const run = await runToExit(world, [], { env: { NODE_ENV: "production" }, unset: ["SECRET_KEY"] })
      expect(run.code, run.output).toBe(1)
      expect(cannotStartLine(run.output)).toEqual([
        "Cannot start: SECRET_KEY is not set and NODE_ENV is production. Set SECRET_KEY to a long random value and keep it " +
          "(it encrypts webhook secrets and network tokens at rest), for example: SECRET_KEY=$(openssl rand -base64 32)"
      ])
      expect(run.output).not.toMatch(/listening|started/)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "with an empty SECRET_KEY: refused the same way",
    async () => {
      const run = await runToExit(world, ["scheduler"], { env: { NODE_ENV: "production", SECRET_KEY: "" } })
      expect(run.code, run.output).toBe(1)
      expect(cannotStartLine(run.output)).toHaveLength(1)
      expect(cannotStartLine(run.output)[0]).toMatch(/^Cannot start: SECRET_KEY is not set and NODE_ENV is production\./)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "with the development SECRET_KEY: refused",
    async () => {
      const run = await runToExit(world, ["scheduler"], { env: { NODE_ENV: "production", SECRET_KEY: DEVELOPMENT_SECRET_KEY } })
      expect(run.code, run.output).toBe(1)
      expect(cannotStartLine(run.output)).toHaveLength(1)
      expect(cannotStartLine(run.output)[0]).toMatch(
        /^Cannot start: SECRET_KEY is the development value and NODE_ENV is production\. Set SECRET_KEY to a long random value/
      )
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "with SECRET_KEY set: all five services start and the gateway is ready",
    async () => {
      const all = await processes.start(world, [], {
        env: { NODE_ENV: "production", SECRET_KEY: "a-production-secret-of-its-own", SEED_DEMO: "false" },
        ready: gatewayPortLine,
        label: "production"
      })
      // the gateway's port listens before every part is up (/readyz 503 "starting" until then)
      await all.waitForOutput(allUpLine)
      const res = await client(`http://127.0.0.1:${all.id}`).get("/readyz")
      expect(res.status).toBe(200)
      expect(res.json).toEqual({ ready: true, checks: { postgres: true, nats: true, redis: true } })
      expect(all.output()).not.toMatch(/Cannot start/)
      await all.kill("SIGTERM")
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})

describe("/healthz and /readyz on a process without the gateway (HEALTH_PORT)", () => {
  it(
    "a process running only the scheduler answers both on its health port",
    async () => {
      const scheduler = await processes.start(world, ["scheduler"], { ready: healthPortLine, env: { SEED_DEMO: "false" } })
      // the health port listens first; /readyz says 200 once every part is up
      await scheduler.waitForOutput(allUpLine)
      const health = client(`http://127.0.0.1:${scheduler.id}`)
      const alive = await health.get("/healthz")
      expect(alive.status).toBe(200)
      expect(alive.json).toEqual({ status: "ok" })
      const ready = await health.get("/readyz")
      expect(ready.status).toBe(200)
      // the servers this process uses, and only those: no Redis without the gateway
      expect(ready.json).toEqual({ ready: true, checks: { postgres: true, nats: true } })
      expect((await health.get("/public/v1/is-connected")).status).toBe(404)
      await scheduler.kill("SIGTERM")
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "a HEALTH_PORT already in use: refuses to start, naming HEALTH_PORT",
    async () => {
      const taken = net.createServer()
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
      const address = taken.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      try {
        const run = await runToExit(world, ["scheduler"], { env: { HEALTH_PORT: String(port), SEED_DEMO: "false" } })
        expect(run.code, run.output).toBe(1)
        expect(run.output).toMatch(new RegExp(`Cannot start: the health checks cannot listen on HEALTH_PORT ${port} `))
      } finally {
        await new Promise((resolve) => taken.close(resolve))
      }
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})

describe("Redis: only the gateway and the actor hosts (rate windows) use it", () => {
  it(
    "scheduler and publisher start and are ready with REDIS_URL pointing at a closed port",
    async () => {
      const redisUrl = `redis://127.0.0.1:${await closedPort()}`
      const workers = await processes.start(world, ["scheduler", "publisher"], {
        env: { REDIS_URL: redisUrl, SEED_DEMO: "false" },
        ready: healthPortLine,
        label: "workers"
      })
      await workers.waitForOutput(allUpLine)
      const ready = await client(`http://127.0.0.1:${workers.id}`).get("/readyz")
      expect(ready.status).toBe(200)
      expect(ready.json).toEqual({ ready: true, checks: { postgres: true, nats: true } })
      expect(workers.output()).not.toMatch(/Redis|Cannot start/)
      await workers.kill("SIGTERM")
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "the gateway with REDIS_URL pointing at a closed port: refuses to start, saying Redis is not reachable",
    async () => {
      const redisUrl = `redis://127.0.0.1:${await closedPort()}`
      const run = await runToExit(world, ["gateway"], { env: { REDIS_URL: redisUrl, SEED_DEMO: "false" } })
      expect(run.code, run.output).toBe(1)
      expect(run.output).toContain(`Cannot start: Redis is not reachable at ${redisUrl}`)
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})

describe("the demo workspace (SEED_DEMO)", () => {
  let fresh: TestWorld
  beforeAll(async () => {
    fresh = await createWorld("seeddemo")
  })
  afterAll(async () => {
    await fresh?.drop()
  })
  const workspaceCount = () => withDb(fresh, async (c) => (await c.query("SELECT count(*)::int AS n FROM workspaces")).rows[0].n)

  it(
    "SEED_DEMO=false on an empty database: no demo workspace",
    async () => {
      const scheduler = await processes.start(fresh, ["scheduler"], { ready: allUpLine, env: { SEED_DEMO: "false" } })
      await scheduler.kill("SIGTERM")
      expect(scheduler.output()).not.toMatch(/demo workspace/)
      expect(await workspaceCount()).toBe(0)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "by default on an empty database: the demo workspace is created and its API key printed once",
    async () => {
      // the pretty form (a terminal) prints it; JSON log lines never carry it (next test)
      const first = await processes.start(fresh, ["scheduler"], { ready: /API key: +(svc_live_\S+)/, env: { LOG_FORMAT: "pretty" } })
      await first.kill("SIGTERM")
      expect(await workspaceCount()).toBe(1)
      const again = await processes.start(fresh, ["scheduler"], { ready: allUpLine })
      await again.kill("SIGTERM")
      expect(again.output()).not.toMatch(/demo workspace/)
      expect(await workspaceCount()).toBe(1)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "with JSON log lines: the key goes to DATA_DIR/demo-workspace.json (owner-only), never into a log line",
    async () => {
      const empty = await createWorld("seeddemojson")
      const dataDir = mkdtempSync(path.join(tmpdir(), "demo-"))
      try {
        const started = await processes.start(empty, ["scheduler"], { ready: allUpLine, env: { DATA_DIR: dataDir, LOG_FORMAT: "json" } })
        await started.kill("SIGTERM")
        const file = path.join(dataDir, "demo-workspace.json")
        const saved = JSON.parse(readFileSync(file, "utf8"))
        expect(saved.apiKey).toMatch(/^svc_live_/)
        expect(statSync(file).mode & 0o777).toBe(0o600)
        expect(started.output()).toContain(file)
        expect(started.output()).not.toContain(saved.apiKey)
        expect(started.output()).not.toContain(saved.password)
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
        await empty.drop()
      }
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})
