import { createServer, type Server } from "node:http"
import { ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { createWorld, infrastructure, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"
import type { Simulator } from "../support/simulator/core.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"

/**
 * Traces (docs/operations.md, "Traces"): with OTEL_EXPORTER_OTLP_ENDPOINT set, one POST /posts
 * yields one trace that spans the gateway, the workspace actor, the scheduler and the
 * publisher, each its own process, joined through NATS headers and the item's row.
 * The receiver is a local OTLP/HTTP endpoint reading the exporter's JSON.
 */
interface ReceivedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  readonly attributes: Readonly<Record<string, string | number>>
}

let world: TestWorld
let sim: Simulator
let receiver: Server
const spans: Array<ReceivedSpan> = []
const processes = processGroup()

interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string }
}
interface OtlpExport {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans?: ReadonlyArray<{
      readonly spans?: ReadonlyArray<{
        traceId: string
        spanId: string
        parentSpanId?: string
        name: string
        attributes?: ReadonlyArray<OtlpAttribute>
      }>
    }>
  }>
}

const startReceiver = () =>
  new Promise<string>((resolve) => {
    receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString("utf8")))
      req.on("end", () => {
        if (req.url === "/v1/traces" && (req.headers["content-type"] ?? "").includes("json")) {
          const exported = JSON.parse(body) as OtlpExport
          for (const rs of exported.resourceSpans ?? []) {
            const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? ""
            for (const ss of rs.scopeSpans ?? []) {
              for (const s of ss.spans ?? [])
                spans.push({
                  service,
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId ?? "",
                  name: s.name,
                  attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]))
                })
            }
          }
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    receiver.listen(0, "127.0.0.1", () => {
      const address = receiver.address()
      resolve(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`)
    })
  })

beforeAll(async () => {
  world = await createWorld("traces")
  sim = await startSimulator()
  const endpoint = await startReceiver()
  const env = { ...simulatorEnv(sim), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, SEED_DEMO: "false", HEALTH_PORT: "0" }
  await processes.start(world, ["actors"], { env, ready: /all services up/ })
  await processes.start(world, ["scheduler"], { env, ready: /all services up/ })
  await processes.start(world, ["publisher"], { env, ready: /all services up/ })
}, 90_000)
afterAll(async () => {
  await processes.stopAll()
  receiver?.close()
  await world?.drop()
  await sim?.close()
})

describe("traces", () => {
  it("one POST /posts is one trace spanning gateway, actor, scheduler and publisher", async () => {
    const admin = ManagedRuntime.make(infrastructure(world))
    const ops = await admin.runPromise(makeAdminOperations)
    const { apiKey, workspaceId } = await admin.runPromise(ops.createWorkspace({ name: "Traced", plan: "standard" }))
    const { channelId } = await admin.runPromise(ops.createChannel({ workspaceId, network: "test", name: "T", customerId: null, postingTimes: [] }))
    await admin.dispose()
    const gateway = await processes.start(world, ["gateway"], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl(), SEED_DEMO: "false" } })
    const base = `http://127.0.0.1:${gateway.id.replace("port ", "")}`

    const created = await client(base, apiKey).post("/public/v1/posts", {
      type: "now",
      shortLink: false,
      tags: [],
      date: new Date().toISOString(),
      posts: [{ integration: { id: channelId }, value: [{ content: "Traced", image: [] }], settings: { __type: "test" } }]
    })
    expect(created.status).toBe(200)

    const trace = await waitFor(
      "one trace with spans of the gateway, the actor, the scheduler and the publisher",
      async () => {
        const byTrace = new Map<string, Array<ReceivedSpan>>()
        for (const s of spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s])
        for (const list of byTrace.values()) {
          const services = new Set(list.map((s) => s.service))
          if (
            ["gateway", "actors", "scheduler", "publisher"].every((name) => services.has(name)) &&
            list.some((s) => s.name === "publisher.publishItem")
          )
            return list
        }
        return undefined
      },
      30_000
    )
    // one tree: a single root (the gateway's HTTP span), every other span's parent in the trace
    const ids = new Set(trace.map((s) => s.spanId))
    const roots = trace.filter((s) => s.parentSpanId === "" || !ids.has(s.parentSpanId))
    expect(roots.map((s) => s.service)).toEqual(["gateway"])
    expect(trace.some((s) => s.service === "actors" && s.name === "actor.command")).toBe(true)
    expect(trace.some((s) => s.service === "scheduler" && s.name === "scheduler.enqueue")).toBe(true)
  }, 90_000)

  it("each call to a network is a network.call span under the publisher's: method, host, masked path and status", async () => {
    const admin = ManagedRuntime.make(infrastructure(world, simulatorEnv(sim)))
    const ops = await admin.runPromise(makeAdminOperations)
    const { apiKey, workspaceId } = await admin.runPromise(ops.createWorkspace({ name: "Traced network", plan: "standard" }))
    const { channelId } = await admin.runPromise(
      ops.createChannel({
        workspaceId,
        network: "mastodon",
        name: "M",
        customerId: null,
        postingTimes: [],
        credentials: await seedAccount(sim, "mastodon", { username: "traced" })
      })
    )
    await admin.dispose()
    const gateway = await processes.start(world, ["gateway"], {
      env: { ...simulatorEnv(sim), OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl(), SEED_DEMO: "false" },
      label: "gateway-2"
    })
    const base = `http://127.0.0.1:${gateway.id.replace("port ", "")}`
    const created = await client(base, apiKey).post("/public/v1/posts", {
      type: "now",
      shortLink: false,
      tags: [],
      date: new Date().toISOString(),
      posts: [{ integration: { id: channelId }, value: [{ content: "Traced to Mastodon", image: [] }], settings: {} }]
    })
    expect(created.status).toBe(200)
    const call = await waitFor(
      "a network.call span of the publish",
      async () => spans.find((s) => s.name === "network.call" && String(s.attributes["url.path"]).endsWith("/api/v1/statuses")),
      30_000
    )
    expect(call.service).toBe("publisher")
    expect(call.attributes).toMatchObject({ "http.request.method": "POST", "http.response.status_code": 200 })
    expect(String(call.attributes["server.address"])).toBe(`127.0.0.1:${sim.port}`)
    const parent = spans.find((s) => s.spanId === call.parentSpanId)
    expect(parent?.name).toBe("publisher.publishItem")
  }, 90_000)
})

const receiverUrl = () => {
  const address = receiver.address()
  return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
}
