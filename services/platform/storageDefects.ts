import { Effect, Predicate } from "effect"

type StorageFailure = { readonly _tag: "SqlError" } | { readonly _tag: "ParseError" }

const isStorageFailure = (u: unknown): u is StorageFailure => Predicate.isTagged(u, "SqlError") || Predicate.isTagged(u, "ParseError")

/**
 * A database that fails or a stored row that does not decode is a defect of this service,
 * not an answer to the client: it ends as the 500 body (and is logged), never as a typed
 * error a caller could mistake for a rule.
 */
export const storageDefects = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Extract<E, StorageFailure>>, R> =>
  Effect.catchIf(effect, (e): e is Extract<E, StorageFailure> => isStorageFailure(e), Effect.die)
