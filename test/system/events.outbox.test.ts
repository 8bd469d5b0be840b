import type { SqlClient } from "@effect/sql"
import { Effect, Exit, Schema } from "effect"
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { notificationFor } from "../../domain/notifications.js"
import { EventMessageJson, type EventMessage, type ServiceEvent } from "../../protocol/events.js"
import { names } from "../../protocol/names.js"
import { Nats } from "../../services/platform/nats.js"
import * as Outbox from "../../services/platform/outbox.js"
import { claimDueItems } from "../../services/scheduler/dueItems.js"
import { DueItemsRepo } from "../../services/scheduler/dueItemsRepo.js"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created, wholePost } from "../support/answers.js"

/**
 * docs/architecture.md, "Outbox", and rule 2 of "Rules every part keeps": an event-producing change and its outbox rows commit
 * together; the rows go to JetStream EVENTS right after the commit (Nats-Msg-Id = row
 * id); a sweeper publishes what was left behind. No scheduler runs here until the
 * sweeper's own test, so every message before it was published after its commit.
 */

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection
let jsm: JetStreamManager

const decodeMessage = Schema.decodeUnknownSync(EventMessageJson)

interface OnStream {
  readonly msgId: string | undefined
  readonly subject: string
  readonly message: EventMessage
}

/** Every message on the world's EVENTS stream, decoded with protocol/events.ts. */
const eventsOnStream = async (): Promise<ReadonlyArray<OnStream>> => {
  const stream = names(world.namespace).eventsStream
  const info = await jsm.streams.info(stream)
  const found: Array<OnStream> = []
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq })
    found.push({ msgId: m.header.get("Nats-Msg-Id"), subject: m.subject, message: decodeMessage(m.string()) })
  }
  return found
}

const eventsOf = async (workspaceId: string) => (await eventsOnStream()).filter((e) => e.message.workspaceId === workspaceId)

const outboxRows = (workspaceId: string) =>
  withDb(
    world,
    async (c) =>
      (
        await c.query<{ id: string; event: string; publishedAt: Date | null }>(
          `SELECT id, event, published_at AS "publishedAt" FROM outbox WHERE workspace_id = $1 ORDER BY created_at`,
          [workspaceId]
        )
      ).rows
  )

/** Waits until `event` of the workspace is on EVENTS, then answers all of the workspace's messages. */
const waitForEvent = (workspaceId: string, event: string) =>
  waitFor(`${event} on EVENTS`, async () => {
    const all = await eventsOf(workspaceId)
    return all.some((e) => e.message.event === event) ? all : undefined
  })

const newWorkspace = async (network = "test", name = "Main channel") => {
  const ws = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId: ws.workspaceId, network, name, customerId: null, postingTimes: [] })
  return { ...ws, channelId, api: client(sys.url, ws.apiKey) }
}

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | Nats>) => sys.runtime.runPromiseExit(effect)
/** The scheduler's claim, with its store as SchedulerLive provides it. */
const claimDue = () => claimDueItems().pipe(Effect.provide(DueItemsRepo.Live))

const testEvent = (message: string): ServiceEvent => ({ event: "test", data: { message } })

beforeAll(async () => {
  world = await createWorld("events")
  // no scheduler: nothing sweeps, so what reaches EVENTS was published after its commit
  sys = await startServices(world, ["gateway", "actors", "publisher"])
  nc = await connect({ servers: world.natsUrl.split(",") })
  jsm = await nc.jetstreamManager()
})
afterAll(async () => {
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

describe("Events: published to EVENTS right after the commit", () => {
  it("a post sent for approval: exactly one approval.requested message, its data decodes, Nats-Msg-Id = the outbox row", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "review",
      date: new Date(Date.now() + 3600_000).toISOString(),
      content: "Check me",
      channels: [w.channelId]
    })
    expect(res.status).toBe(200)
    const messages = await waitForEvent(w.workspaceId, "approval.requested")
    expect(messages).toHaveLength(1)
    const [only] = messages
    expect(only?.message).toMatchObject({
      event: "approval.requested",
      data: {
        groupId: created(res).group,
        channelIds: [w.channelId],
        previewUrl: created(res).previewUrl,
        requestedBy: "API",
        approvalStatus: "requested"
      }
    })
    expect(only?.subject).toBe(`${world.namespace}.events.approval.requested`)
    const rows = await waitFor("the row marked published", async () => {
      const rows = await outboxRows(w.workspaceId)
      return rows.every((r) => r.publishedAt !== null) ? rows : undefined
    })
    expect(rows.map((r) => r.id)).toEqual([only?.msgId])
    expect(only?.message.id).toBe(only?.msgId)
  })

  it("a post that goes live: exactly one post.published message with the release", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", { type: "now", content: "Live now", channels: [w.channelId] })
    expect(res.status).toBe(200)
    // the scheduler's claim, run here: the publisher then publishes the item
    const messages = await waitFor("post.published on EVENTS", async () => {
      await run(claimDue())
      const all = await eventsOf(w.workspaceId)
      return all.some((e) => e.message.event === "post.published") ? all : undefined
    })
    expect(messages).toHaveLength(1)
    const post = wholePost(await w.api.get(`/public/v1/posts/${created(res).group}`))
    const message = messages[0]?.message
    if (message?.event !== "post.published") throw new Error(`unexpected ${message?.event}`)
    expect(message.data).toMatchObject({
      postId: created(res).postId,
      groupId: created(res).group,
      channelId: w.channelId,
      provider: "test",
      content: "Live now",
      releaseId: post.channels[0]?.root.releaseId,
      releaseUrl: post.channels[0]?.root.releaseUrl
    })
    expect(message.data.publishedAt).toBeInstanceOf(Date)
  })

  it("a failed publish: post.failed on EVENTS and the fail notification derived from it", async () => {
    // this server has no Mastodon adapter: the publisher records a refusal
    const w = await newWorkspace("mastodon", "Brand on Mastodon")
    const res = await w.api.post("/public/v1/posts", { type: "now", content: "Will fail", channels: [w.channelId] })
    expect(res.status).toBe(200)
    const messages = await waitFor("post.failed on EVENTS", async () => {
      await run(claimDue())
      const all = await eventsOf(w.workspaceId)
      return all.some((e) => e.message.event === "post.failed") ? all : undefined
    })
    expect(messages.map((m) => m.message.event)).toEqual(["post.failed"])
    const failed = messages[0]!.message
    if (failed.event !== "post.failed") throw new Error("unexpected event")
    expect(failed.data).toMatchObject({ postId: created(res).postId, channelId: w.channelId, provider: "mastodon" })
    const notifications = await withDb(
      world,
      async (c) => (await c.query("SELECT type, title, body, link FROM notifications WHERE workspace_id = $1", [w.workspaceId])).rows
    )
    expect(notifications).toEqual([notificationFor(failed, "Brand on Mastodon")])
    expect(notifications[0]).toMatchObject({ type: "fail", title: "A post failed on Brand on Mastodon", body: failed.data.error })
  })
})

describe("Events: never from a rolled-back transaction", () => {
  it("a transaction that fails writes and publishes nothing", async () => {
    const w = await newWorkspace()
    const failed = await run(
      Outbox.transaction(
        Effect.gen(function* () {
          yield* Outbox.write(w.workspaceId, [testEvent("rolled back")])
          return yield* Effect.fail("the change is refused" as const)
        })
      )
    )
    expect(Exit.isFailure(failed)).toBe(true)
    expect(await outboxRows(w.workspaceId)).toEqual([])
    // a later commit of the same workspace goes out; the rolled-back one never does
    expect(Exit.isSuccess(await run(Outbox.transaction(Outbox.write(w.workspaceId, [testEvent("committed")]))))).toBe(true)
    const messages = await waitForEvent(w.workspaceId, "test")
    expect(messages.map((m) => m.message.data)).toEqual([{ message: "committed" }])
  })

  it("a savepoint that rolls back inside a committed transaction: only the committed rows go out", async () => {
    const w = await newWorkspace()
    const done = await run(
      Outbox.transaction(
        Effect.gen(function* () {
          yield* Outbox.write(w.workspaceId, [testEvent("outer")])
          yield* Outbox.transaction(
            Effect.gen(function* () {
              yield* Outbox.write(w.workspaceId, [testEvent("inner, rolled back")])
              return yield* Effect.fail("inner refused" as const)
            })
          ).pipe(Effect.ignore)
        })
      )
    )
    expect(Exit.isSuccess(done)).toBe(true)
    const messages = await waitForEvent(w.workspaceId, "test")
    expect(messages.map((m) => m.message.data)).toEqual([{ message: "outer" }])
    expect((await outboxRows(w.workspaceId)).length).toBe(1)
  })
})

describe("Events: the sweeper publishes rows left behind", () => {
  it("a row whose publish after the commit failed is published by the scheduler's sweeper", async () => {
    const w = await newWorkspace()
    const cut = Effect.gen(function* () {
      const nats = yield* Nats
      const refusing = { publish: () => Promise.reject(new Error("NATS cut")) } as unknown as JetStreamClient
      return yield* Outbox.transaction(Outbox.write(w.workspaceId, [testEvent("left behind")])).pipe(
        Effect.provideService(Nats, { ...nats, jetstream: refusing })
      )
    })
    const written = await run(cut)
    expect(Exit.isSuccess(written)).toBe(true) // the failed publish is only logged
    const [row] = await outboxRows(w.workspaceId)
    expect(row?.publishedAt).toBeNull()
    expect(await eventsOf(w.workspaceId)).toEqual([])

    const scheduler = await startServices(world, ["scheduler"])
    try {
      const messages = await waitForEvent(w.workspaceId, "test")
      expect(messages.map((m) => [m.msgId, m.message.data])).toEqual([[row?.id, { message: "left behind" }]])
      await waitFor("the row marked published", async () => ((await outboxRows(w.workspaceId))[0]?.publishedAt ? true : undefined))
    } finally {
      await scheduler.stop()
    }
  })
})
