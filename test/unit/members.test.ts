import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { WorkspaceId } from "../../domain/ids.js"
import type { Principal, Role } from "../../domain/roles.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { People } from "../../services/people/People.js"
import { PeopleRepo, type MemberRow } from "../../services/people/peopleRepo.js"
import { PersonTokensRepo } from "../../services/people/personTokensRepo.js"
import { authorize } from "../../services/platform/policy.js"
import { makeTestLayer } from "../../services/platform/testLayer.js"

/** The members page's rules (domain/members.ts, policy `members.manage`) through People.changeMember. */

const workspaceId = WorkspaceId.make("0d6f8a52-3a1b-4c77-9d55-0f5b2f1f7c10")
const ids = {
  owner: "11111111-1111-4111-8111-111111111111",
  admin: "22222222-2222-4222-8222-222222222222",
  editor: "33333333-3333-4333-8333-333333333333"
}
const members: ReadonlyArray<MemberRow> = [
  { userId: ids.owner, email: "o@x.test", role: "owner", paused: false },
  { userId: ids.admin, email: "a@x.test", role: "admin", paused: false },
  { userId: ids.editor, email: "e@x.test", role: "editor", paused: false }
]
const as = (role: Role, userId: string): Principal => ({ workspaceId, userId, role, tokenKind: "session", actor: role })

/** Every update the Test repository receives. */
const updates: Array<{ userId: string; role: string; paused: boolean }> = []

const PeopleTest = People.Test.pipe(
  Layer.provide(
    Layer.mergeAll(
      makeTestLayer(PeopleRepo)({
        findMember: ({ userId }) => Effect.succeed(Option.fromNullable(members.find((m) => m.userId === userId))),
        updateMember: (input) => Effect.sync(() => void updates.push({ userId: input.userId, role: input.role, paused: input.paused }))
      }),
      makeTestLayer(PersonTokensRepo)({})
    )
  )
)

const change = (principal: Principal, input: { userId: string; role?: Role; paused?: boolean }) =>
  Effect.flatMap(People, (p) => p.changeMember(input)).pipe(authorize("members.manage"), Effect.provideService(CurrentPrincipal, principal))

describe("People.changeMember", () => {
  it.layer(PeopleTest)((it) => {
    it.effect("an admin makes an editor a client", () =>
      Effect.gen(function* () {
        yield* change(as("admin", ids.admin), { userId: ids.editor, role: "client" })
        expect(updates.at(-1)).toEqual({ userId: ids.editor, role: "client", paused: false })
      })
    )

    it.effect("the owner pauses a member, keeping their role", () =>
      Effect.gen(function* () {
        yield* change(as("owner", ids.owner), { userId: ids.admin, paused: true })
        expect(updates.at(-1)).toEqual({ userId: ids.admin, role: "admin", paused: true })
      })
    )

    it.effect.each([
      ["an editor changes anyone", as("editor", ids.editor), { userId: ids.admin, role: "client" as const }, "Forbidden"],
      ["an admin changes the owner", as("admin", ids.admin), { userId: ids.owner, role: "client" as const }, "Forbidden"],
      ["an admin pauses the owner", as("admin", ids.admin), { userId: ids.owner, paused: true }, "Forbidden"],
      ["an admin changes themselves", as("admin", ids.admin), { userId: ids.admin, role: "editor" as const }, "Forbidden"],
      ["someone makes a second owner", as("owner", ids.owner), { userId: ids.editor, role: "owner" as const }, "InvalidRequest"],
      [
        "a person who is no member",
        as("owner", ids.owner),
        { userId: "44444444-4444-4444-8444-444444444444", role: "client" as const },
        "InvalidRequest"
      ]
    ] as const)("refused: %s (nothing saved)", ([, principal, input, tag]) =>
      Effect.gen(function* () {
        const before = updates.length
        const error = yield* Effect.flip(change(principal, input))
        expect(error._tag).toBe(tag)
        expect(updates.length).toBe(before)
      })
    )
  })
})
