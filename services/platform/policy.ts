import { Effect } from "effect"
import { Errors, type Forbidden } from "../../domain/errors.js"
import { can, type Action, type Authorized } from "../../domain/policy.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"

/**
 * Roles as policy (domain/policy.ts), enforced by types as in the Effect team's
 * http-server example: a feature service method declares the action it needs with
 * `policyRequire`; an edge (HTTP handler, actor command, page, MCP tool) can only run it
 * inside `authorize(action)`, which checks the current principal's role.
 */

/** Marks an effect as needing `action` checked for the current principal. */
export const policyRequire =
  <A extends Action>(_action: A) =>
  <X, E, R>(effect: Effect.Effect<X, E, R>): Effect.Effect<X, E, R | Authorized<A>> =>
    effect

/**
 * Checks `action` for the current principal (403 Forbidden otherwise) and discharges the
 * requirement. The cast only removes the type-level marker: nothing is provided at run time.
 */
export const authorize =
  <A extends Action>(action: A) =>
  <X, E, R>(effect: Effect.Effect<X, E, R>): Effect.Effect<X, E | Forbidden, Exclude<R, Authorized<A>> | CurrentPrincipal> =>
    Effect.flatMap(
      CurrentPrincipal,
      (principal): Effect.Effect<X, E | Forbidden, R> => (can(principal.role, action) ? effect : Effect.fail(Errors.forbidden()))
    ) as Effect.Effect<X, E | Forbidden, Exclude<R, Authorized<A>> | CurrentPrincipal>
