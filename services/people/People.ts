import { Effect, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import { assignableRoles, memberChangeProblem } from "../../domain/members.js"
import type { Principal, Role } from "../../domain/roles.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { verifyPassword } from "./passwords.js"
import { policyRequire } from "../platform/policy.js"
import { PeopleRepo } from "./peopleRepo.js"
import { PersonTokensRepo } from "./personTokensRepo.js"
import { withSpan } from "../platform/tracing.js"

/** Verified against when no such person exists, so a wrong email costs as long as a wrong password. */
const DUMMY_HASH = "scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

/**
 * People in the app: signing in, the person's workspaces (acting in one as a principal,
 * with their role there), Approved Apps (their OAuth and CLI tokens) and, for owners
 * and admins, the members of a workspace. Pages call these methods.
 */
export class People extends Effect.Service<People>()("people/People", {
  effect: Effect.gen(function* () {
    const people = yield* PeopleRepo
    const tokens = yield* PersonTokensRepo

    /** The person with this email and password, unless suspended; None otherwise (the page says which fields to check). */
    const signIn = (email: string, password: string) =>
      Effect.gen(function* () {
        const user = yield* people.findUserByEmail(email.trim()).pipe(Effect.orDie)
        const stored = Option.match(user, { onNone: () => DUMMY_HASH, onSome: (u) => u.passwordHash })
        const matches = yield* Effect.promise(() => verifyPassword(password, stored).catch(() => false))
        return Option.filter(user, (u) => matches && !u.suspended).pipe(Option.map((u) => ({ userId: u.id, email: u.email })))
      }).pipe(withSpan("People.signIn"))

    /** The signed-in person, while their account is not suspended. */
    const person = (userId: string) =>
      people
        .findUser(userId)
        .pipe(
          Effect.orDie,
          Effect.map(Option.filter((u) => !u.suspended)),
          Effect.map(Option.map((u) => ({ userId: u.id, email: u.email }))),
          withSpan("People.person")
        )

    const workspacesOf = (userId: string) => people.membershipsOf(userId).pipe(Effect.orDie, withSpan("People.workspacesOf"))

    /**
     * The person acting in one workspace, with their role there (the principal of the
     * pages): 403 when not a member, 403 member_paused while paused (as for their tokens).
     */
    const principalIn = (user: { readonly userId: string; readonly email: string }, workspaceId: string) =>
      Effect.gen(function* () {
        const membership = (yield* workspacesOf(user.userId)).find((m) => m.workspaceId === workspaceId)
        if (membership === undefined) return yield* Errors.forbidden("You are not a member of this workspace.", "Pick one of your workspaces.")
        if (membership.paused && membership.role !== "owner") return yield* Errors.memberPaused()
        return {
          workspaceId: WorkspaceId.make(workspaceId),
          userId: user.userId,
          role: membership.role,
          tokenKind: "session",
          actor: user.email
        } satisfies Principal
      })

    /** Approved Apps: the person's OAuth and CLI tokens that still work. */
    const approvedApps = (userId: string) => tokens.listActive(userId).pipe(Effect.orDie, withSpan("People.approvedApps"))

    /** Revoke on Approved Apps: the token stops working at once; false when it was not theirs or already revoked. */
    const revokeApp = (userId: string, tokenId: string) =>
      (/^[0-9a-f-]{36}$/i.test(tokenId) ? tokens.revokeOwn({ userId, id: tokenId }).pipe(Effect.orDie) : Effect.succeed(0)).pipe(
        Effect.map((n) => n > 0),
        withSpan("People.revokeApp")
      )

    /** The members page of the current principal's workspace. */
    const members = Effect.gen(function* () {
      const { workspaceId } = yield* CurrentPrincipal
      return yield* people.membersOf(workspaceId).pipe(Effect.orDie)
    }).pipe(withSpan("People.members"), policyRequire("members.manage"))

    /** Changes a member's role and/or pauses or resumes them (domain/members.ts). */
    const changeMember = (input: { readonly userId: string; readonly role?: Role; readonly paused?: boolean }) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const target = /^[0-9a-f-]{36}$/i.test(input.userId)
          ? yield* people.findMember({ workspaceId: principal.workspaceId, userId: input.userId }).pipe(Effect.orDie)
          : Option.none()
        if (Option.isNone(target)) return yield* Errors.badRequest("That person is not a member of this workspace.")
        const problem = memberChangeProblem(principal.userId ?? "", target.value)
        if (problem !== null) return yield* Errors.forbidden(problem, "Change other members' roles and access.")
        const role = input.role ?? target.value.role
        if (!assignableRoles.includes(role)) return yield* Errors.badRequest(`A member's role is one of ${assignableRoles.join(", ")}.`)
        yield* people
          .updateMember({ workspaceId: principal.workspaceId, userId: target.value.userId, role, paused: input.paused ?? target.value.paused })
          .pipe(Effect.orDie)
      }).pipe(withSpan("People.changeMember"), policyRequire("members.manage"))

    return { signIn, person, workspacesOf, principalIn, approvedApps, revokeApp, members, changeMember }
  }),
  dependencies: [PeopleRepo.Live, PersonTokensRepo.Live]
}) {
  /** Without its repositories: a test gives those (services/platform/testLayer.ts). */
  static readonly Test = People.DefaultWithoutDependencies
}
