import { Effect } from "effect"
import { AckPolicy, connect, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { names } from "../../protocol/names.js"
import { Nats } from "../../services/platform/nats.js"
import { claimDueItems, enqueueUnacknowledgedJobs, publishMessageId, requeueLostJobs } from "../../services/scheduler/dueItems.js"
import { DueItemsRepo } from "../../services/scheduler/dueItemsRepo.js"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created } from "../support/answers.js"

/**
 * The scheduler's publish jobs (docs/architecture.md, "Scheduler"): the job of each claim is written in the
 * claim transaction and repaired from Postgres, never guessed from the clock. No publisher
 * runs here, so every job stays on PUBLISH where it can be counted; the scheduler's steps
 * are run by hand.
 */

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection

beforeAll(async () => {
  world = await createWorld("publishjobs")
  sys = await startServices(world, ["gateway", "actors"])
  nc = await connect({ servers: world.natsUrl })
})
afterAll(async () => {
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

/** Runs a scheduler step with the scheduler's store, as SchedulerLive does. */
const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  sys.runtime.runPromise(Effect.provide(effect, DueItemsRepo.Live) as Effect.Effect<A, E, never>)
const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

/** NATS whose JetStream publish fails, as when the server is down at the moment of the claim. */
const publishFails = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Nats, (nats) =>
    Effect.provideService(effect, Nats, {
      ...nats,
      jetstream: Object.create(nats.jetstream, { publish: { value: () => Promise.reject(new Error("JetStream is down")) } })
    })
  )

const duePost = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Jobs", customerId: null, postingTimes: [] })
  const res = await client(sys.url, apiKey).post("/public/v1/posts", {
    type: "now",
    posts: [{ integration: { id: channelId }, value: [{ content: `Due ${crypto.randomUUID()}` }] }]
  })
  expect(res.status).toBe(200)
  const [item] = await q<{ id: string }>("SELECT i.id FROM post_items i WHERE i.post_id = $1", [created(res).postId])
  return { workspaceId, channelId, itemId: item!.id }
}

/** The PUBLISH messages of a channel, with their message ids. */
const messagesFor = async (channelId: string) => {
  const jsm = await nc.jetstreamManager()
  const n = names(world.namespace)
  const info = await jsm.streams.info(n.publishStream, { subjects_filter: n.publishSubject(channelId) })
  const count = info.state.subjects?.[n.publishSubject(channelId)] ?? 0
  const ids: Array<{ id: string | undefined; seq: number }> = []
  for (let seq = info.state.first_seq; count > 0 && seq <= info.state.last_seq; seq++) {
    const stored = await jsm.streams.getMessage(n.publishStream, { seq }).catch(() => null)
    if (stored !== null && stored.subject === n.publishSubject(channelId)) ids.push({ id: stored.header?.get("Nats-Msg-Id"), seq })
  }
  return ids
}
const jobsOf = (itemId: string) =>
  q<{ claim: number; enqueued: boolean }>("SELECT claim, enqueued_at IS NOT NULL AS enqueued FROM publish_jobs WHERE item_id = $1 ORDER BY claim", [
    itemId
  ])

describe("a claim whose JetStream publish failed", () => {
  it("stays claimed with its job not enqueued, and the sweeper enqueues it, once", async () => {
    const due = await duePost()
    await run(publishFails(claimDueItems()))
    expect((await q("SELECT status, attempts FROM post_items WHERE id = $1", [due.itemId]))[0]).toEqual({ status: "publishing", attempts: 1 })
    expect(await jobsOf(due.itemId)).toEqual([{ claim: 1, enqueued: false }])
    expect(await messagesFor(due.channelId)).toEqual([])

    await run(enqueueUnacknowledgedJobs({ graceMs: 0 }))
    expect(await jobsOf(due.itemId)).toEqual([{ claim: 1, enqueued: true }])
    expect((await messagesFor(due.channelId)).map((m) => m.id)).toEqual([publishMessageId({ itemId: due.itemId, claim: 1 })])

    // nothing more to do: neither step enqueues it again
    await run(enqueueUnacknowledgedJobs({ graceMs: 0 }))
    await run(claimDueItems())
    await run(requeueLostJobs({ minAgeMs: 0 }))
    expect(await messagesFor(due.channelId)).toHaveLength(1)
    expect(await jobsOf(due.itemId)).toEqual([{ claim: 1, enqueued: true }])
  })
})

describe("one attempt, one job", () => {
  it("claims and sweeps running at once enqueue an item once for its claim", async () => {
    const due = await duePost()
    await Promise.all([
      run(claimDueItems()),
      run(claimDueItems()),
      run(claimDueItems()),
      run(enqueueUnacknowledgedJobs({ graceMs: 0 })),
      run(enqueueUnacknowledgedJobs({ graceMs: 0 }))
    ])
    await run(enqueueUnacknowledgedJobs({ graceMs: 0 }))
    expect((await q("SELECT attempts FROM post_items WHERE id = $1", [due.itemId]))[0]).toEqual({ attempts: 1 })
    expect(await jobsOf(due.itemId)).toEqual([{ claim: 1, enqueued: true }])
    expect((await messagesFor(due.channelId)).map((m) => m.id)).toEqual([publishMessageId({ itemId: due.itemId, claim: 1 })])
  })
})

describe("a job whose message left the stream without settling its item", () => {
  it("is claimed again as a new job (NATS lost an acknowledged message)", async () => {
    const due = await duePost()
    await run(claimDueItems())
    const [message] = await messagesFor(due.channelId)
    expect(message?.id).toBe(publishMessageId({ itemId: due.itemId, claim: 1 }))
    // while the message is there, the job is alive
    await run(requeueLostJobs({ minAgeMs: 0 }))
    expect(await jobsOf(due.itemId)).toHaveLength(1)

    await (await nc.jetstreamManager()).streams.deleteMessage(names(world.namespace).publishStream, message!.seq)
    await run(requeueLostJobs({ minAgeMs: 0 }))
    expect(await jobsOf(due.itemId)).toEqual([
      { claim: 1, enqueued: true },
      { claim: 2, enqueued: true }
    ])
    expect((await messagesFor(due.channelId)).map((m) => m.id)).toEqual([publishMessageId({ itemId: due.itemId, claim: 2 })])
    expect((await q("SELECT status, attempts FROM post_items WHERE id = $1", [due.itemId]))[0]).toEqual({ status: "publishing", attempts: 2 })
  })

  it("delivered and then never again (a consumer that forgot it): claimed again, the old message deleted; one not yet delivered stays", async () => {
    const n = names(world.namespace)
    const jsm = await nc.jetstreamManager()
    // the earlier tests' messages are not this test's: the consumer's first message is ours
    await jsm.streams.purge(n.publishStream)
    const delivered = await duePost()
    await run(claimDueItems())
    const [old] = await messagesFor(delivered.channelId)
    const waiting = await duePost()
    await run(claimDueItems())
    // the publisher's consumer: the first message is delivered, then held back far
    // longer than an ack wait (as a consumer that lost track of it would hold it); the second
    // message, after it in the stream, is not delivered
    await jsm.consumers.add(n.publishStream, {
      durable_name: n.publisherConsumer,
      ack_policy: AckPolicy.Explicit,
      ack_wait: 30_000_000_000
    })
    try {
      const consumer = await (await nc.jetstream()).consumers.get(n.publishStream, n.publisherConsumer)
      const msg = await consumer.next({ expires: 5_000 })
      expect(msg?.headers?.get("Nats-Msg-Id")).toBe(publishMessageId({ itemId: delivered.itemId, claim: 1 }))
      msg?.nak(600_000)

      // not yet past an ack wait and the publisher's longest delay: left alone
      await run(requeueLostJobs({ minAgeMs: 0 }))
      expect(await jobsOf(delivered.itemId)).toHaveLength(1)
      // past it, but its channel paused by the network (Retry-After): it waits in JetStream, left alone
      await q("UPDATE channels SET publish_paused_until = now() + interval '1 hour' WHERE id = $1", [delivered.channelId])
      await run(requeueLostJobs({ minAgeMs: 0, forgottenAfterMs: 0 }))
      expect(await jobsOf(delivered.itemId)).toHaveLength(1)
      await q("UPDATE channels SET publish_paused_until = NULL WHERE id = $1", [delivered.channelId])
      // past it: claimed again, the new job on the stream, the forgotten message gone
      await run(requeueLostJobs({ minAgeMs: 0, forgottenAfterMs: 0 }))
      expect(await jobsOf(delivered.itemId)).toEqual([
        { claim: 1, enqueued: true },
        { claim: 2, enqueued: true }
      ])
      expect((await messagesFor(delivered.channelId)).map((m) => m.id)).toEqual([publishMessageId({ itemId: delivered.itemId, claim: 2 })])
      await expect(jsm.streams.getMessage(n.publishStream, { seq: old!.seq })).rejects.toThrow()
      // the second message was never delivered (a backlog, not a loss): it keeps its place
      expect(await jobsOf(waiting.itemId)).toEqual([{ claim: 1, enqueued: true }])
      expect((await messagesFor(waiting.channelId)).map((m) => m.id)).toEqual([publishMessageId({ itemId: waiting.itemId, claim: 1 })])
    } finally {
      await jsm.consumers.delete(n.publishStream, n.publisherConsumer)
    }
  })

  it("an item no longer publishing is not claimed again", async () => {
    const due = await duePost()
    await run(claimDueItems())
    const [message] = await messagesFor(due.channelId)
    // the publisher settled it, then acknowledged the message
    await q("UPDATE post_items SET status = 'published' WHERE id = $1", [due.itemId])
    await (await nc.jetstreamManager()).streams.deleteMessage(names(world.namespace).publishStream, message!.seq)
    await run(requeueLostJobs({ minAgeMs: 0 }))
    expect(await jobsOf(due.itemId)).toEqual([{ claim: 1, enqueued: true }])
    expect(await messagesFor(due.channelId)).toEqual([])
  })
})

describe("billing holds (domain/billing.ts)", () => {
  it("past due within the grace days: claimed; past the grace: held; paid again: released and claimed", async () => {
    const inGrace = await duePost()
    const overGrace = await duePost()
    await q("UPDATE workspaces SET billing_state = 'past_due', past_due_since = now() - interval '6 days' WHERE id = $1", [inGrace.workspaceId])
    await q("UPDATE workspaces SET billing_state = 'past_due', past_due_since = now() - interval '8 days' WHERE id = $1", [overGrace.workspaceId])
    await run(claimDueItems())
    const state = async (itemId: string) => (await q("SELECT status, held FROM post_items WHERE id = $1", [itemId]))[0]
    expect(await state(inGrace.itemId)).toEqual({ status: "publishing", held: null })
    expect(await state(overGrace.itemId)).toEqual({ status: "queued", held: "billing" })

    await q("UPDATE workspaces SET billing_state = 'active', past_due_since = NULL WHERE id = $1", [overGrace.workspaceId])
    await run(claimDueItems())
    expect(await state(overGrace.itemId)).toEqual({ status: "publishing", held: null })
  })

  it("a tick naming more workspaces than a statement may have parameters (65,535) holds, releases and claims", async () => {
    const due = await duePost()
    const many = [...Array.from({ length: 70_000 }, () => crypto.randomUUID()), due.workspaceId]
    await run(
      Effect.flatMap(DueItemsRepo, (repo) =>
        Effect.gen(function* () {
          yield* repo.holdForBilling(many.slice(0, -1))
          yield* repo.releaseBillingHolds(many)
          const claimed = yield* repo.claimDue(500, 0, many)
          expect(claimed.map((c) => c.itemId)).toContain(due.itemId)
        })
      )
    )
  })

  it("an item that fell due after the billing look is left to the next tick, not claimed unchecked", async () => {
    const due = await duePost()
    // the claim's own statement, given the workspaces the look found: this one was not among them
    const other = await sys.admin.createWorkspace()
    const claimed = await run(Effect.flatMap(DueItemsRepo, (repo) => repo.claimDue(500, 0, [other.workspaceId])))
    expect(claimed.filter((c) => c.itemId === due.itemId)).toEqual([])
    expect((await q("SELECT status FROM post_items WHERE id = $1", [due.itemId]))[0]).toEqual({ status: "queued" })
    await run(claimDueItems())
    expect((await q("SELECT status FROM post_items WHERE id = $1", [due.itemId]))[0]).toEqual({ status: "publishing" })
  })
})
