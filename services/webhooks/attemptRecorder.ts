import { Chunk, Deferred, Effect, Queue } from "effect"
import type { AttemptResult, ClaimedDelivery, DeliveriesRepo, RecordedAttempt } from "./deliveriesRepo.js"

type RecordError = Effect.Effect.Error<ReturnType<DeliveriesRepo["recordAttempts"]>>

/**
 * The dispatcher's `recordAttempt`: outcomes of attempts that finish while a write is under
 * way are gathered and written together in one statement (store.recordAttempts), so the
 * database sees one round trip per batch instead of one per delivery; a few batches may be
 * under way at once. Each caller still waits until its own outcome is written (or the write
 * failed): the delivery's lease is released only then. Needs a Scope: the writer fibers.
 */
export const makeAttemptRecorder = (store: DeliveriesRepo, options: { readonly maxBatch: number; readonly writers: number }) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<readonly [RecordedAttempt, Deferred.Deferred<void, RecordError>]>()
    const writeBatch = Effect.gen(function* () {
      const items = Chunk.toReadonlyArray(yield* Queue.takeBetween(queue, 1, options.maxBatch))
      const exit = yield* Effect.exit(store.recordAttempts(items.map(([attempt]) => attempt)))
      yield* Effect.forEach(items, ([, done]) => Deferred.done(done, exit), { discard: true })
    })
    // a few writers, so a batch waits for a free connection rather than for the previous batch
    for (let i = 0; i < options.writers; i++) yield* Effect.forkScoped(Effect.forever(writeBatch))
    return (delivery: ClaimedDelivery, logId: string, attempt: number, result: AttemptResult, next: { readonly nextAt: Date | null }) =>
      Effect.gen(function* () {
        const done = yield* Deferred.make<void, RecordError>()
        yield* Queue.offer(queue, [{ delivery, logId, attempt, result, nextAt: next.nextAt }, done])
        return yield* Deferred.await(done)
      })
  })
