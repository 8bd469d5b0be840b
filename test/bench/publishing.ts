/**
 * Benchmark: posts fall due together and go out through the real scheduler and publisher to the
 * network simulator (Telegram's API, which has no duplicate guard of its own, so every copy sent
 * would be seen). Every workspace's channels are Telegram chats of their own. The shapes (issue 37):
 *
 *   spread  (default) N posts across W workspaces of 2 channels, due evenly over one minute
 *           (post i at i × 60 s / N past its start): goal p99 ≤ 2 s
 *   burst   the same posts all due at the minute's first instant: goal p99 ≤ 5 s
 *   agency  one workspace with 100 channels and 9,000 posts and 99 workspaces with 2 channels and
 *           10 posts each, all due at one instant: goal the small workspaces' p99 ≤ 2 s
 *   all     the three in turn, in one run
 *
 * Each goal also asks 0 duplicates and every post published. For each shape it prints lateness
 * from the due time to the network's receipt (p50/p99/max; for agency the agency's and the small
 * workspaces' apart), posts per second, duplicates, the items' final states and a one-line verdict,
 * next to a baseline measured in the same run: the same posts sent straight to the simulator from
 * this process (the simulator's own intake time). Each shape gets a fresh world (database, NATS
 * namespace, workspaces) and freshly started services, cold as after a deploy; the simulator is
 * the same throughout.
 *
 *   npm run bench -- publishing [posts=10000] [workspaces=100] [publishers=2]
 *   BENCH_SHAPE=spread|burst|agency|all   the shape (BENCH_SAME_INSTANT=1 is burst)
 *   BENCH_LAYOUT=npm-start (default)      every service in one built process, as `npm start` runs them
 *                                         (the gateway on the main thread, the others on a worker thread)
 *   BENCH_LAYOUT=processes                one scheduler and [publishers] publisher processes (tsx)
 *   BENCH_SCALE=0.1                       every shape's posts and workspaces × 0.1, for a quick check
 *   PUBLISHER_CONCURRENCY                 jobs a publisher holds (default: the service's)
 *   PUBLISHER_THREADS                     publisher threads under npm start (default 1); the calls in flight are shared among them
 *   BENCH_IN_FLIGHT                       calls to the network in flight, the baseline's and the service's (default 64)
 *   BENCH_DEBUG=1                         per shape: where the time went, lateness by ten-second slice, warnings
 *   BENCH_NODE_FLAGS                      more node flags for the npm-start process (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
 *
 * The posts are written straight to Postgres (as POST /posts would leave them, queued):
 * the API's 90 posts an hour per workspace would otherwise take hours to fill the minute.
 */
import { execFileSync } from "node:child_process"
import { ManagedRuntime } from "effect"
import pg from "pg"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { urlsFromEnv } from "../support/servers.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, infrastructure } from "../support/system.js"
import { npmStartNodeFlags } from "./support/npmStart.js"
import { writeQueuedPosts } from "./support/queuedPosts.js"
import {
  allOnce,
  formatLateness,
  latenessOf,
  percentile,
  seconds,
  shapePlan,
  shapesFromEnv,
  verdict,
  type ShapeOutcome,
  type ShapePlan
} from "./support/publishingShapes.js"
import { runBench } from "./support/runBench.js"

const postsArg = Number(process.argv[3] ?? 10_000)
const workspacesArg = Number(process.argv[4] ?? 100)
const publishers = Number(process.argv[5] ?? 2)
const layout = process.env["BENCH_LAYOUT"] ?? "npm-start"
if (layout !== "npm-start" && layout !== "processes") throw new Error(`BENCH_LAYOUT must be npm-start or processes, not ${layout}`)
const scale = Number(process.env["BENCH_SCALE"] ?? 1)
if (!(scale > 0)) throw new Error(`BENCH_SCALE must be a number above 0, not ${process.env["BENCH_SCALE"]}`)
const shapes = shapesFromEnv(process.env)
/** PUBLISHER_CONCURRENCY (jobs a publisher holds) as given; otherwise the service's default. */
const concurrencyGiven = process.env["PUBLISHER_CONCURRENCY"]
/**
 * Calls to the network in flight: the baseline's, and the service's (PUBLISH_LIMITS' Telegram
 * `concurrency`, per publisher process), so that the two send alike (BENCH_IN_FLIGHT, default 64).
 */
const inFlight = Number(process.env["BENCH_IN_FLIGHT"] ?? 64)
/** PUBLISHER_THREADS (publisher threads under npm start) as given: the calls in flight are shared among them. */
const threadsGiven = process.env["PUBLISHER_THREADS"]
const callsPerProcess = Math.max(1, Math.ceil(inFlight / (layout === "processes" ? publishers : Number(threadsGiven ?? 1))))
const TIMEOUT_MS = Number(process.env["BENCH_TIMEOUT_MS"] ?? 15 * 60_000)
const debug = process.env["BENCH_DEBUG"] === "1"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Sim = Awaited<ReturnType<typeof startSimulator>>

/** The services of one shape, started against its world: one built process (npm start) or a scheduler and publisher processes. */
const startServices = (
  group: ReturnType<typeof processGroup>,
  world: Awaited<ReturnType<typeof createWorld>>,
  env: Record<string, string>
): Promise<ReadonlyArray<ServiceProcess>> =>
  layout === "npm-start"
    ? Promise.all([
        group.start(world, [], {
          // as npm start runs it; BENCH_NODE_FLAGS adds flags (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
          nodeArgs: [...(process.env["BENCH_NODE_FLAGS"]?.split(" ").filter((f) => f !== "") ?? []), ...npmStartNodeFlags(), "dist/services/main.js"],
          env,
          ready: /all services up/,
          label: "service (npm start)",
          timeoutMs: 120_000
        })
      ])
    : Promise.all([
        group.start(world, ["scheduler"], { env, ready: /scheduler started/, timeoutMs: 120_000 }),
        ...Array.from({ length: publishers }, (_, n) =>
          group.start(world, ["publisher"], { env, ready: /publisher started/, label: `publisher ${n + 1}`, timeoutMs: 120_000 })
        )
      ])

/** One shape: its world, baseline, services and posts; prints its result block and gives its outcome. */
const runShape = async (sim: Sim, plan: ShapePlan): Promise<ShapeOutcome> => {
  const total = plan.posts.length
  const env: Record<string, string> = {
    ...simulatorEnv(sim),
    // the simulator has no per-chat limit; Telegram's real 20 a minute would only measure itself
    PUBLISH_LIMITS: JSON.stringify({ telegram: { channelPerMinute: 0, concurrency: callsPerProcess } }),
    SEED_DEMO: "false",
    ...(concurrencyGiven !== undefined ? { PUBLISHER_CONCURRENCY: concurrencyGiven } : {}),
    ...(threadsGiven !== undefined ? { PUBLISHER_THREADS: threadsGiven } : {})
  }
  const world = await createWorld(`benchpub${plan.name}`, urlsFromEnv())
  const admin = ManagedRuntime.make(infrastructure(world, env))
  const group = processGroup()
  const db = new pg.Client({ connectionString: world.databaseUrl })
  await db.connect()
  const requestsBefore = sim.requests.length
  try {
    const ops = await admin.runPromise(makeAdminOperations)
    // the workspaces, each channel a Telegram chat of its own on the simulator
    const workspaces = await Promise.all(
      plan.workspaces.map(async (w, i) => {
        const ws = await admin.runPromise(ops.createWorkspace({ name: `Bench ${plan.name} ${i}`, plan: "ultimate" }))
        const channels: Array<{ readonly channelId: string; readonly credentials: Record<string, unknown> }> = []
        for (let c = 0; c < w.channels; c++) {
          const name = `Bench ${plan.name} ${i}.${c}`
          const credentials = await seedAccount(sim, "telegram", { title: name })
          const { channelId } = await admin.runPromise(
            ops.createChannel({ workspaceId: ws.workspaceId, network: "telegram", name, customerId: null, postingTimes: [], credentials })
          )
          channels.push({ channelId, credentials })
        }
        return { workspaceId: ws.workspaceId, group: w.group, channels }
      })
    )
    const channelOf = (i: number) => {
      const p = plan.posts[i]!
      return workspaces[p.workspace]!.channels[p.channel]!
    }

    // baseline: the simulator taking the same posts, to the same chats, straight from one client
    let next = 0
    const baselineStart = performance.now()
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next++; i < total; i = next++) {
          const c = channelOf(i).credentials
          await fetch(`${sim.baseOf("telegram")}/bot${String(c["botToken"])}/sendMessage`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ chat_id: c["chatId"], text: `baseline ${plan.name} ${i}` })
          })
        }
      })
    )
    const baselineMs = performance.now() - baselineStart

    const procs = await startServices(group, world, env)

    // due in the next minute at least 20 s away (from the minute's start by each post's offset)
    const minute = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000
    const dueOf = (i: number) => minute + plan.posts[i]!.offsetMs
    const prefix = `bench ${plan.name} post `
    const text = (i: number) => `${prefix}${i}`
    await writeQueuedPosts(
      db,
      plan.posts.map((p, i) => ({
        workspace: workspaces[p.workspace]!.workspaceId,
        channel: channelOf(i).channelId,
        text: text(i),
        due: new Date(dueOf(i))
      }))
    )
    const given = [
      ...(concurrencyGiven === undefined ? [] : [` (PUBLISHER_CONCURRENCY ${concurrencyGiven})`]),
      ...(threadsGiven === undefined ? [] : [` (PUBLISHER_THREADS ${threadsGiven})`])
    ].join("")
    const layoutText =
      layout === "npm-start"
        ? `every service in one process as npm start runs them${given}`
        : `a scheduler and ${publishers} publisher processes${concurrencyGiven === undefined ? "" : ` with ${concurrencyGiven} jobs each`}`
    console.log(`\n[${plan.name}] ${plan.description}, from ${new Date(minute).toISOString()}; ${layoutText}; ${inFlight} calls in flight at most`)

    const deadline = Date.now() + TIMEOUT_MS
    for (;;) {
      const settled = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM post_items WHERE status IN ('published','error','unconfirmed')"))
        .rows[0]!.n
      if (settled >= total || Date.now() > deadline) break
      await sleep(500)
    }
    const arrivals = sim.postsOf("telegram").filter((p) => p.text.startsWith(prefix))
    const firstByText = new Map<string, number>()
    for (const p of arrivals) if (!firstByText.has(p.text)) firstByText.set(p.text, p.at.getTime())
    /** Each received post's lateness (ms) and its workspace's group. */
    const received = Array.from({ length: total }, (_, i) => {
      const at = firstByText.get(text(i))
      return at === undefined ? [] : [{ i, group: workspaces[plan.posts[i]!.workspace]!.group, late: at - dueOf(i) }]
    }).flat()
    const lastArrival = Math.max(minute, ...firstByText.values())
    const duplicates = arrivals.length - firstByText.size
    const states = (
      await db.query<{ status: string; n: number }>("SELECT status, count(*)::int AS n FROM post_items GROUP BY status ORDER BY status")
    ).rows
    const published = states.find((s) => s.status === "published")?.n ?? 0

    const everyone = latenessOf(received.map((r) => r.late))
    console.log(`[${plan.name}] ${firstByText.size}/${total} received; lateness from due time to the network's receipt ${formatLateness(everyone)}`)
    const groups = [...new Set(plan.workspaces.map((w) => w.group))].filter((g) => g !== "all")
    for (const g of groups) {
      const l = latenessOf(received.filter((r) => r.group === g).map((r) => r.late))
      console.log(`[${plan.name}]   ${g} workspaces: ${l.count} received, lateness ${formatLateness(l)}`)
    }
    const spanS = Math.max(0.001, (lastArrival - minute) / 1000)
    const spread = plan.posts.some((p) => p.offsetMs > 0)
    console.log(
      `[${plan.name}] ${(firstByText.size / spanS).toFixed(0)} posts/s from the first due time to the last receipt ` +
        `(${spread ? `due at ${(total / 60).toFixed(0)} a second` : "all due at once"}); duplicates ${duplicates} (must be 0)`
    )
    console.log(`[${plan.name}] item states: ${states.map((s) => `${s.status} ${s.n}`).join(", ")}`)
    console.log(
      `[${plan.name}] baseline (same run): the simulator took the ${total} posts straight from one client with ${inFlight} in flight ` +
        `in ${seconds(baselineMs)}: ${(total / (baselineMs / 1000)).toFixed(0)} posts/s`
    )
    const outcome: ShapeOutcome = {
      plan,
      goalLateness: plan.goal.group === "all" ? everyone : latenessOf(received.filter((r) => r.group === plan.goal.group).map((r) => r.late)),
      duplicates,
      received: firstByText.size,
      published
    }
    console.log(`[${plan.name}] ${verdict(outcome)}`)

    if (debug) {
      // lateness by when in the minute the posts were due: a slow start shows in the first buckets
      const buckets = new Map<number, Array<number>>()
      for (const r of received) {
        const bucket = Math.floor(plan.posts[r.i]!.offsetMs / 10_000)
        buckets.set(bucket, [...(buckets.get(bucket) ?? []), r.late])
      }
      for (const [bucket, late] of [...buckets.entries()].sort((a, b) => a[0] - b[0])) {
        late.sort((a, b) => a - b)
        console.log(
          `due ${bucket * 10}-${bucket * 10 + 10} s into the minute: ${late.length} posts, lateness p50 ${seconds(percentile(late, 50))}, p99 ${seconds(percentile(late, 99))}`
        )
      }
      // this shape's requests to the simulator (the baseline's included)
      const byPath = new Map<string, number>()
      for (const r of sim.requests.slice(requestsBefore)) {
        const key = `${r.network} ${r.method} ${r.path.replace(/bot[^/]+/, "bot…")}`
        byPath.set(key, (byPath.get(key) ?? 0) + 1)
      }
      console.log([...byPath.entries()])
      // by workspace size: the agency's (over 100 posts) and the others'
      const phases = await db.query(
        `WITH sizes AS (SELECT workspace_id, count(*) > 100 AS big FROM post_items GROUP BY workspace_id)
         SELECT s.big, percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM i.claimed_at - i.due_at)) AS claimed,
                percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - i.claimed_at)) AS started,
                percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.finished_at - a.started_at)) AS attempt,
                count(*) AS attempts
         FROM post_items i JOIN publish_attempts a ON a.item_id = i.id JOIN sizes s ON s.workspace_id = i.workspace_id
         GROUP BY s.big`
      )
      console.log("seconds p50/p99: due → claimed, claimed → attempt started, attempt (big: workspaces of over 100 posts)", phases.rows)
      for (const p of procs)
        console.log(
          p.label,
          p
            .output()
            .split("\n")
            .filter((l) => /WARN|ERROR/.test(l))
            .slice(0, 5)
            .join("\n")
        )
    }
    return outcome
  } finally {
    await group.stopAll()
    await db.end()
    await admin.dispose()
    await world.drop()
  }
}

const main = async () => {
  if (layout === "npm-start") {
    console.log("building (npm run build) …")
    execFileSync("npm", ["run", "-s", "build"], { stdio: "inherit" })
  }
  const sim = await startSimulator()
  try {
    const outcomes: Array<ShapeOutcome> = []
    for (const name of shapes) outcomes.push(await runShape(sim, shapePlan(name, { posts: postsArg, workspaces: workspacesArg, scale })))
    if (outcomes.length > 1) {
      console.log("")
      for (const o of outcomes) console.log(verdict(o))
    }
    // a duplicate or a lost post is a fault, whatever the timing (exit code 1); a missed lateness goal only says so
    const faulty = outcomes.filter((o) => !allOnce(o)).map((o) => o.plan.name)
    if (faulty.length > 0) throw new Error(`duplicates or posts not published: ${faulty.join(", ")}`)
  } finally {
    await sim.close()
  }
}

void runBench(main)
