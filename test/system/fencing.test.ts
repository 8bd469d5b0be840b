import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import { CreatePosts } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { FencedTransactions } from "../../services/sharding/fencedTransactions.js"
import { AlreadyRan, CurrentCommand, CurrentLease, FenceStore, LeaseLost } from "../../services/sharding/fencing.js"
import { authorize } from "../../services/platform/policy.js"
import { PostWriter } from "../../services/posts/PostWriter.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * The fence under the actor hosts, on the real database (docs/architecture.md, "Fencing and commands that run once": every write is fenced by
 * the lease's epoch; each command carries an id recorded in the same transaction). The
 * fault test test/faults/actorPause.test.ts proves the same with a paused host process.
 */

let world: TestWorld
let sys: RunningServices
let principal: Principal
let channelId: string

beforeAll(async () => {
  world = await createWorld("fencing")
  sys = await startServices(world, [])
  const ws = await sys.admin.createWorkspace()
  principal = { workspaceId: WorkspaceId.make(ws.workspaceId), userId: null, role: "admin", tokenKind: "live", actor: "API" }
  channelId = (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Fenced", customerId: null, postingTimes: [] }))
    .channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

const Writer = PostWriter.Default.pipe(Layer.provide(FencedTransactions), Layer.provideMerge(FenceStore.Live))
const run = <A, E>(effect: Effect.Effect<A, E, PostWriter | FenceStore | SqlClient.SqlClient>) =>
  sys.runtime.runPromise(effect.pipe(Effect.provide(Writer)) as Effect.Effect<A, E, SqlClient.SqlClient>)
const runExit = <A, E>(effect: Effect.Effect<A, E, PostWriter | FenceStore | SqlClient.SqlClient>) => run(Effect.exit(effect))

const create = (marker: string, lease: { shard: number; epoch: number }, commandId = crypto.randomUUID()) =>
  Effect.flatMap(PostWriter, (writer) =>
    writer.create(new CreatePosts({ body: { type: "draft", content: marker, channels: [channelId] }, idempotencyKey: null }))
  ).pipe(
    authorize("posts.write"),
    Effect.provideService(CurrentPrincipal, principal),
    Effect.provideService(CurrentLease, lease),
    Effect.provideService(CurrentCommand, { workspaceId: principal.workspaceId, commandId })
  )

const stored = (marker: string) =>
  withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM post_items WHERE content = $1", [marker])).rows[0].n as number)

const defectOf = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined)

describe("fencing by the shard's epoch", () => {
  it("a host whose shard was taken over commits nothing: LeaseLost, no post", async () => {
    const old = await run(Effect.flatMap(FenceStore, (f) => f.claim(3, "old host")))
    const current = await run(Effect.flatMap(FenceStore, (f) => f.claim(3, "new host")))
    expect(current).toBe(old + 1)
    const exit = await runExit(create("written by the old host", { shard: 3, epoch: old }))
    expect(defectOf(exit)).toBeInstanceOf(LeaseLost)
    expect(await stored("written by the old host")).toBe(0)
    expect(Exit.isSuccess(await runExit(create("written by the owner", { shard: 3, epoch: current })))).toBe(true)
    expect(await stored("written by the owner")).toBe(1)
  })

  it("a new owner's claim waits for a write of the old owner already under way, then the old owner can commit no more", async () => {
    const old = await run(Effect.flatMap(FenceStore, (f) => f.claim(5, "old host")))
    const order: Array<string> = []
    // a write under way: the fence row is held FOR SHARE until this transaction commits
    const inFlight = run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* Effect.flatMap(FenceStore, (f) => f.check(5, old))
            yield* Effect.sleep("400 millis")
            order.push("old owner committed")
          })
        )
      )
    )
    await new Promise((r) => setTimeout(r, 100))
    const taken = run(Effect.flatMap(FenceStore, (f) => f.claim(5, "new host"))).then((epoch) => {
      order.push("new owner took the shard")
      return epoch
    })
    await inFlight
    const current = await taken
    expect(order).toEqual(["old owner committed", "new owner took the shard"])
    expect(current).toBe(old + 1)
    expect(defectOf(await runExit(create("late write of the old host", { shard: 5, epoch: old })))).toBeInstanceOf(LeaseLost)
    expect(await stored("late write of the old host")).toBe(0)
  })
})

describe("a command runs once", () => {
  it("the same command id a second time: AlreadyRan, still one post", async () => {
    const epoch = await run(Effect.flatMap(FenceStore, (f) => f.claim(6, "host")))
    const commandId = crypto.randomUUID()
    expect(Exit.isSuccess(await runExit(create("sent twice", { shard: 6, epoch }, commandId)))).toBe(true)
    const again = await runExit(create("sent twice", { shard: 6, epoch }, commandId))
    expect(defectOf(again)).toBeInstanceOf(AlreadyRan)
    expect(await stored("sent twice")).toBe(1)
    // what the first run produced is kept for the copy's answer
    const kept = await run(Effect.flatMap(FenceStore, (f) => f.find(principal.workspaceId, commandId)))
    expect(Option.isSome(kept) && kept.value.answer).toMatchObject({ statusCode: 200, replayed: false })
  })
})
