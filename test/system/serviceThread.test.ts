import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { ManagedRuntime } from "effect"
import { client } from "../support/http.js"
import { closedPort } from "../support/ports.js"
import { processGroup, runToExit } from "../support/processes.js"
import { parsePrometheusText, type Family } from "../support/prometheusText.js"
import { createWorld, infrastructure, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Every service in one process (`npm start`, `node dist/services/main.js` with no service
 * named): the gateway on the main thread, the actor host, scheduler and webhook dispatcher on
 * a worker thread, the publisher on another (services/platform/serviceThread.ts). The process
 * behaves as one: one /metrics with every thread's figures, one start that fails as a whole.
 */
const TIMEOUT_MS = 90_000
let world: TestWorld
const processes = processGroup()

beforeAll(async () => {
  world = await createWorld("servicethread")
})
afterAll(async () => {
  await processes.stopAll()
  await world?.drop()
})

const family = (families: Map<string, Family>, name: string): Family => {
  const f = families.get(name)
  if (f === undefined) throw new Error(`no ${name} in /metrics`)
  return f
}

/** A workspace with a channel of the test network, and a post to it due now, through the gateway at `base`. */
const postNow = async (base: string, content: string) => {
  const admin = ManagedRuntime.make(infrastructure(world))
  try {
    const ops = await admin.runPromise(makeAdminOperations)
    const { apiKey, workspaceId } = await admin.runPromise(ops.createWorkspace({ name: "Threads", plan: "standard" }))
    const { channelId } = await admin.runPromise(ops.createChannel({ workspaceId, network: "test", name: "T", customerId: null, postingTimes: [] }))
    const created = await client(base, apiKey).post("/public/v1/posts", {
      type: "now",
      shortLink: false,
      tags: [],
      date: new Date().toISOString(),
      posts: [{ integration: { id: channelId }, value: [{ content, image: [] }], settings: { __type: "test" } }]
    })
    expect(created.status, JSON.stringify(created.json)).toBe(200)
  } finally {
    await admin.dispose()
  }
}

describe("every service in one process", () => {
  it(
    "runs the actors and the publisher on worker threads: a post is created and published, and the gateway's /metrics sums the threads",
    async () => {
      const all = await processes.start(world, [], {
        ready: /all services up/,
        env: { SEED_DEMO: "false" },
        label: "all",
        timeoutMs: 75_000
      })
      expect(all.output()).toMatch(/starting gateway \(and actors, scheduler, webhooks on a worker thread\) \(and publisher on a worker thread\)/)
      const base = `http://127.0.0.1:${all.output().match(/gateway listening on port (\d+)/)?.[1]}`

      await postNow(base, "Two threads")

      const scrape = async () => {
        const res = await fetch(`${base}/metrics`)
        expect(res.status).toBe(200)
        // the strict parser refuses a family written twice: both threads' registries come out as one
        return parsePrometheusText(await res.text())
      }
      // the publisher (worker thread) counted the attempt; the gateway (main thread) answers for it
      const published = await waitFor("the worker thread's publish attempt on the gateway's /metrics", async () => {
        const families = await scrape()
        const attempts = families.get("publish_attempts_total")
        return attempts?.samples.find((s) => s.labels["network"] === "test" && s.labels["outcome"] === "published")?.value
      })
      expect(published).toBe(1)
      const families = await scrape()
      expect(family(families, "actor_shards_owned").samples[0]?.value).toBeGreaterThan(0)
      const commands = family(families, "actor_command_duration_seconds")
      expect(commands.samples.some((s) => s.name.endsWith("_count") && s.labels["command"] === "CreatePosts" && s.value === 1)).toBe(true)
      expect(family(families, "http_requests_total").samples.some((s) => s.labels["route"] === "/public/v1/posts" && s.value === 1)).toBe(true)
      // process-wide figures come from the main thread alone (summed, they would count twice)
      expect(family(families, "process_cpu_seconds_total").samples).toHaveLength(1)
      // each thread's heap is its own: one sample each, the main thread's and the worker's
      for (const name of ["thread_heap_used_bytes", "thread_heap_size_bytes"]) {
        const heaps = family(families, name).samples
        expect(heaps.map((s) => s.labels["thread"]).sort()).toEqual([
          "main",
          expect.stringMatching(/^worker \d+$/),
          expect.stringMatching(/^worker \d+$/)
        ])
        for (const heap of heaps) expect(heap.value).toBeGreaterThan(1_000_000)
      }

      await all.kill("SIGTERM")
      expect(all.output()).toMatch(/handed its shards over/)
    },
    TIMEOUT_MS
  )

  it(
    "PUBLISHER_THREADS=2: two publisher threads share PUBLISH, a post is published once; a bad value refuses the start",
    async () => {
      const all = await processes.start(world, [], {
        ready: /all services up/,
        env: { SEED_DEMO: "false", PUBLISHER_THREADS: "2" },
        label: "two publishers",
        timeoutMs: 75_000
      })
      expect(all.output()).toMatch(/\(and publisher on a worker thread\) \(and publisher on a worker thread\)/)
      const base = `http://127.0.0.1:${all.output().match(/gateway listening on port (\d+)/)?.[1]}`
      const content = `Two publishers ${crypto.randomUUID()}`
      await postNow(base, content)
      const attempts = await waitFor("the post published", async () => {
        const rows = await withDb(
          world,
          async (c) =>
            (
              await c.query<{ status: string; outcome: string | null }>(
                "SELECT i.status, a.outcome FROM post_items i LEFT JOIN publish_attempts a ON a.item_id = i.id WHERE i.content = $1",
                [content]
              )
            ).rows
        )
        return rows.some((r) => r.status === "published") ? rows : undefined
      })
      expect(attempts).toEqual([{ status: "published", outcome: "published" }])
      await all.kill("SIGTERM")
      const refused = await runToExit(world, [], { env: { PUBLISHER_THREADS: "0", SEED_DEMO: "false" } })
      expect(refused.code).toBe(1)
      expect(refused.output).toMatch(/^Cannot start: PUBLISHER_THREADS must be a whole number from 1 to 16\.$/m)
    },
    TIMEOUT_MS
  )

  it(
    "a worker thread that cannot start stops the process: one line says why, exit 1",
    async () => {
      // the actor host needs Redis; the worker thread starts before the gateway and says so
      const redisUrl = `redis://127.0.0.1:${await closedPort()}`
      const run = await runToExit(world, [], { env: { REDIS_URL: redisUrl, SEED_DEMO: "false" } })
      expect(run.code, run.output).toBe(1)
      expect(run.output.split("\n").filter((line) => line.startsWith("Cannot start:"))).toEqual([
        expect.stringContaining(`Redis is not reachable at ${redisUrl}`)
      ])
      expect(run.output).not.toMatch(/gateway listening/)
    },
    TIMEOUT_MS
  )
})
