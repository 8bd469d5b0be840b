/**
 * Benchmark: short-link redirects (GET /l/<code>: 302 and a click counted in Redis) on a
 * gateway running as its own process, next to GET /healthz on the same gateway in the same
 * run (HTTP alone): the difference is what resolving and counting costs. Also checks that
 * every redirect was counted once the gateway flushed.
 *
 *   npm run bench -- short-links       (BENCH_REQUESTS, BENCH_CONCURRENCY)
 */
import pg from "pg"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, startServices } from "../support/system.js"
import { waitFor } from "../support/wait.js"
import { created as createdPost } from "../support/answers.js"

const requests = Number(process.env["BENCH_REQUESTS"] ?? 3000)
const concurrency = Number(process.env["BENCH_CONCURRENCY"] ?? 16)
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

const run = async (task: () => Promise<void>) => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) {
        const t = performance.now()
        await task()
        latencies.push(performance.now() - t)
      }
    })
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return `${(requests / seconds).toFixed(0)} req/s, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`
}

const world = await createWorld("benchlinks", urlsFromEnv())
const workers = await startServices(world, ["actors", "scheduler", "publisher"])
const gateways = processGroup()
try {
  const ws = await workers.admin.createWorkspace("Bench", "team")
  const { channelId } = await workers.admin.createChannel({
    workspaceId: ws.workspaceId,
    network: "test",
    name: "Bench",
    customerId: null,
    postingTimes: []
  })
  const created = await client(workers.url, ws.apiKey).post("/public/v1/posts", {
    type: "now",
    shortLink: true,
    content: "Bench https://example.com/b",
    channels: [channelId]
  })
  const postId = createdPost(created).postId
  const db = new pg.Client({ connectionString: world.databaseUrl })
  await db.connect()
  const content: string = await waitFor(
    "published",
    async () => (await db.query("SELECT content FROM test_network_posts WHERE channel_id = $1", [channelId])).rows[0]?.content
  )
  const code = content.match(/\/l\/([A-Za-z0-9_-]{12})/)?.[1] ?? ""
  await workers.stop()

  const gateway = await gateways.start(world, ["gateway"], { label: "gateway" })
  const base = `http://127.0.0.1:${gateway.id.replace("port ", "")}`
  const healthz = async () => void (await (await fetch(`${base}/healthz`)).arrayBuffer())
  const redirect = async () => {
    const res = await fetch(`${base}/l/${code}`, { redirect: "manual" })
    if (res.status !== 302) throw new Error(`redirect answered ${res.status}`)
    await res.arrayBuffer()
  }
  for (let i = 0; i < 200; i++) await healthz()
  for (let i = 0; i < 200; i++) await redirect()
  console.log(`${requests} requests, ${concurrency} in flight, gateway as a process`)
  console.log(`baseline GET /healthz:  ${await run(healthz)}`)
  console.log(`GET /l/<code> (302):    ${await run(redirect)}`)
  await gateway.kill("SIGTERM")
  const counted = (await db.query("SELECT clicks FROM short_links WHERE post_id = $1", [postId])).rows[0]?.clicks
  console.log(`clicks counted after the gateway stopped: ${counted} of ${requests + 200}`)
  await db.end()
} finally {
  await gateways.stopAll()
  await world.drop()
}
process.exit(0)
