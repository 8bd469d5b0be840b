import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import type { Answer } from "../support/http.js"
import { privatePgbouncer } from "../support/privatePgbouncer.js"
import { everyItemSettles, separateServices, testNetworkCopies, type SeparateServices } from "../support/publishingProcesses.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, type TestWorld } from "../support/system.js"
import {
  expectEachListedOnce,
  expectOutboxOutcomes,
  expectRetryable,
  notExactlyOnePost,
  postStream,
  resendUnavailable,
  scheduleOnEachChannel,
  workspacesOnTwoNetworks
} from "../support/resentPosts.js"
import { sleep } from "../support/wait.js"

/**
 * The service behind PgBouncer in session mode (docs/operations.md, "PgBouncer"), with
 * gateway, actors, scheduler and publisher as separate processes, every connection of
 * every process through a private PgBouncer in front of the shared Postgres: the group
 * commit of POST /posts, the LISTEN of the outbox and the scheduler, the publisher's batches.
 * Under a steady stream of POST /posts the bouncer is killed and started again (every
 * client connection cut at once, as an upgrade of the bouncer or its failover would):
 * every answer is 200 or 503 with Retry-After, a 503'd request sent again with its
 * Idempotency-Key makes its post once, posts due after the restart go out once, on the
 * built-in test network and on a simulated Mastodon, and the outbox drains.
 */

let sim: Simulator
let bouncer: Awaited<ReturnType<typeof privatePgbouncer>>
let world: TestWorld
let services: SeparateServices

beforeAll(async () => {
  sim = await startSimulator()
  const servers = inject("servers")
  const target = new URL(servers.databaseUrl)
  bouncer = await privatePgbouncer({ host: target.hostname, port: Number(target.port || 5432) })
  world = await createWorld("pgbouncer", { ...servers, databaseUrl: bouncer.url(target.pathname.slice(1) || "postgres") })
  services = await separateServices(world, simulatorEnv(sim))
}, 180_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop().catch(() => undefined)
  await bouncer?.stop()
  await sim?.close()
}, 120_000)

describe("behind PgBouncer in session mode, the bouncer restarted under POST /posts, services as separate processes", () => {
  it("answers 200 or 503 with Retry-After; a resent 503 makes its post once; posts due after the restart go out once; the outbox drains", async () => {
    const workspaces = await workspacesOnTwoNetworks(services, sim, "Bouncer", 3)
    const run = crypto.randomUUID().slice(0, 8)

    // due after the restart (about 1.5 s into the stream): the scheduler and publisher find them through new connections
    const start = Date.now()
    const dueSent = await scheduleOnEachChannel(workspaces, "due after the bouncer's restart", run, (n) => new Date(start + 4_000 + n * 1_000))
    const due = dueSent.map((d) => d.content)
    const stream = postStream("bouncer", run, (n) => {
      const { api, channels } = workspaces[n % workspaces.length]!
      return { api, channelId: channels[Math.floor(n / workspaces.length) % 2]! }
    })
    const { sent } = stream
    await sleep(1_500)
    await bouncer.restart()
    await sleep(5_000)
    await stream.stop()

    expect((["gateway", "actors", "scheduler", "publisher"] as const).filter((p) => !services.current(p).running())).toEqual([])
    const first = sent.map((s) => s.answers[0]!)
    const statuses = first.map((a) => (a === "no answer" ? "no answer" : a.status))
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([])
    for (const a of first.filter((a): a is Answer => a !== "no answer" && a.status === 503)) expectRetryable(a)
    console.log(`${sent.length} requests, ${statuses.filter((s) => s === 503).length} answered 503 at first`)
    // requests after the restart are answered again
    expect(statuses.slice(-5)).toEqual([200, 200, 200, 200, 200])
    await resendUnavailable(sent)
    expect(sent.flatMap((s) => s.answers.map((a) => (a === "no answer" ? "no answer" : a.status))).filter((s) => s !== 200 && s !== 503)).toEqual([])

    const contents = sent.map((s) => s.content)
    expect(await notExactlyOnePost(world, sent)).toEqual([])
    await expectEachListedOnce(workspaces, sent, dueSent, run)

    const items = await everyItemSettles(
      world,
      workspaces.map((w) => w.workspaceId),
      120_000
    )
    const copiesOnTest = await testNetworkCopies(world, [...due, ...contents])
    const copiesOf = (content: string) => (copiesOnTest.get(content) ?? 0) + sim.postsOf("mastodon").filter((p) => p.text === content).length
    for (const content of due) {
      expect(items.find((i) => i.content === content)?.status, content).toBe("published")
      expect(copiesOf(content), content).toBe(1)
    }
    expect(contents.filter((c) => copiesOf(c) > 1)).toEqual([])
    expect(items.filter((i) => i.status === "error")).toEqual([])

    // the outbox carries on through the bouncer: every row is published, each settled post has its one outcome event
    await expectOutboxOutcomes(world, items)
  }, 240_000)
})
