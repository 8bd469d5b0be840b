import type { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Duration, Effect, Layer, Option, Runtime, Scope } from "effect"
import { makeGroupCommit } from "../platform/groupCommit.js"
import { publishAttempts } from "../platform/metrics.js"
import type { RepeatsRepo } from "../posts/repeatsRepo.js"
import * as Outbox from "../platform/outbox.js"
import { AttemptsRepo, type AttemptToOpen, type ItemForAttempt } from "./attemptsRepo.js"
import { type OutcomeToRecord, outcomeOf, outcomeStatements } from "./recordOutcome.js"

/**
 * The publisher's statements, grouped (platform/groupCommit.ts): the jobs of a busy minute
 * read their items, open their attempts and record their outcomes many to a statement or
 * a transaction instead of one round trip (and one commit) each. Each job still decides
 * alone from what it read, and each statement keeps the guards of the single-item one
 * (attemptsRepo.ts), so "an attempt committed before the network is called, never two
 * sends" holds batch or not. A batch that fails runs its calls again one by one: every
 * call is safe to repeat (a read; an open guarded by "no attempt open"; an outcome guarded
 * by "the attempt has none yet").
 */

/** Read and open batches in flight at once: while they run the next calls gather. */
const MAX_IN_FLIGHT = 2
/** Items per read or open statement. */
const MAX_READ_BATCH = 200
/** Outcome transactions in flight at once, one per lane (see outcomeLane). */
const OUTCOME_LANES = 4
/** Outcomes per transaction: enough to share the commit, few enough that a lock is not held long. */
const MAX_OUTCOME_BATCH = 128

/** How often the lease renewal looks again while this process holds no attempt. */
const IDLE_RENEW_MS = 1000

const failure = (message: string) => (cause: unknown) => new SqlError({ cause, message })

export const makePublishBatches = Effect.gen(function* () {
  const attempts = yield* AttemptsRepo
  const runtime = yield* Effect.runtime<AttemptsRepo | RepeatsRepo | SqlClient.SqlClient>()
  const run = Runtime.runPromise(runtime)

  const reads = makeGroupCommit({
    maxInFlight: MAX_IN_FLIGHT,
    maxBatch: MAX_READ_BATCH,
    run: async (itemIds: ReadonlyArray<string>) => {
      const rows = await run(attempts.loadItems([...new Set(itemIds)]))
      const byId = new Map(rows.map((r) => [r.id, r]))
      return itemIds.map((id) => Option.fromNullable(byId.get(id)))
    },
    refused: () => true,
    failure: failure("Failed to read items to publish")
  })

  const opens = makeGroupCommit({
    maxInFlight: MAX_IN_FLIGHT,
    maxBatch: MAX_READ_BATCH,
    run: async (wanted: ReadonlyArray<Omit<AttemptToOpen, "attemptId">>) => {
      // an item once per statement: a second job of the same item finds it changed and comes back
      const seen = new Set<string>()
      const batch = wanted.map((w) => {
        const first = !seen.has(w.itemId)
        seen.add(w.itemId)
        return { ...w, attemptId: crypto.randomUUID(), first }
      })
      const opened = await run(attempts.openAttempts(batch.filter((b) => b.first)))
      return batch.map((b) => (b.first && opened.has(b.attemptId) ? Option.some(b.attemptId) : Option.none<string>()))
    },
    refused: () => true,
    failure: failure("Failed to open attempts")
  })

  /**
   * Outcome lanes: a workspace's outcomes always go through the same lane, one transaction
   * at a time, so two transactions in flight never take the same workspace's event counter,
   * posts or channels (they would wait on each other crosswise); the lanes run side by side.
   */
  const outcomeLane = () =>
    makeGroupCommit({
      maxInFlight: 1,
      maxBatch: MAX_OUTCOME_BATCH,
      run: async (batch: ReadonlyArray<OutcomeToRecord>) => {
        // workspaces' event counters (outbox) and whole posts (loadGroupForOutcome) locked in one order
        const key = (o: OutcomeToRecord) => `${o.item.workspaceId}/${o.item.groupId}`
        const ordered = [...batch].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
        await run(
          Outbox.transaction(
            Effect.gen(function* () {
              yield* attempts.stampSuccess(yield* outcomeStatements(ordered))
            })
          )
        )
        return batch.map(() => undefined)
      },
      refused: () => true,
      failure: failure("Failed to record outcomes")
    })
  const lanes = Array.from({ length: OUTCOME_LANES }, outcomeLane)
  const laneOf = (workspaceId: string) => lanes[Number.parseInt(workspaceId.slice(0, 8), 16) % OUTCOME_LANES] ?? lanes[0]!

  // the attempts this process holds open, their leases renewed together (one statement for all)
  const held = new Map<string, { readonly attemptId: string; readonly owner: string; readonly leaseMs: number }>()
  const renewEvery = () => (held.size === 0 ? IDLE_RENEW_MS : Math.max(50, Math.floor(Math.min(...[...held.values()].map((h) => h.leaseMs)) / 3)))
  yield* Effect.suspend(() => attempts.renewLeases([...held.values()]).pipe(Effect.ignore, Effect.delay(Duration.millis(renewEvery())))).pipe(
    Effect.forever,
    Effect.forkScoped
  )

  return {
    /**
     * Keeps the attempt's lease while the scope lasts: renewed with every other attempt this
     * process holds, at a third of the shortest lease, while it is still open and ours (a
     * job that took it over owns it now: the renewal changes nothing).
     */
    holdLease: (attemptId: string, owner: string, leaseMs: number): Effect.Effect<void, never, Scope.Scope> =>
      // the scope's own finalizer list, not Effect.acquireRelease (which saves and restores the fiber's refs around it)
      Effect.uninterruptible(
        Effect.flatMap(Effect.scope, (scope) => {
          held.set(attemptId, { attemptId, owner, leaseMs })
          return Scope.addFinalizer(
            scope,
            Effect.sync(() => void held.delete(attemptId))
          )
        })
      ),
    /** The item as its job first reads it (attemptsRepo.loadItem), read with the other jobs' items. */
    load: (itemId: string): Effect.Effect<Option.Option<ItemForAttempt>, SqlError> => reads.submit(itemId),
    /** Opens the attempt (attemptsRepo.openAttempt's guards) with the other jobs' attempts; its id, or None when the item changed. */
    open: (attempt: Omit<AttemptToOpen, "attemptId">): Effect.Effect<Option.Option<string>, SqlError> => opens.submit(attempt),
    /** Records the outcome (recordOutcome.ts) in a transaction shared with other jobs' outcomes. */
    record: (outcome: OutcomeToRecord): Effect.Effect<void, SqlError> =>
      Effect.suspend(() => {
        publishAttempts.inc({ network: outcome.item.network, outcome: outcomeOf(outcome.conclusion).kind })
        return laneOf(outcome.item.workspaceId).submit(outcome)
      })
  }
})

export class PublishBatches extends Context.Tag("publisher/PublishBatches")<PublishBatches, Effect.Effect.Success<typeof makePublishBatches>>() {
  static readonly Live = Layer.scoped(PublishBatches, makePublishBatches)
}
