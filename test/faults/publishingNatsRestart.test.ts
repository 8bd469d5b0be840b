import { connect } from "nats"
import { inject } from "vitest"
import { names } from "../../protocol/names.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { everyItemSettles, privateNats, separateServices, testNetworkCopies, type SeparateServices } from "../support/publishingProcesses.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created } from "../support/answers.js"

/**
 * NATS restarted under the running service (issue #11: fault tests). Gateway, actors,
 * scheduler and publisher run as separate processes on a PRIVATE nats-server (its own port
 * and store directory; the shared one is never touched), which is killed with SIGKILL while
 * a job is in flight and started again on the same store. The job that was in flight is
 * delivered again (JetStream kept it: it was never acknowledged), posts made before, during
 * and after the outage all go out, each exactly once, none left publishing, and the
 * publisher's consumer ends with nothing pending.
 */

let nats: Awaited<ReturnType<typeof privateNats>>
let sim: Simulator
let world: TestWorld
let services: SeparateServices

beforeAll(async () => {
  nats = await privateNats()
  sim = await startSimulator()
  world = await createWorld("pubnats", { ...inject("servers"), natsUrl: nats.url })
  services = await separateServices(world, { ...simulatorEnv(sim), PUBLISHER_ACK_WAIT_MS: "2000", PUBLISH_TIMEOUT_MS: "20000" })
}, 180_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop().catch(() => undefined)
  await nats?.stop()
  await sim?.close()
})

const seed = (network: string) => seedAccount(sim, network)

describe("NATS killed and restarted while a publish job is in flight", () => {
  it("the job is delivered again and settles its item; every post before and after goes out exactly once", async () => {
    const ws = await services.createWorkspace()
    const test = (
      await services.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Through the outage", customerId: null, postingTimes: [] })
    ).channelId
    const mastodon = (
      await services.createChannel({
        workspaceId: ws.workspaceId,
        network: "mastodon",
        name: "Mastodon",
        customerId: null,
        postingTimes: [],
        credentials: await seed("mastodon")
      })
    ).channelId
    const post = async (channelId: string, content: string, settings: Record<string, unknown> = {}) => {
      const res = await waitFor(
        "POST /posts did not go through",
        async () => {
          const r = await ws.api.post("/public/v1/posts", {
            type: "now",
            posts: [{ integration: { id: channelId }, value: [{ content }], settings }]
          })
          return r.status === 200 ? r : undefined
        },
        60_000
      )
      return created(res).group
    }
    // a job in flight when NATS dies: the network answers only after the restart
    const inFlight = `in flight ${crypto.randomUUID().slice(0, 8)}`
    await post(test, inFlight, { outcome: "slow", slowMs: 3000 })
    const before = Array.from({ length: 4 }, (_, n) => `before ${n} ${crypto.randomUUID().slice(0, 8)}`)
    for (const text of before) await post(mastodon, text)
    await waitFor("no attempt in flight", () =>
      withDb(world, async (c) =>
        (
          await c.query("SELECT 1 FROM publish_attempts a JOIN post_items i ON i.id = a.item_id WHERE i.content = $1 AND a.outcome IS NULL", [
            inFlight
          ])
        ).rows.length > 0
          ? true
          : undefined
      )
    )
    await nats.restart()
    const after = Array.from({ length: 4 }, (_, n) => `after ${n} ${crypto.randomUUID().slice(0, 8)}`)
    for (const [n, text] of after.entries()) await post(n % 2 === 0 ? test : mastodon, text)

    const items = new Map((await everyItemSettles(world, [ws.workspaceId], 120_000)).map((r) => [r.content, r]))
    for (const text of [inFlight, ...before, ...after]) expect(items.get(text)?.status, text).toBe("published")
    const onTest = await testNetworkCopies(world, [inFlight, ...after])
    expect(onTest.get(inFlight)).toBe(1)
    for (const [n, text] of after.entries())
      expect(n % 2 === 0 ? onTest.get(text) : sim.postsOf("mastodon").filter((p) => p.text === text).length).toBe(1)
    for (const text of before) expect(sim.postsOf("mastodon").filter((p) => p.text === text)).toHaveLength(1)
    // every job, the one whose acknowledgement went down with the server included, was
    // delivered and settled: the publisher's consumer has nothing left to deliver or to be
    // acknowledged (a killed 2.9 server may keep a few acknowledged messages of a work queue
    // on disk below the ack floor; they are never delivered again, so they are not counted)
    const nc = await connect({ servers: nats.url })
    try {
      const jsm = await nc.jetstreamManager()
      const n = names(world.namespace)
      await waitFor(
        "the publisher's consumer still has jobs",
        async () => {
          const info = await jsm.consumers.info(n.publishStream, n.publisherConsumer)
          return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined
        },
        60_000
      )
    } finally {
      await nc.close()
    }
  }, 240_000)
})
