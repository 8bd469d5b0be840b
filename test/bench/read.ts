/**
 * Benchmark: GET /public/v1/is-connected (authenticated) on the service as `npm start`
 * runs it (built JavaScript, every service in one process), next to two baselines
 * measured in the same run, each its own process: a minimal Effect HttpApi endpoint on
 * the same stack, and bare Node http. autocannon, 32 connections. Goal: service ≥ 0.7×
 * the minimal HttpApi endpoint.
 *
 * The service is measured twice: without tracing, and with OTEL_EXPORTER_OTLP_ENDPOINT
 * set (spans exported over OTLP/HTTP to a local receiver that drops them), so the cost
 * of tracing shows next to "costs nothing when off".
 *
 *   npm run bench -- read        (BENCH_SECONDS per measurement, default 8; BENCH_CONNECTIONS, default 32)
 *   BENCH_CPU_PROF=<dir>         the service (untraced) writes a V8 CPU profile there
 */
import { execFileSync } from "node:child_process"
import { createServer } from "node:http"
import autocannon from "autocannon"
import { ManagedRuntime } from "effect"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { processGroup } from "../support/processes.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, infrastructure } from "../support/system.js"
import { cpuTicks } from "./support/cpuTime.js"
import { npmStartNodeFlags } from "./support/npmStart.js"
import { runBench } from "./support/runBench.js"

const seconds = Number(process.env["BENCH_SECONDS"] ?? 8)
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 32)
const PATH = "/public/v1/is-connected"

interface Figure {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** CPU time the server process spent per request (user + system): steadier than req/s on a shared machine. */
  readonly cpuMicros: number
}

const measure = async (label: string, base: string, pid: number, key?: string): Promise<Figure> => {
  const headers: Record<string, string> = key === undefined ? {} : { authorization: key }
  // warm-up: JIT, connection pools, the token cache
  await autocannon({ url: `${base}${PATH}`, connections, duration: 2, headers })
  const before = cpuTicks(pid)
  const r = await autocannon({ url: `${base}${PATH}`, connections, duration: seconds, headers })
  const ticks = cpuTicks(pid) - before
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} answers other than 2xx, ${r.errors} errors`)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuMicros: (ticks * 10_000) / Math.max(1, r["2xx"]) }
}

/** An OTLP/HTTP receiver that accepts and drops every export (for the tracing-on figure). */
const sink = () =>
  new Promise<{ url: string; received: () => number; close: () => void }>((resolve) => {
    let received = 0
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        received++
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const a = server.address()
      resolve({ url: `http://127.0.0.1:${typeof a === "object" && a !== null ? a.port : 0}`, received: () => received, close: () => server.close() })
    })
  })

const fmt = (f: Figure) =>
  `${f.rps.toFixed(0).padStart(6)} req/s   p50 ${f.p50.toFixed(1)} ms   p99 ${f.p99.toFixed(1)} ms   ${f.cpuMicros.toFixed(0).padStart(4)} µs CPU/request`

const main = async () => {
  console.log("building (npm run build) …")
  execFileSync("npm", ["run", "-s", "build"], { stdio: "inherit" })
  const world = await createWorld("benchread", urlsFromEnv())
  const admin = ManagedRuntime.make(infrastructure(world))
  const group = processGroup()
  const otlp = await sink()
  try {
    const ops = await admin.runPromise(makeAdminOperations)
    const { apiKey } = await admin.runPromise(ops.createWorkspace({ name: "Bench read", plan: "standard" }))
    const listening = /listening on (\d+)/
    // the baselines get npm start's runtime flags too (its young generation), so the ratio compares the code alone
    const bare = await group.start(world, [], {
      nodeArgs: [...npmStartNodeFlags(), "--import", "tsx", "test/bench/support/minimalServers.ts", "bare"],
      ready: listening,
      label: "bare"
    })
    const httpApi = await group.start(world, [], {
      nodeArgs: [...npmStartNodeFlags(), "--import", "tsx", "test/bench/support/minimalServers.ts", "httpapi"],
      ready: listening,
      label: "httpapi"
    })
    const urlOf = (port: string) => `http://127.0.0.1:${port}`
    const profileDir = process.env["BENCH_CPU_PROF"]
    const startService = async (env: Record<string, string>, profile = false) => {
      const service = await group.start(world, [], {
        nodeArgs: [
          ...(profile && profileDir !== undefined ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
          ...npmStartNodeFlags(),
          "dist/services/main.js"
        ], // as npm start runs it
        env: { SEED_DEMO: "false", ...env },
        ready: /all services up/,
        label: "service"
      })
      const port = service.output().match(/gateway listening on port (\d+)/)?.[1]
      if (port === undefined) throw new Error(`no gateway port in:\n${service.output()}`)
      return { service, url: urlOf(port) }
    }

    const bareFigure = await measure("bare Node http", urlOf(bare.id), bare.pid)
    const httpApiFigure = await measure("minimal HttpApi", urlOf(httpApi.id), httpApi.pid)
    const plain = await startService({}, true)
    const serviceFigure = await measure("service", plain.url, plain.service.pid, apiKey)
    await plain.service.kill("SIGTERM")
    const traced = await startService({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })
    const tracedFigure = await measure("service, traced", traced.url, traced.service.pid, apiKey)
    await traced.service.kill("SIGTERM")

    console.log(`GET ${PATH}: autocannon, ${connections} connections, ${seconds} s each (same run)`)
    console.log(`  bare Node http                      ${fmt(bareFigure)}`)
    console.log(`  minimal Effect HttpApi endpoint     ${fmt(httpApiFigure)}`)
    console.log(`  service (npm start, all services)   ${fmt(serviceFigure)}`)
    console.log(`  service with OTLP tracing on        ${fmt(tracedFigure)}   (${otlp.received()} exports received)`)
    console.log(`  ratio service / minimal HttpApi: ${(serviceFigure.rps / httpApiFigure.rps).toFixed(2)} (goal ≥ 0.7)`)
    console.log(`  ratio service / bare Node http:  ${(serviceFigure.rps / bareFigure.rps).toFixed(2)}`)
    console.log(`  ratio traced / untraced service: ${(tracedFigure.rps / serviceFigure.rps).toFixed(2)}`)
    console.log(`  CPU per request, service / minimal HttpApi: ${(serviceFigure.cpuMicros / httpApiFigure.cpuMicros).toFixed(2)}`)
  } finally {
    otlp.close()
    await group.stopAll()
    await admin.dispose()
    await world.drop()
  }
}

void runBench(main)
