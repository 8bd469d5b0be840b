/**
 * Benchmark: POST /posts across many workspaces through the whole path (gateway →
 * NATS → workspace actor → one Postgres transaction), next to the same transactions
 * run straight on Postgres in the same run. The ratio is the figure that matters.
 * The gateway and the actor host run as their own processes, as deployed; this
 * process only sends the requests (and runs the baseline).
 *
 * Then the service is driven at half the rate it just reached (requests sent on a clock,
 * whatever the answers' pace) for the p99 a tenant sees below saturation. The requests are
 * sent with autocannon (each with its tenant's key and its own Idempotency-Key), which
 * leaves the service more of the machine than a fetch client would; the half-rate run with
 * node:http on kept-alive connections, evenly spaced (autocannon's rate sends each second's
 * share in a burst).
 *
 * The maximum rate is measured in rounds (BENCH_ROUNDS, default 3): a share of the requests
 * through the service, then as many straight on Postgres, in turn, so that the machine's
 * speed drifting during the run weighs on both sides alike; the ratio is of the pooled rates.
 *
 *   npm run bench -- posts            (BENCH_WORKSPACES 150, BENCH_REQUESTS 5000, BENCH_CONCURRENCY 16, BENCH_WARMUP 4000, BENCH_ROUNDS 3)
 *   BENCH_CPU_PROF=<dir>              the gateway and the actor host write V8 CPU profiles there
 *   BENCH_LAYOUT=npm-start            every service in one process, built, as `npm start` runs it
 *   BENCH_DEBUG=1                     the half-rate run's p50 and max per second, and when its slow answers were sent
 *   BENCH_NODE_FLAGS="--trace-gc …"   node flags added after npm start's (trying runtime settings)
 *   BENCH_SERVICE_LOG=<file>          the service's output written there at the end
 *
 * The service runs with --trace-gc-nvp, and the bench prints per thread what its scavenges
 * promoted while measured (support/gcFigures.ts): objects of a request that outlive it.
 */
import pg from "pg"
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import autocannon from "autocannon"
import { urlsFromEnv } from "../support/servers.js"
import { ManagedRuntime } from "effect"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { createWorld, infrastructure } from "../support/system.js"
import { cpuDuring } from "./support/cpuTime.js"
import { formatGc, gcOf, gcTraceFlag, isolatesOf, writtenSince } from "./support/gcFigures.js"
import { npmStartNodeFlags } from "./support/npmStart.js"
import { runBench } from "./support/runBench.js"

const workspaces = Number(process.env["BENCH_WORKSPACES"] ?? 150)
const requests = Number(process.env["BENCH_REQUESTS"] ?? 5000)
/**
 * Requests sent first, unmeasured, the same as the measured ones, until V8 has optimized the
 * path they take: after 1,000 (drafts, then) the first round still ran 15-30% slower than
 * the third; after 4,000 the rounds are level.
 */
const warmup = Number(process.env["BENCH_WARMUP"] ?? 4000)
const concurrency = Number(process.env["BENCH_CONCURRENCY"] ?? 16)
/** Rounds of the maximum rate: service, then baseline, in turn. */
const rounds = Math.max(1, Number(process.env["BENCH_ROUNDS"] ?? 3))
/** Requests of the half-rate run. */
const paced = Math.floor(requests / 2)
const profileDir = process.env["BENCH_CPU_PROF"]
/** BENCH_COUNT_QUERIES=1: the actor host counts its Postgres statements (test/bench/queryCounter.mjs) and prints them per request. */
const countQueries = process.env["BENCH_COUNT_QUERIES"] === "1"
/** BENCH_DEBUG=1: the half-rate run's latencies per second. */
const debug = process.env["BENCH_DEBUG"] === "1"
/** BENCH_LAYOUT=npm-start: every service in one built process, as `npm start` runs them, instead of gateway and actor host apart. */
const oneProcess = process.env["BENCH_LAYOUT"] === "npm-start"
/** BENCH_NODE_FLAGS="--flag …": node flags added to the service's (for trying runtime settings), npm start's still first. */
const extraNodeFlags = (process.env["BENCH_NODE_FLAGS"] ?? "").split(" ").filter((f) => f !== "")
/** BENCH_SERVICE_LOG=<file>: the service's output (the last 500 kB of it) is written there at the end. */
const serviceLog = process.env["BENCH_SERVICE_LOG"]

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

/** Runs `count` tasks with `concurrency` in flight; returns wall time and each latency. */
const run = async (count: number, task: (i: number) => Promise<void>) => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t = performance.now()
        await task(i)
        latencies.push(performance.now() - t)
      }
    })
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { rps: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

/** Sends `count` tasks at `rps` on a clock (open loop: a slow answer does not slow the sending); latencies. */
const runAt = async (count: number, rps: number, task: (i: number) => Promise<void>) => {
  const latencies: Array<number> = []
  const slices: Array<{ readonly at: number; readonly ms: number }> = []
  const started = performance.now()
  const all: Array<Promise<void>> = []
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rps
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const t = performance.now()
    all.push(
      task(i).then(() => {
        latencies.push(performance.now() - t)
        slices.push({ at: t - started, ms: performance.now() - t })
      })
    )
  }
  await Promise.all(all)
  const seconds = (performance.now() - started) / 1000
  if (debug) {
    // where the slow answers fall: one line per second of the run (a pause of a process shows as one bad second)
    for (let s = 0; s < Math.ceil(seconds); s++) {
      const inSecond = slices
        .filter((x) => x.at >= s * 1000 && x.at < (s + 1) * 1000)
        .map((x) => x.ms)
        .sort((a, b) => a - b)
      console.log(
        `  second ${s}: ${inSecond.length} sent, p50 ${percentile(inSecond, 50).toFixed(1)} ms, max ${(inSecond.at(-1) ?? 0).toFixed(1)} ms`
      )
    }
    // each answer slower than 20 ms as <ms after the start>+<its latency>, and the start's wall clock, to line
    // up with what the service logged then (a GC pause shows as a burst of them)
    const slow = slices.filter((x) => x.ms > 20).sort((a, b) => a.at - b.at)
    console.log(
      `  started at ${new Date(Date.now() - (performance.now() - started)).toISOString()}; slower than 20 ms: ${slow.map((x) => `${x.at.toFixed(0)}+${x.ms.toFixed(0)}`).join(" ")}`
    )
  }
  latencies.sort((a, b) => a - b)
  return { rps: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

/** One round of the maximum rate: its rate and latencies over its `count` requests. */
interface RoundFigures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly count: number
}

const fmt = (r: { rps: number; p50: number; p99: number }) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`

const main = async () => {
  if ((requests + paced + warmup) / workspaces > 90) throw new Error("more than 90 requests per workspace would hit the hourly limit")
  const world = await createWorld("bench", urlsFromEnv())
  const admin = ManagedRuntime.make(infrastructure(world))
  const ops = await admin.runPromise(makeAdminOperations)
  const group = processGroup()
  try {
    const profile = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
    let actors: ServiceProcess
    let gateway: ServiceProcess
    let sys: { readonly url: string }
    if (oneProcess) {
      console.log("building (npm run build) …")
      execFileSync("npm", ["run", "-s", "build"], { stdio: "inherit" })
      const service = await group.start(world, [], {
        nodeArgs: [...profile, ...npmStartNodeFlags(), gcTraceFlag, ...extraNodeFlags, "dist/services/main.js"], // as npm start runs it
        env: { SEED_DEMO: "false" },
        ready: /all services up/,
        label: "service"
      })
      const port = service.output().match(/gateway listening on port (\d+)/)?.[1]
      if (port === undefined) throw new Error(`no gateway port in:\n${service.output()}`)
      actors = gateway = service
      sys = { url: `http://127.0.0.1:${port}` }
    } else {
      actors = await group.start(world, ["actors"], {
        nodeOptions: [
          ...profile,
          ...npmStartNodeFlags(),
          gcTraceFlag,
          ...extraNodeFlags,
          ...(countQueries ? ["--import", "./test/bench/queryCounter.mjs"] : [])
        ]
      })
      gateway = await group.start(world, ["gateway"], { nodeOptions: [...profile, ...npmStartNodeFlags(), gcTraceFlag, ...extraNodeFlags] })
      sys = { url: `http://127.0.0.1:${gateway.id.replace("port ", "")}` }
    }
    const tenants = await Promise.all(
      Array.from({ length: workspaces }, async (_, i) => {
        const ws = await admin.runPromise(ops.createWorkspace({ name: `Bench ${i}`, plan: "standard" }))
        const { channelId } = await admin.runPromise(
          ops.createChannel({ workspaceId: ws.workspaceId, network: "test", name: `Bench ${i}`, customerId: null, postingTimes: [] })
        )
        return { ...ws, channelId }
      })
    )
    // the actor host owns its shards once the lease round has run
    await new Promise((r) => setTimeout(r, 2_000))
    const date = new Date(Date.now() + 24 * 3600_000).toISOString()
    const body = (channelId: string, i: number) => ({
      type: "schedule",
      date,
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channelId }, value: [{ content: `Benchmark post ${i}`, image: [] }], settings: { __type: "test" } }]
    })

    /** `count` POST /posts over the tenants in turn, on `concurrency` connections. */
    const drive = async (tag: string, count: number, options: { readonly type?: string } = {}) => {
      let sent = 0
      const refused: Array<string> = []
      const started = performance.now()
      let lastAnswer = started
      const r = await autocannon({
        url: sys.url,
        connections: concurrency,
        amount: count,
        requests: [
          {
            method: "POST",
            path: "/public/v1/posts",
            setupRequest: (request) => {
              const i = sent++
              const t = tenants[i % workspaces]!
              return {
                ...request,
                headers: { "content-type": "application/json", authorization: t.apiKey, "idempotency-key": `bench-${tag}-${i}` },
                body: JSON.stringify({ ...body(t.channelId, i), ...(options.type === undefined ? {} : { type: options.type }) })
              }
            },
            onResponse: (status, text) => {
              lastAnswer = performance.now()
              if (status !== 200 && refused.length < 3) refused.push(`${status} ${text}`)
            }
          }
        ]
      })
      if (r.non2xx > 0 || r.errors > 0 || r["2xx"] < count) {
        throw new Error(
          `POST /posts: ${r["2xx"]} of ${count} answered 200, ${r.non2xx} other answers (${refused.join("; ")}), ${r.errors} errors\n` +
            `actor host: ${actors.output().slice(-3000)}\ngateway: ${gateway.output().slice(-3000)}`
        )
      }
      // autocannon ends a run at its next one-second tick: its duration (and the wall time) is whole seconds
      const seconds = (lastAnswer - started) / 1000
      return { rps: r["2xx"] / seconds, p50: r.latency.p50, p99: r.latency.p99 }
    }

    // warm-up: JIT, connection pools, shard subscriptions
    await drive("warm", warmup)
    const parts: Record<string, ReadonlyArray<number> | string> = oneProcess
      ? { "service (one process)": [gateway.pid], Postgres: "postgres", NATS: "nats-server", Redis: "redis-server", "bench client": [process.pid] }
      : {
          gateway: [gateway.pid],
          "actor host": [actors.pid],
          Postgres: "postgres",
          NATS: "nats-server",
          Redis: "redis-server",
          "bench client": [process.pid]
        }
    // baseline: the same rows in one transaction per post, straight on Postgres
    const pool = new pg.Pool({ connectionString: world.databaseUrl, max: concurrency })
    const baselinePost = (tag: string) => async (i: number) => {
      const t = tenants[i % workspaces]!
      const c = await pool.connect()
      try {
        const group = crypto.randomUUID()
        const post = crypto.randomUUID()
        await c.query("BEGIN")
        await c.query("SELECT id FROM channels WHERE workspace_id = $1 AND id = ANY($2) AND deleted_at IS NULL", [t.workspaceId, [t.channelId]])
        await c.query(
          "INSERT INTO post_groups (id, workspace_id, status, publish_at, creation_method, author, share_token) VALUES ($1,$2,'scheduled',$3,'api','API',$4)",
          [group, t.workspaceId, date, crypto.randomUUID()]
        )
        await c.query(
          "INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, settings, publish_date) VALUES ($1,$2,$3,$4,1,'queued','{}',$5)",
          [post, group, t.workspaceId, t.channelId, date]
        )
        await c.query(
          "INSERT INTO post_items (id, post_id, workspace_id, position, content, media, status, due_at) VALUES ($1,$2,$3,0,$4,'[]','queued',$5)",
          [crypto.randomUUID(), post, t.workspaceId, `Baseline post ${i}`, date]
        )
        await c.query("INSERT INTO post_activity (group_id, actor, action) VALUES ($1,'API','created')", [group])
        await c.query("INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response) VALUES ($1,$2,'h',200,'[]')", [
          t.workspaceId,
          `baseline-${tag}-${i}`
        ])
        await c.query("COMMIT")
      } finally {
        c.release()
      }
    }
    // the baseline's own warm-up (its pool's connections, the client's JIT), as the service had
    await run(warmup, baselinePost("warm"))
    // the maximum rate in rounds, the service's share then the baseline's, each with the CPU it took
    const serviceRounds: Array<RoundFigures> = []
    const baselineRounds: Array<RoundFigures> = []
    const serviceCpu: Record<string, number> = {}
    const baselineCpu: Record<string, number> = {}
    const addCpu = (into: Record<string, number>, cpu: Record<string, number>) => {
      for (const [k, ms] of Object.entries(cpu)) into[k] = (into[k] ?? 0) + ms
    }
    // the service's GC lines from here to the end of the half-rate run: the measured part, warm
    const gcBefore = { gateway: gateway.output(), actors: actors.output() }
    for (let r = 0; r < rounds; r++) {
      // the round's share: the rounds' counts add up to `requests`
      const count = Math.round((requests * (r + 1)) / rounds) - Math.round((requests * r) / rounds)
      const s = await cpuDuring(parts, () => drive(`max${r}`, count))
      serviceRounds.push({ ...s.result, count })
      addCpu(serviceCpu, s.cpuMs)
      const b = await cpuDuring({ Postgres: "postgres", "bench client": [process.pid] }, () => run(count, baselinePost(`max${r}`)))
      baselineRounds.push({ ...b.result, count })
      addCpu(baselineCpu, b.cpuMs)
    }
    /** The rounds as one run: the rate of all their requests over all their time; the median p50 and the worst p99 of the rounds. */
    const pooled = (rs: ReadonlyArray<RoundFigures>) => {
      const byP50 = rs.map((r) => r.p50).sort((a, b) => a - b)
      return {
        rps: rs.reduce((n, r) => n + r.count, 0) / rs.reduce((t, r) => t + r.count / r.rps, 0),
        p50: byP50[Math.floor(byP50.length / 2)] ?? 0,
        p99: Math.max(...rs.map((r) => r.p99))
      }
    }
    const service = pooled(serviceRounds)
    const baseline = pooled(baselineRounds)
    // the half-rate run: evenly spaced sends on kept-alive connections
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
    const post = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const t = tenants[i % workspaces]!
        const payload = JSON.stringify(body(t.channelId, i))
        const req = request(
          `${sys.url}/public/v1/posts`,
          { method: "POST", agent, headers: { "content-type": "application/json", authorization: t.apiKey, "idempotency-key": `bench-half-${i}` } },
          (res) => {
            let text = ""
            res.setEncoding("utf8")
            res.on("data", (chunk: string) => (text += chunk))
            res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`POST /posts answered ${res.statusCode}: ${text}`))))
          }
        )
        req.on("error", reject)
        req.end(payload)
      })
    const half = await runAt(paced, service.rps / 2, post)
    agent.destroy()
    // the threads by their first GC line: in one process the main thread's comes first (the worker starts later)
    const gatewayGc = writtenSince(gcBefore.gateway, gateway.output())
    const gcLines = oneProcess
      ? ["main thread (gateway)", "worker thread (actor host, scheduler, …)"].map((name, i) => ({
          name,
          isolate: isolatesOf(gateway.output())[i],
          text: gatewayGc
        }))
      : [
          { name: "gateway", isolate: isolatesOf(gateway.output())[0], text: gatewayGc },
          { name: "actor host", isolate: isolatesOf(actors.output())[0], text: writtenSince(gcBefore.actors, actors.output()) }
        ]
    if (profileDir !== undefined || countQueries) {
      // a graceful stop writes the profiles and the counts
      await gateway.kill("SIGTERM")
      if (actors !== gateway) await actors.kill("SIGTERM")
      const counted = /queryCounter: (\d+) statements/.exec(actors.output())
      if (counted !== null) {
        const sent = requests + paced + warmup
        console.log(
          `actor host: ${counted[1]} Postgres statements for ${sent} POST /posts (${(Number(counted[1]) / sent).toFixed(1)} per request, lease rounds included)`
        )
        console.log(actors.output().slice(actors.output().indexOf("queryCounter:")))
      }
    }

    // the same paced run as the service's half-rate one: what Postgres itself adds to the tail at that rate
    const baselineHalf = await runAt(paced, service.rps / 2, baselinePost("half"))
    await pool.end()

    console.log(
      `POST /posts benchmark: ${requests} requests over ${workspaces} workspaces, ${concurrency} in flight, in ${rounds} rounds ` +
        `(${oneProcess ? "every service in one process, as npm start" : "gateway and actor host as processes"})`
    )
    console.log(`  service (HTTP → NATS → actor → Postgres): ${fmt(service)}`)
    console.log(`  service at half that rate (${paced} requests at ${(service.rps / 2).toFixed(0)} req/s): ${fmt(half)}`)
    console.log(`  baseline (same transaction on Postgres):  ${fmt(baseline)}`)
    console.log(`  baseline at the service's half rate:      ${fmt(baselineHalf)}`)
    console.log(
      `  ratio service/baseline throughput: ${(service.rps / baseline.rps).toFixed(2)}; p50 latency ×${(service.p50 / baseline.p50).toFixed(1)}`
    )
    console.log(
      `  rounds (service / baseline req/s): ${serviceRounds.map((r, i) => `${r.rps.toFixed(0)} / ${baselineRounds[i]!.rps.toFixed(0)}`).join(", ")}`
    )
    const perRequest = (cpu: Record<string, number>) =>
      Object.entries(cpu)
        .map(([k, ms]) => `${k} ${((ms * 1000) / requests).toFixed(0)}`)
        .join(", ")
    console.log(`  CPU µs per request, service: ${perRequest(serviceCpu)}`)
    console.log(`  CPU µs per request, baseline: ${perRequest(baselineCpu)}`)
    console.log("  young-generation GC while measured (--trace-gc-nvp):")
    for (const { name, isolate, text } of gcLines) {
      const gc = isolate === undefined ? undefined : gcOf(text).get(isolate)
      console.log(`    ${gc === undefined ? `${name}: no GC lines (none written, or the output was cut)` : formatGc(name, gc)}`)
    }
    if (serviceLog !== undefined)
      writeFileSync(serviceLog, actors === gateway ? gateway.output() : `${actors.output()}\n--- gateway ---\n${gateway.output()}`)
  } finally {
    await group.stopAll()
    await admin.dispose()
    await world.drop()
  }
}

void runBench(main)
