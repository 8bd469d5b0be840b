import { Context, Effect, Layer, Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { WorkspaceId } from "../../../domain/ids.js"
import type { Principal } from "../../../domain/roles.js"
import { CreatePosts } from "../../../protocol/actors.js"
import { dispatch } from "../../../services/actors/dispatch.js"
import { RateWindows } from "../../../services/actors/rateWindows.js"
import { makeWorkspaceMemory, WorkspaceMemory } from "../../../services/actors/workspaceMemory.js"
import { PostWriter, type PostsAnswer } from "../../../services/posts/PostWriter.js"
import { CurrentCommand } from "../../../services/sharding/fencing.js"
import { makeMemorySharding } from "../../support/memorySharding.js"

/**
 * POST /posts with an Idempotency-Key whose first copy is slow (a paused NATS node, a slow
 * write): the client sends the same command again (same command id) after each attempt
 * it got no answer to. Those copies are the same request: the real dispatch
 * (services/actors/dispatch.ts) on a real shard host and client must give the first
 * copy's answer, one post, never 409 "still running".
 */

const TTL = 1_500
const ROUND = 200

let sharding: ReturnType<typeof makeMemorySharding> | undefined
afterEach(async () => {
  await sharding?.close()
  sharding = undefined
})

/** A writer that takes `createMs` per post and records the command as a fenced transaction does. */
const world = (createMs: number) => {
  const posts: Array<{ readonly commandId: string; readonly postId: string }> = []
  const keys = new Map<string, PostsAnswer>()
  const copies: Array<{ readonly commandId: string; readonly attempt: number }> = []
  const unused = () => Effect.dieMessage("not used by this test")
  const writer = PostWriter.make({
    keptAnswer: (_workspaceId, key) => Effect.succeed(Option.map(Option.fromNullable(keys.get(key)), (kept) => ({ ...kept, replayed: true }))),
    create: (command) =>
      Effect.gen(function* () {
        // read as the fenced transaction reads it (services/sharding/fencedTransactions.ts)
        const current = yield* Effect.serviceOption(CurrentCommand)
        if (Option.isNone(current)) return yield* Effect.dieMessage("no current command")
        const { workspaceId, commandId } = current.value
        yield* Effect.sleep(createMs)
        const postId = crypto.randomUUID()
        const answer: PostsAnswer = { statusCode: 200, body: [{ postId }], replayed: false }
        if (sharding === undefined) return yield* Effect.dieMessage("no sharding")
        yield* sharding.fences.record(workspaceId, commandId, answer).pipe(Effect.orDie)
        posts.push({ commandId, postId })
        if (command.idempotencyKey !== null) keys.set(command.idempotencyKey, answer)
        return answer
      }),
    importPosts: unused,
    move: unused,
    setStatus: unused,
    setSettings: unused,
    delete: unused,
    deleteChannel: unused,
    review: unused,
    retry: unused,
    link: unused,
    current: unused
  })
  const context = Context.make(PostWriter, writer).pipe(
    Context.add(WorkspaceMemory, makeWorkspaceMemory()),
    Context.add(RateWindows, { take: () => Effect.succeed({ allowed: true as const }) })
  )
  sharding = makeMemorySharding({
    shardCount: 2,
    leaseTtlMs: TTL,
    roundMs: ROUND,
    entity: (envelope, mailboxes, lease) =>
      Effect.suspend(() => {
        copies.push({ commandId: envelope.commandId, attempt: envelope.attempt })
        return dispatch(envelope, mailboxes, lease).pipe(Effect.provide(Layer.succeedContext(context)))
      })
  })
  return { sharding, posts, copies }
}

const principal: Principal = { workspaceId: WorkspaceId.make(crypto.randomUUID()), userId: null, role: "admin", tokenKind: "live", actor: "API" }

describe("a copy of POST /posts sent while the first copy still runs", () => {
  it("waits for the first copy and gets its answer: one post, never 409", async () => {
    // the memory client sends again every 500 ms: the first copy outlasts three attempts
    const { sharding: s, posts, copies } = world(1_700)
    await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === 2, 10_000, "both shards owned")
    const answer = await Effect.runPromise(
      s.client
        .send(principal, new CreatePosts({ body: { type: "draft", content: "once" }, idempotencyKey: "key-of-a-first-request" }))
        .pipe(Effect.either)
    )
    expect(answer._tag === "Right" ? answer.right : answer.left).toEqual({ statusCode: 200, body: [{ postId: posts[0]?.postId }], replayed: false })
    expect(posts).toHaveLength(1)
    // the copies really were sent, under one command id
    expect(copies.length).toBeGreaterThanOrEqual(2)
    expect(new Set(copies.map((c) => c.commandId)).size).toBe(1)
  })

  it("a second request with the same key (another command) while the first runs is still 409", async () => {
    const { sharding: s, posts } = world(300)
    await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === 2, 10_000, "both shards owned")
    const send = () =>
      Effect.runPromise(
        s.client.send(principal, new CreatePosts({ body: { type: "draft", content: "twice" }, idempotencyKey: "key-sent-twice" })).pipe(Effect.either)
      )
    const [first, second] = await Promise.all([send(), send()])
    expect(first._tag).toBe("Right")
    expect(second._tag === "Left" ? second.left._tag : second._tag).toBe("IdempotencyKeyRunning")
    expect(posts).toHaveLength(1)
  })
})
