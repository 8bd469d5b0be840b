import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ChannelId, WorkspaceId } from "../../domain/ids.js"
import { can, permissions, type Action } from "../../domain/policy.js"
import type { Principal, Role } from "../../domain/roles.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { Channels } from "../../services/channels/Channels.js"
import { ActorClient } from "../../services/sharding/actorClient.js"
import { authorize } from "../../services/platform/policy.js"
import { makeTestLayer } from "../../services/platform/testLayer.js"
import { ChannelsRepo } from "../../services/repos/channelsRepo.js"
import { NetworkAdapters } from "../../services/networks/NetworkAdapters.js"
import { CustomersRepo } from "../../services/repos/customersRepo.js"

/** Spec: Authentication rule 4, Media, Webhook management; domain/policy.ts decides where it is silent. */
const expected: ReadonlyArray<readonly [Action, ReadonlyArray<Role>]> = [
  ["channels.read", ["owner", "admin", "editor", "client"]],
  ["channels.runTool", ["owner", "admin", "editor"]],
  ["channels.delete", ["owner", "admin"]],
  ["channels.connect", ["owner", "admin"]],
  ["posts.read", ["owner", "admin", "editor", "client"]],
  ["posts.write", ["owner", "admin", "editor"]],
  ["posts.review", ["owner", "admin", "client"]],
  ["media.browse", ["owner", "admin", "editor"]],
  ["media.upload", ["owner", "admin", "editor"]],
  ["webhooks.manage", ["owner", "admin"]],
  ["webhooks.list", ["owner", "admin", "editor", "client"]],
  ["notifications.read", ["owner", "admin", "editor", "client"]],
  ["members.manage", ["owner", "admin"]],
  ["apps.approve", ["owner", "admin", "editor", "client"]]
]

const roles: ReadonlyArray<Role> = ["owner", "admin", "editor", "client"]

describe("the roles table", () => {
  it("lists exactly these actions", () => {
    expect(Object.keys(permissions).sort()).toEqual(expected.map(([a]) => a).sort())
  })

  it.each(expected)("%s: allowed for %j, refused for the others", (action, allowed) => {
    for (const role of roles) expect(can(role, action)).toBe(allowed.includes(role))
  })
})

const workspaceId = WorkspaceId.make("0d6f8a52-3a1b-4c77-9d55-0f5b2f1f7c10")
const channelId = ChannelId.make("5b0a4c1e-9f0d-4a6b-8c3e-2d1f0e9a8b7c")
const as = (role: Role): Principal => ({
  workspaceId,
  userId: role === "admin" ? null : "u1",
  role,
  tokenKind: role === "admin" ? "live" : "oat",
  actor: role
})

/** Every command the Test actor client receives. */
const sent: Array<string> = []

const ChannelsTest = Channels.Test.pipe(
  Layer.provide(
    Layer.mergeAll(
      makeTestLayer(ChannelsRepo)({}),
      makeTestLayer(CustomersRepo)({}),
      NetworkAdapters.Test([]),
      makeTestLayer(ActorClient)({
        send: (_principal, command) =>
          Effect.sync(() => {
            sent.push(command._tag)
            return { success: true } as never
          })
      })
    )
  )
)

describe("DELETE /integrations/{id} through Channels.remove and authorize", () => {
  it.layer(ChannelsTest)((it) => {
    it.effect.each(["editor", "client"] as const)("a %s is refused with 403 before the actor hears of it", (role) =>
      Effect.gen(function* () {
        const before = sent.length
        const error = yield* Effect.flatMap(Channels, (c) => c.remove(channelId)).pipe(
          authorize("channels.delete"),
          Effect.provideService(CurrentPrincipal, as(role)),
          Effect.flip
        )
        expect(error._tag).toBe("Forbidden")
        expect(sent.length).toBe(before)
      })
    )

    it.effect.each(["owner", "admin"] as const)("an %s's command reaches the workspace actor", (role) =>
      Effect.gen(function* () {
        const before = sent.length
        const answer = yield* Effect.flatMap(Channels, (c) => c.remove(channelId)).pipe(
          authorize("channels.delete"),
          Effect.provideService(CurrentPrincipal, as(role))
        )
        expect(answer).toEqual({ success: true })
        expect(sent.slice(before)).toEqual(["DeleteChannel"])
      })
    )
  })
})
