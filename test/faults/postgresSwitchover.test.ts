import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import type { Answer } from "../support/http.js"
import { privatePostgres, standbyOf, type PrivateCluster } from "../support/privatePostgres.js"
import { everyItemSettles, separateServices, testNetworkCopies, type SeparateServices } from "../support/publishingProcesses.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { switchableProxy } from "../support/switchableProxy.js"
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
 * A switch-over of the primary to a promoted standby under a steady stream of POST /posts
 * (issue 37), with gateway, actors, scheduler and publisher as separate processes. The
 * services reach Postgres through one stable address, a TCP proxy (as a virtual IP,
 * PgBouncer target or DNS name would give them) in front of a PRIVATE primary and its hot
 * standby (pg_basebackup). The switch-over: the primary stops (`pg_ctl stop -m fast`), the
 * address still leads to it for a while (connections refused), then moves to the standby
 * before it is promoted (reads answer, writes meet 25006 read_only_sql_transaction), then
 * the standby is promoted. Every answer meanwhile is 200 or 503 with Retry-After, never a
 * 500 and never a hang; each 503'd request sent again with its Idempotency-Key makes its
 * post, every request ends with exactly one post (GET /posts lists them), posts due
 * during the switch-over go out after it, each once, on the built-in test network and on a
 * simulated Mastodon, and the outbox drains: every settled post has its one outcome event.
 * No process is restarted: each one reconnects by itself.
 */

let sim: Simulator
let primary: PrivateCluster
let standby: PrivateCluster
let proxy: Awaited<ReturnType<typeof switchableProxy>>
let world: TestWorld
let services: SeparateServices

beforeAll(async () => {
  sim = await startSimulator()
  primary = await privatePostgres()
  proxy = await switchableProxy(primary.port)
  world = await createWorld("pgswitch", { ...inject("servers"), databaseUrl: proxy.url })
  standby = await standbyOf(primary)
  services = await separateServices(world, simulatorEnv(sim))
}, 180_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop().catch(() => undefined)
  await proxy?.close()
  await standby?.remove()
  await primary?.remove()
  await sim?.close()
}, 120_000)

describe("the primary switched over to a promoted standby under POST /posts, services as separate processes", () => {
  it("answers 200 or 503 with Retry-After, never 500 or a hang; a resent 503 makes its post once; due posts go out once; the outbox drains", async () => {
    // four workspaces share the stream: each stays under the 90-an-hour window of POST /posts
    const workspaces = await workspacesOnTwoNetworks(services, sim, "Switch-over", 4)
    const run = crypto.randomUUID().slice(0, 8)

    // due at moments of the switch-over (it starts about 1.5 s into the stream and lasts about 6 s)
    const start = Date.now()
    const dueSent = await scheduleOnEachChannel(workspaces, "due in the switch-over", run, (n) => new Date(start + 3_000 + n * 1_500))

    const due = dueSent.map((d) => d.content)
    const stream = postStream("switch", run, (n) => {
      const { api, channels } = workspaces[n % workspaces.length]!
      return { api, channelId: channels[Math.floor(n / workspaces.length) % 2]! }
    })
    const { sent } = stream

    await sleep(1_500)
    await primary.stop()
    // the address still leads to the stopped primary: every connection is refused
    await sleep(2_000)
    // the address moves before the standby is promoted: reads answer, writes meet 25006
    proxy.switchTo(standby.port)
    await sleep(3_000)
    const readOnly = await workspaces[0]!.api.get("/public/v1/posts")
    await standby.promote()
    // the stream goes on a while after the promotion: pools and listeners settle on the new primary
    await sleep(5_000)
    await stream.stop()

    // every process lived through it (none died and was replaced)
    expect((["gateway", "actors", "scheduler", "publisher"] as const).filter((p) => !services.current(p).running())).toEqual([])

    const first = sent.map((s) => s.answers[0]!)
    const statuses = first.map((a) => (a === "no answer" ? "no answer" : a.status))
    // none hung, none was a 500: each is a success or a retryable 503
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([])
    const unavailable = first.filter((a): a is Answer => a !== "no answer" && a.status === 503)
    // the switch-over was seen (the test would prove nothing otherwise)
    expect(unavailable.length).toBeGreaterThan(0)
    for (const a of unavailable) expectRetryable(a)
    // writes did reach the standby before its promotion, and it refused them as read-only (25006)
    expect(standby.log()).toMatch(/ERROR: +cannot execute \w+ in a read-only transaction/)
    // a read on the standby before its promotion: answered, or a retryable 503
    expect([200, 503]).toContain(readOnly.status)
    if (readOnly.status === 503) expectRetryable(readOnly)
    // requests after the promotion are answered again
    expect(statuses.slice(-5)).toEqual([200, 200, 200, 200, 200])

    // every 503'd request sent again with its key: it makes its post (or answers the one it made)
    await resendUnavailable(sent)
    // and the answers to the resends were 200 or 503 too
    expect(sent.flatMap((s) => s.answers.map((a) => (a === "no answer" ? "no answer" : a.status))).filter((s) => s !== 200 && s !== 503)).toEqual([])

    const contents = sent.map((s) => s.content)
    // exactly one post for every request of the stream, none twice, none lost
    expect(await notExactlyOnePost(world, sent)).toEqual([])
    // GET /posts lists the same: each workspace's stream and due posts, once each
    await expectEachListedOnce(workspaces, sent, dueSent, run)

    // everything goes out: due posts once, after the switch-over; nothing twice
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
    // each stream post is out once (published) or, where the outcome was lost, at most once (unconfirmed)
    expect(contents.filter((c) => copiesOf(c) > 1)).toEqual([])
    expect(items.filter((i) => i.status === "published" && copiesOf(i.content) !== 1)).toEqual([])
    expect(items.filter((i) => i.status === "error")).toEqual([])

    // the outbox carries on: every row is published (the sweeper takes what the commit could not), and
    // each settled post has its one outcome event (post.published or post.unconfirmed), none twice
    await expectOutboxOutcomes(world, items)
  }, 240_000)
})
