import { verify } from "@octokit/webhooks-methods"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { pausedReason, receives, waitAfterAttempt, webhookLimits } from "../../domain/webhooks.js"
import { deliveryBody } from "../../services/webhooks/attempt.js"
import { channelsOf } from "../../services/webhooks/fanout.js"
import { deliveryHeaders, newWebhookSecret, serviceSignature } from "../../services/webhooks/signatures.js"

describe("Delivery: signatures", () => {
  it("X-Service-Signature matches the security notes' vector", () => {
    expect(serviceSignature("It's a Secret to Everybody", "Hello, World!")).toBe(
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )
  })

  it("one whsec_ secret: @octokit/webhooks-methods and standardwebhooks both verify the exact bytes", async () => {
    const secret = newWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const sentAt = new Date()
    const body = deliveryBody("post.failed", sentAt, JSON.stringify({ error: "Too long ü", fix: "Shorten it" }))
    const headers = deliveryHeaders({ secret, deliveryId: "0b0e7c6e-0000-4000-8000-000000000001", event: "post.failed", body, sentAt })
    expect(await verify(secret, body, headers["x-service-signature"] ?? "")).toBe(true)
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ event: "post.failed", data: { error: "Too long ü" } })
    // a changed byte or another secret fails both
    expect(await verify(secret, body.replace("ü", "u"), headers["x-service-signature"] ?? "")).toBe(false)
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow()
    expect(headers).toMatchObject({ "content-type": "application/json", "user-agent": "Service-Webhooks/1", "x-service-event": "post.failed" })
  })
})

describe("Delivery: retries", () => {
  it("waits double: about 15 s, 30 s, 1 min, 2 min, 4 min", () => {
    expect([1, 2, 3, 4, 5].map((a) => waitAfterAttempt(a))).toEqual([15_000, 30_000, 60_000, 120_000, 240_000])
  })
})

describe("Configuring a webhook: which events it receives", () => {
  const ch = (...ids: Array<string>) => ids
  it("no events chosen: post.published and post.failed only", () => {
    const w = { events: [], channelIds: [] }
    expect(receives(w, "post.published", ch("a"))).toBe(true)
    expect(receives(w, "post.failed", ch("a"))).toBe(true)
    expect(receives(w, "post.unconfirmed", ch("a"))).toBe(false)
    expect(receives(w, "billing.changed", null)).toBe(false)
  })
  it("channels chosen: post.* and channel.disconnected for that channel, approval.* when any channel of the post is chosen", () => {
    const w = { events: ["post.published", "channel.disconnected", "approval.requested", "billing.changed"], channelIds: ["a"] }
    expect(receives(w, "post.published", ch("a"))).toBe(true)
    expect(receives(w, "post.published", ch("b"))).toBe(false)
    expect(receives(w, "channel.disconnected", ch("b"))).toBe(false)
    expect(receives(w, "approval.requested", ch("b", "a"))).toBe(true)
    expect(receives(w, "approval.requested", ch("b", "c"))).toBe(false)
    expect(receives(w, "billing.changed", null)).toBe(true)
  })
  it("channel.expiring: only when picked (not a default), and for a chosen channel only that channel's", () => {
    const expiring = channelsOf({ event: "channel.expiring", data: { channelId: "a", provider: "linkedin", name: "A", expiresAt: new Date() } })
    expect(expiring).toEqual(["a"])
    expect(receives({ events: [], channelIds: [] }, "channel.expiring", expiring)).toBe(false)
    expect(receives({ events: ["channel.expiring"], channelIds: ["a"] }, "channel.expiring", expiring)).toBe(true)
    expect(receives({ events: ["channel.expiring"], channelIds: ["b"] }, "channel.expiring", expiring)).toBe(false)
  })
})

describe("Webhooks per workspace by plan", () => {
  it("Standard 2, Team 10, Pro 30, Ultimate 10,000; beyond the limit paused with a reason", () => {
    expect(webhookLimits).toEqual({ standard: 2, team: 10, pro: 30, ultimate: 10_000 })
    expect(pausedReason("standard", 2)).toBeNull()
    expect(pausedReason("standard", 3)).toMatch(/Standard plan allows 2 webhooks/)
    expect(pausedReason("team", 3)).toBeNull()
  })
})

describe("admin CLI: webhook commands parse", () => {
  const ws = "6f1c7a52-3b7e-4d2b-9a51-0c2f4e8d9b10"
  it("webhook create with events and channels; webhook test", async () => {
    const { parseAdminArgs } = await import("../../services/admin/cliArgs.js")
    const { Either } = await import("effect")
    expect(
      Either.getOrThrow(
        parseAdminArgs([
          "webhook",
          "create",
          "--workspace",
          ws,
          "--name",
          "Z",
          "--url",
          "https://h.example/in",
          "--events",
          "post.failed, billing.changed",
          "--channels",
          ws
        ])
      )
    ).toEqual({
      _tag: "WebhookCreate",
      workspaceId: ws,
      name: "Z",
      url: "https://h.example/in",
      events: ["post.failed", "billing.changed"],
      channelIds: [ws]
    })
    expect(Either.getOrThrow(parseAdminArgs(["webhook", "test", "--webhook", ws]))).toEqual({ _tag: "WebhookTest", webhookId: ws })
    expect(parseAdminArgs(["webhook", "create", "--workspace", ws, "--name", "Z"])).toEqual(Either.left("--url is required."))
    expect(parseAdminArgs(["webhook", "create", "--workspace", ws, "--name", "Z", "--url", "u", "--channels", "nope"])).toEqual(
      Either.left("--channels must be channel ids (UUIDs), separated by commas.")
    )
    expect(parseAdminArgs(["webhook", "test", "--webhook", "nope"])).toEqual(Either.left("--webhook must be a webhook id (UUID)."))
  })
})
