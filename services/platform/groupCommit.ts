import { Effect } from "effect"

/**
 * Group commit: calls that arrive while `maxInFlight` batches are on their way wait, and
 * go together in the next batch (at most `maxBatch`), so a busy process sends one
 * statement (one round trip, one commit, one WAL flush) for many calls instead of one
 * each. Nothing waits on a timer: an idle process sends a call alone, right after the
 * event-loop turn it arrived in (calls of the same turn share a batch).
 *
 * `run` answers a batch's outcomes in its order. A batch refused as a whole (`refused`: it
 * is known to have left nothing behind, as a statement Postgres answered with an error)
 * is split: each of its calls runs again alone, so one bad call fails alone and the others
 * go ahead. Any other failure (a lost connection: the batch may have committed) fails
 * every call of the batch, as it would have failed each call sent alone.
 */
export const makeGroupCommit = <I, O, E>(options: {
  readonly maxInFlight: number
  readonly maxBatch: number
  readonly run: (inputs: ReadonlyArray<I>) => Promise<ReadonlyArray<O>>
  /** The run failed and wrote nothing: worth running its calls again one by one. */
  readonly refused: (cause: unknown) => boolean
  /** The error a call fails with when its run failed. */
  readonly failure: (cause: unknown) => E
}) => {
  interface Waiting {
    readonly input: I
    readonly done: (outcome: Effect.Effect<O, E>) => void
    /** A call of a failed batch: it runs by itself. */
    readonly alone: boolean
  }
  let queue: Array<Waiting> = []
  let inFlight = 0
  let scheduled = false

  const send = (batch: ReadonlyArray<Waiting>) => {
    inFlight++
    // a run that throws at once fails its batch like one that rejects
    new Promise<ReadonlyArray<O>>((resolve) => resolve(options.run(batch.map((w) => w.input)))).then(
      (outcomes) => {
        if (outcomes.length !== batch.length) {
          const defect = Effect.die(new Error(`a batch of ${batch.length} answered ${outcomes.length} outcomes`))
          for (const w of batch) w.done(defect)
        } else batch.forEach((w, i) => w.done(Effect.succeed(outcomes[i]!)))
        settled()
      },
      (cause: unknown) => {
        // rolled back as a whole: each of its calls again, alone, ahead of the calls that came since
        if (batch.length > 1 && options.refused(cause)) queue = [...batch.map((w) => ({ ...w, alone: true })), ...queue]
        else {
          const failed = Effect.fail(options.failure(cause))
          for (const w of batch) w.done(failed)
        }
        settled()
      }
    )
  }

  const settled = () => {
    inFlight--
    pump()
  }

  const pump = () => {
    scheduled = false
    while (inFlight < options.maxInFlight && queue.length > 0) {
      let size = 1
      if (!queue[0]!.alone) while (size < options.maxBatch && size < queue.length && !queue[size]!.alone) size++
      send(queue.splice(0, size))
    }
  }

  return {
    submit: (input: I): Effect.Effect<O, E> =>
      Effect.async<O, E>((resume) => {
        queue.push({ input, done: resume, alone: false })
        if (!scheduled && inFlight < options.maxInFlight) {
          scheduled = true
          setImmediate(pump)
        }
      }),
    /** Calls waiting for a batch (tests, metrics). */
    waiting: () => queue.length
  }
}
