import { Either } from "effect"
import type { YieldWrap } from "effect/Utils"

/**
 * `Either.gen` for a function of arguments, its generator function made once (as
 * `Effect.fnUntraced` does for `Effect.gen`). A generator function made per call, as
 * `(x) => Either.gen(function* () {…})` makes one, gets a V8 hidden class of its own in the
 * old generation, which keeps the call's objects alive through every young-generation GC
 * until a full one (docs/performance.md, "Generator functions made once").
 */
export const eitherFn =
  <Args extends ReadonlyArray<unknown>, A, E>(body: (...args: Args) => Generator<YieldWrap<Either.Either<unknown, E>>, A, never>) =>
  (...args: Args): Either.Either<A, E> =>
    Either.gen(() => body(...args))
