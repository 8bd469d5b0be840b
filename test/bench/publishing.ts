/**
 * Benchmark: N posts across W workspaces fall due in the same minute, spread evenly over it
 * (post i at i × 60 s / N past the minute; `BENCH_SAME_INSTANT=1` makes them all due at its
 * first instant instead, a burst no 2-core machine clears in 2 s) and go out through the real scheduler and publisher replicas, each its own
 * process, to the network simulator (Telegram's API, which has no duplicate guard of its
 * own, so every copy sent would be seen). Prints lateness from the due time to the
 * network's receipt (p50/p99/max), posts per second and duplicates (must be 0), next to a
 * baseline measured in the same run: the same number of posts sent straight to the
 * simulator from this process with as many calls in flight as the publishers may make.
 *
 *   npm run bench -- publishing [posts=10000] [workspaces=100] [publishers=2]
 *   (PUBLISHER_CONCURRENCY: jobs per publisher process, default 32; BENCH_DEBUG=1: where the time went;
 *   BENCH_SAME_INSTANT=1: every post due at the minute's first instant)
 *
 * The posts are written straight to Postgres (as POST /posts would leave them, queued):
 * the API's 90 posts an hour per workspace would otherwise take hours to fill the minute.
 */
import { ManagedRuntime } from "effect"
import pg from "pg"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { processGroup } from "../support/processes.js"
import { urlsFromEnv } from "../support/servers.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, infrastructure } from "../support/system.js"

const posts = Number(process.argv[3] ?? 10_000)
const workspaces = Number(process.argv[4] ?? 100)
const publishers = Number(process.argv[5] ?? 2)
const PUBLISHER_CONCURRENCY = Number(process.env["PUBLISHER_CONCURRENCY"] ?? 32)
const TIMEOUT_MS = Number(process.env["BENCH_TIMEOUT_MS"] ?? 15 * 60_000)

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const main = async () => {
  const sim = await startSimulator()
  const env = {
    ...simulatorEnv(sim),
    PUBLISHER_CONCURRENCY: String(PUBLISHER_CONCURRENCY),
    // the simulator has no per-chat limit; Telegram's real 20 a minute would only measure itself
    PUBLISH_LIMITS: JSON.stringify({ telegram: { channelPerMinute: 0 } }),
    SEED_DEMO: "false"
  }
  const world = await createWorld("benchpublishing", urlsFromEnv())
  const admin = ManagedRuntime.make(infrastructure(world, env))
  const ops = await admin.runPromise(makeAdminOperations)
  const group = processGroup()
  const db = new pg.Client({ connectionString: world.databaseUrl })
  await db.connect()
  try {
    // one Telegram chat per workspace, connected through the simulator
    const channels = await Promise.all(
      Array.from({ length: workspaces }, async (_, i) => {
        const ws = await admin.runPromise(ops.createWorkspace({ name: `Bench ${i}`, plan: "ultimate" }))
        const credentials = await seedAccount(sim, "telegram", { title: `Bench ${i}` })
        const { channelId } = await admin.runPromise(
          ops.createChannel({ workspaceId: ws.workspaceId, network: "telegram", name: `Bench ${i}`, customerId: null, postingTimes: [], credentials })
        )
        return { workspaceId: ws.workspaceId, channelId, credentials }
      })
    )

    // baseline: the simulator taking the same number of posts straight from one client
    const inFlight = PUBLISHER_CONCURRENCY * publishers
    let next = 0
    const baselineStart = performance.now()
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next++; i < posts; i = next++) {
          const c = channels[i % channels.length]!.credentials
          await fetch(`${sim.baseOf("telegram")}/bot${String(c["botToken"])}/sendMessage`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ chat_id: c["chatId"], text: `baseline ${i}` })
          })
        }
      })
    )
    const baselineMs = performance.now() - baselineStart

    // the services, as deployed: one scheduler, publisher replicas, each its own process
    const procs = await Promise.all([
      group.start(world, ["scheduler"], { env, ready: /scheduler started/, timeoutMs: 120_000 }),
      ...Array.from({ length: publishers }, (_, n) =>
        group.start(world, ["publisher"], { env, ready: /publisher started/, label: `publisher ${n + 1}`, timeoutMs: 120_000 })
      )
    ])

    // every post due in the next minute at least 20 s away: spread evenly over it, or all at its start
    const minute = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000
    const sameInstant = process.env["BENCH_SAME_INSTANT"] === "1"
    const dueOf = (i: number) => new Date(sameInstant ? minute : minute + Math.floor((i * 60_000) / posts))
    const text = (i: number) => `bench post ${i}`
    for (let from = 0; from < posts; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, posts - from) }, (_, k) => {
        const i = from + k
        const c = channels[i % channels.length]!
        return {
          group: crypto.randomUUID(),
          post: crypto.randomUUID(),
          item: crypto.randomUUID(),
          workspace: c.workspaceId,
          channel: c.channelId,
          text: text(i),
          due: dueOf(i).toISOString()
        }
      })
      const col = <K extends keyof (typeof batch)[number]>(k: K) => batch.map((b) => b[k])
      await db.query("BEGIN")
      await db.query(
        `INSERT INTO post_groups (id, workspace_id, status, publish_at, creation_method, share_token)
         SELECT g, w, 'scheduled', d, 'api', g::text FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) AS t(g, w, d)`,
        [col("group"), col("workspace"), col("due")]
      )
      await db.query(
        `INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, publish_date)
         SELECT p, g, w, c, 1, 'queued', d FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[]) AS t(p, g, w, c, d)`,
        [col("post"), col("group"), col("workspace"), col("channel"), col("due")]
      )
      await db.query(
        `INSERT INTO post_items (id, post_id, workspace_id, position, content, status, due_at)
         SELECT i, p, w, 0, x, 'queued', d FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[]) AS t(i, p, w, x, d)`,
        [col("item"), col("post"), col("workspace"), col("text"), col("due")]
      )
      await db.query("COMMIT")
    }
    console.log(
      `${posts} posts across ${workspaces} workspaces due ${sameInstant ? "at" : "spread over the minute from"} ${new Date(minute).toISOString()}; ${publishers} publisher processes`
    )

    const received = () => sim.postsOf("telegram").filter((p) => p.text.startsWith("bench post "))
    const deadline = Date.now() + TIMEOUT_MS
    for (;;) {
      const settled = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM post_items WHERE status IN ('published','error','unconfirmed')"))
        .rows[0]!.n
      if (settled >= posts || Date.now() > deadline) break
      await sleep(500)
    }
    const arrivals = received()
    const firstByText = new Map<string, number>()
    for (const p of arrivals) if (!firstByText.has(p.text)) firstByText.set(p.text, p.at.getTime())
    const dueByText = new Map(Array.from({ length: posts }, (_, i) => [text(i), dueOf(i).getTime()]))
    const lateness = [...firstByText.entries()].map(([t, at]) => at - (dueByText.get(t) ?? minute)).sort((a, b) => a - b)
    const lastArrival = Math.max(...firstByText.values())
    const duplicates = arrivals.length - firstByText.size
    const states = (
      await db.query<{ status: string; n: number }>("SELECT status, count(*)::int AS n FROM post_items GROUP BY status ORDER BY status")
    ).rows
    const lastMs = lateness[lateness.length - 1] ?? 0

    console.log(
      `publishing: ${firstByText.size}/${posts} received, lateness from due time to the network's receipt ` +
        `p50 ${seconds(percentile(lateness, 50))}, p99 ${seconds(percentile(lateness, 99))}, max ${seconds(lastMs)}`
    )
    const spanS = Math.max(0.001, (lastArrival - minute) / 1000)
    console.log(
      `publishing: ${(firstByText.size / spanS).toFixed(0)} posts/s from the first due time to the last receipt ` +
        `(${sameInstant ? "all due at once" : `due at ${(posts / 60).toFixed(0)} a second`}); duplicates ${duplicates} (must be 0)`
    )
    console.log(`item states: ${states.map((s) => `${s.status} ${s.n}`).join(", ")}`)
    console.log(
      `baseline (same run): the simulator took ${posts} posts straight from one client with ${inFlight} in flight in ${seconds(baselineMs)}: ${(posts / (baselineMs / 1000)).toFixed(0)} posts/s`
    )
    if (process.env["BENCH_DEBUG"] === "1") {
      // lateness by when in the minute the posts were due: a slow start shows in the first buckets
      const buckets = new Map<number, Array<number>>()
      for (const [t, at] of firstByText.entries()) {
        const due = dueByText.get(t) ?? minute
        const bucket = Math.floor((due - minute) / 10_000)
        buckets.set(bucket, [...(buckets.get(bucket) ?? []), at - due])
      }
      for (const [bucket, late] of [...buckets.entries()].sort((a, b) => a[0] - b[0])) {
        late.sort((a, b) => a - b)
        console.log(
          `due ${bucket * 10}-${bucket * 10 + 10} s into the minute: ${late.length} posts, lateness p50 ${seconds(percentile(late, 50))}, p99 ${seconds(percentile(late, 99))}`
        )
      }
      const byPath = new Map<string, number>()
      for (const r of sim.requests)
        byPath.set(
          `${r.network} ${r.method} ${r.path.replace(/bot[^/]+/, "bot…")}`,
          (byPath.get(`${r.network} ${r.method} ${r.path.replace(/bot[^/]+/, "bot…")}`) ?? 0) + 1
        )
      console.log([...byPath.entries()])
      const phases = await db.query(
        `SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM i.claimed_at - i.due_at)) AS claimed,
                percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - i.claimed_at)) AS started,
                percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.finished_at - a.started_at)) AS attempt,
                count(*) AS attempts
         FROM post_items i JOIN publish_attempts a ON a.item_id = i.id`
      )
      console.log("seconds p50/p99: due → claimed, claimed → attempt started, attempt", phases.rows[0])
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
    if (duplicates > 0) process.exitCode = 1
  } finally {
    await group.stopAll()
    await db.end()
    await admin.dispose()
    await world.drop()
    await sim.close()
  }
}

await main()
