import net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ANSWER_WITHIN_MS, answerJson, type HammerRequest, hammerHealth } from "../support/healthHammer.js"
import { closedPort } from "../support/ports.js"
import { processGroup, runToExit } from "../support/processes.js"
import { createWorld, type TestWorld } from "../support/system.js"

/**
 * /healthz and /readyz answer at any moment of a process's life (docs/operations.md, "Health checks"):
 * asked every 50 ms from the spawn, through the start, while ready and through a SIGTERM to the exit,
 * every request that got a connection got an answer (ANSWER_WITHIN_MS: never hanging): /healthz 200 throughout, /readyz
 * 503 while starting (naming what start waits for), 200 once every part is up, 503 once stopping.
 */

const PROCESS_TEST_TIMEOUT_MS = 90_000
/** A signal reaches the process's event loop at once but not in the same instant: answers sent this soon after it may still be 200. */
const SIGNAL_DELIVERY_MS = 100

let world: TestWorld
const processes = processGroup()

beforeAll(async () => {
  world = await createWorld("health_any_moment")
})
afterAll(async () => {
  await processes.stopAll()
  await world?.drop()
})

const describeRequest = (r: HammerRequest, t0: number) => {
  const met =
    r.answer === undefined
      ? `no answer (${r.failure ?? "?"} at +${(r.failedAt ?? 0) - t0} ms)`
      : `${r.answer.status} ${r.answer.body} after ${r.answer.at - r.sentAt} ms`
  return `${r.path} on ${r.port} sent at +${r.sentAt - t0} ms: ${met}`
}

/** Every connected request answered in time, or cut by the process's own exit. */
const expectEveryConnectionAnswered = (requests: ReadonlyArray<HammerRequest>, exitAt: number, t0: number) => {
  const hung = requests.filter((r) => {
    if (!r.connected) return false
    if (r.answer !== undefined) return r.answer.at - r.sentAt > ANSWER_WITHIN_MS
    // a connection the exiting process closed: the listener answered until the exit
    return r.failedAt === undefined || Math.abs(r.failedAt - exitAt) > ANSWER_WITHIN_MS
  })
  expect(hung.map((r) => describeRequest(r, t0))).toEqual([])
}

interface Moments {
  readonly t0: number
  readonly readySeenAt: number
  readonly killAt: number
  readonly exitAt: number
}

/** What each answer of /healthz and /readyz must be, by when it was sent. */
const expectAnswersByPhase = (requests: ReadonlyArray<HammerRequest>, { t0, readySeenAt, killAt }: Moments) => {
  const answered = requests.filter((r) => r.answer !== undefined)
  const wrong = (r: HammerRequest) => describeRequest(r, t0)
  expect(answered.filter((r) => r.path === "/healthz" && (r.answer?.status !== 200 || answerJson(r)["status"] !== "ok")).map(wrong)).toEqual([])
  const ready = answered.filter((r) => r.path === "/readyz")
  const reason = (r: HammerRequest) => String(answerJson(r)["reason"] ?? "")
  const starting = ready.filter((r) => r.answer?.status === 503 && reason(r).startsWith("starting: waiting for "))
  const stopping = ready.filter((r) => r.answer?.status === 503 && reason(r) === "shutting down")
  const up = ready.filter((r) => r.answer?.status === 200 && answerJson(r)["ready"] === true)
  // every answer is one of the three
  expect(ready.filter((r) => !starting.includes(r) && !stopping.includes(r) && !up.includes(r)).map(wrong)).toEqual([])
  // starting only before the ready line, 200 only before the stop, shutting down only after it
  expect(starting.filter((r) => r.sentAt > readySeenAt).map(wrong)).toEqual([])
  expect(up.filter((r) => r.sentAt > killAt + SIGNAL_DELIVERY_MS).map(wrong)).toEqual([])
  // (a request still in flight when the signal was sent may meet the stop: only one answered before it may not)
  expect(stopping.filter((r) => (r.answer?.at ?? 0) < killAt).map(wrong)).toEqual([])
  // between the ready line and the stop: ready (a request answered after the signal may meet the stop, as above)
  expect(ready.filter((r) => r.sentAt > readySeenAt && (r.answer?.at ?? 0) < killAt && !up.includes(r)).map(wrong)).toEqual([])
  return { starting, stopping, up }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A client that sent half a request's head: the gateway's port waits for it when closing, until
 * REQUEST_IDLE_TIMEOUT_MS cuts it off, so the stop lasts long enough to be asked during.
 */
const halfARequest = (port: number) =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write("GET /public/v1/is-connected HTTP/1.1\r\nHost: 127.0.0.1\r\n")
      resolve(socket)
    })
    socket.on("error", () => undefined)
  })

const lifeOf = async (services: ReadonlyArray<string>, ports: { readonly health: number; readonly main?: number }) => {
  const targets = [ports.health, ...(ports.main === undefined ? [] : [ports.main])].flatMap((port) => [
    { port, path: "/healthz" },
    { port, path: "/readyz" }
  ])
  const hammer = hammerHealth(targets)
  const t0 = Date.now()
  const env: Record<string, string> = { HEALTH_PORT: String(ports.health), SEED_DEMO: "false" }
  if (ports.main !== undefined) Object.assign(env, { PORT: String(ports.main), REQUEST_IDLE_TIMEOUT_MS: "2000" })
  const proc = await processes.start(world, services, { ready: /all services up/, env })
  const readySeenAt = Date.now()
  const stalled = ports.main === undefined ? null : await halfARequest(ports.main)
  await pause(1000)
  const killAt = Date.now()
  const exit = await proc.kill("SIGTERM")
  const exitAt = Date.now()
  const requests = await hammer.stop()
  stalled?.destroy()
  return { requests, exit, moments: { t0, readySeenAt, killAt, exitAt }, output: proc.output() }
}

describe("asked every 50 ms from spawn to exit", () => {
  it(
    "a scheduler (HEALTH_PORT): answered at every moment; 503 starting, 200 ready, never 200 once stopping",
    async () => {
      const { requests, exit, moments, output } = await lifeOf(["scheduler"], { health: await closedPort() })
      expect(exit.code, output).toBe(0)
      expectEveryConnectionAnswered(requests, moments.exitAt, moments.t0)
      const { starting, up } = expectAnswersByPhase(requests, moments)
      // the listener was up during the start, and answered ready once started
      expect(starting.length).toBeGreaterThan(0)
      expect(up.length).toBeGreaterThan(0)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "a gateway: its HEALTH_PORT and its own port answered at every moment, the same way; 503 shutting down on both while it stops",
    async () => {
      const health = await closedPort()
      const main = await closedPort()
      const { requests, exit, moments, output } = await lifeOf(["gateway"], { health, main })
      expect(exit.code, output).toBe(0)
      expectEveryConnectionAnswered(requests, moments.exitAt, moments.t0)
      const { stopping } = expectAnswersByPhase(requests, moments)
      // while the stop waited for the stalled client: 503 on the health port, and on the gateway's own
      // port for every request it still answered after the signal (before it closed; a loaded machine
      // may send none in that window: line 70's "never 200 once stopping" holds on both ports)
      expect(stopping.some((r) => r.port === health)).toBe(true)
      const mainAfterSignal = requests.filter(
        (r) => r.port === main && r.path === "/readyz" && (r.answer?.at ?? 0) > moments.killAt + SIGNAL_DELIVERY_MS
      )
      expect(mainAfterSignal.filter((r) => !stopping.includes(r)).map((r) => describeRequest(r, moments.t0))).toEqual([])
      const onMain = requests.filter((r) => r.port === main && r.path === "/readyz" && r.answer?.status === 200)
      expect(onMain.length).toBeGreaterThan(0)
      expect(requests.filter((r) => r.port === health && r.path === "/readyz" && r.answer?.status === 503).length).toBeGreaterThan(0)
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})

describe("Postgres unreachable at start", () => {
  const startWithDatabase = async (databaseUrl: string) => {
    const health = await closedPort()
    const hammer = hammerHealth([
      { port: health, path: "/healthz" },
      { port: health, path: "/readyz" }
    ])
    const t0 = Date.now()
    const run = await runToExit(world, ["scheduler"], { env: { DATABASE_URL: databaseUrl, HEALTH_PORT: String(health), SEED_DEMO: "false" } })
    const exitAt = Date.now()
    return { run, requests: await hammer.stop(), exitAt, t0 }
  }

  it(
    "a closed port: refused at once (exit 1, saying so); whatever was asked meanwhile was answered",
    async () => {
      const { run, requests, exitAt, t0 } = await startWithDatabase(`postgres://postgres@127.0.0.1:${await closedPort()}/nothing`)
      expect(run.code, run.output).toBe(1)
      expect(run.output).toMatch(/Cannot start: PostgreSQL is not reachable/)
      expectEveryConnectionAnswered(requests, exitAt, t0)
      const wrong = requests.filter(
        (r) =>
          r.answer !== undefined &&
          (r.path === "/healthz" ? r.answer.status !== 200 : r.answer.status !== 503 || !String(answerJson(r)["reason"]).includes("postgres"))
      )
      expect(wrong.map((r) => describeRequest(r, t0))).toEqual([])
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "a port that accepts and never answers: for the 5 s start waits, /healthz 200 and /readyz 503 naming postgres",
    async () => {
      const silent = net.createServer(() => undefined)
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
      const address = silent.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      try {
        const { run, requests, exitAt, t0 } = await startWithDatabase(`postgres://postgres@127.0.0.1:${port}/nothing`)
        expect(run.code, run.output).toBe(1)
        expect(run.output).toMatch(/Cannot start: PostgreSQL is not reachable/)
        expectEveryConnectionAnswered(requests, exitAt, t0)
        const healthz = requests.filter((r) => r.path === "/healthz" && r.answer !== undefined)
        const readyz = requests.filter((r) => r.path === "/readyz" && r.answer !== undefined)
        expect(healthz.filter((r) => r.answer?.status !== 200).map((r) => describeRequest(r, t0))).toEqual([])
        expect(
          readyz.filter((r) => r.answer?.status !== 503 || !String(answerJson(r)["reason"]).includes("postgres")).map((r) => describeRequest(r, t0))
        ).toEqual([])
        // the start waits seconds for this Postgres: the listener answered all along
        expect(healthz.length).toBeGreaterThan(10)
        expect(readyz.length).toBeGreaterThan(10)
      } finally {
        silent.close()
      }
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})
