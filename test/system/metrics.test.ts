import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { parsePrometheusText, type Family } from "../support/prometheusText.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"

/**
 * GET /metrics (docs/operations.md, "Metrics"): the Prometheus text format, read with a strict
 * parser (test/support/prometheusText.ts), on the gateway's PORT and on the
 * HEALTH_PORT of a process without the gateway.
 */
let world: TestWorld
let sys: RunningServices
const processes = processGroup()

beforeAll(async () => {
  world = await createWorld("metrics")
  sys = await startServices(world)
})
afterAll(async () => {
  await processes.stopAll()
  await sys?.stop()
  await world?.drop()
})

const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  return parsePrometheusText(await res.text())
}

const family = (families: Map<string, Family>, name: string): Family => {
  const f = families.get(name)
  if (f === undefined) throw new Error(`no ${name} in /metrics`)
  return f
}

const sampleValue = (f: Family, sampleName: string, labels: Record<string, string>) =>
  f.samples.find((s) => s.name === sampleName && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value

describe("GET /metrics on the gateway", () => {
  it("counts requests by route template (not the raw path) and status, with latency histograms", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "M", customerId: null, postingTimes: [] })
    const api = client(sys.url, apiKey)
    for (let i = 0; i < 3; i++) expect((await api.get("/public/v1/is-connected")).status).toBe(200)
    expect((await client(sys.url, "svc_live_wrong").get("/public/v1/is-connected")).status).toBe(401)
    const missing = crypto.randomUUID()
    expect((await api.get(`/public/v1/posts/${missing}`)).status).toBe(404)
    expect((await api.get("/no/such/path")).status).toBe(404)
    const created = await api.post("/public/v1/posts", {
      type: "now",
      shortLink: false,
      tags: [],
      date: new Date().toISOString(),
      posts: [{ integration: { id: channelId }, value: [{ content: "Metrics", image: [] }], settings: { __type: "test" } }]
    })
    expect(created.status).toBe(200)

    const families = await scrape(sys.url)
    const requests = family(families, "http_requests_total")
    expect(requests.type).toBe("counter")
    expect(sampleValue(requests, "http_requests_total", { route: "/public/v1/is-connected", method: "GET", status: "200" })).toBeGreaterThanOrEqual(3)
    expect(sampleValue(requests, "http_requests_total", { route: "/public/v1/is-connected", method: "GET", status: "401" })).toBeGreaterThanOrEqual(1)
    expect(sampleValue(requests, "http_requests_total", { route: "unmatched", method: "GET", status: "404" })).toBeGreaterThanOrEqual(1)
    const routes = new Set(requests.samples.map((s) => s.labels["route"]))
    expect([...routes].some((r) => r?.includes(missing))).toBe(false)
    expect([...routes].some((r) => r?.startsWith("/public/v1/posts/:"))).toBe(true)
    expect(routes.has("/public/v1/posts")).toBe(true)

    const latency = family(families, "http_request_duration_seconds")
    expect(latency.type).toBe("histogram")
    expect(sampleValue(latency, "http_request_duration_seconds_count", { route: "/public/v1/is-connected", status: "200" })).toBeGreaterThanOrEqual(3)

    // the same process runs the actor host, the scheduler and the publisher
    const commands = family(families, "actor_command_duration_seconds")
    expect(commands.type).toBe("histogram")
    expect(commands.samples.some((s) => s.name.endsWith("_count") && s.labels["outcome"] === "ok" && s.value >= 1)).toBe(true)
    for (const name of [
      "actor_mailbox_depth",
      "actor_shards_owned",
      "scheduler_due_items_waiting",
      "outbox_lag_seconds",
      "pg_pool_connections",
      "pg_pool_idle_connections",
      "pg_pool_waiting_requests"
    ]) {
      expect(family(families, name).type).toBe("gauge")
    }
    expect(sampleValue(family(families, "actor_shards_owned"), "actor_shards_owned", {})).toBeGreaterThan(0)
    expect(sampleValue(family(families, "pg_pool_connections"), "pg_pool_connections", {})).toBeGreaterThan(0)
    expect(family(families, "webhook_deliveries_total").type).toBe("counter")

    const published = await waitFor("a publish attempt counted", async () => {
      const attempts = family(await scrape(sys.url), "publish_attempts_total")
      return sampleValue(attempts, "publish_attempts_total", { network: "test", outcome: "published" })
    })
    expect(published).toBeGreaterThanOrEqual(1)
  })
})

describe("GET /metrics on HEALTH_PORT (a process without the gateway)", () => {
  it("answers the Prometheus text format with the scheduler's gauges", async () => {
    const scheduler = await processes.start(world, ["scheduler"], { ready: /all services up/, env: { HEALTH_PORT: "0", SEED_DEMO: "false" } })
    const port = scheduler.output().match(/health checks listening on port (\d+)/)?.[1]
    expect(port).toBeDefined()
    const families = await scrape(`http://127.0.0.1:${port}`)
    expect(family(families, "scheduler_due_items_waiting").samples[0]?.value).toBeGreaterThanOrEqual(0)
    expect(family(families, "outbox_lag_seconds").type).toBe("gauge")
    expect(family(families, "process_cpu_seconds_total").type).toBe("counter")
    await scheduler.kill("SIGTERM")
  }, 60_000)
})
