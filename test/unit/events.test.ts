import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { EventMessage, EventMessageJson, eventNames, isSubscribableEvent, ServiceEvent, TEST_EVENT, type EventName } from "../../protocol/events.js"

/** Spec: Events → "The 8 events" (data fields), and the Send Test action's `test`. */

const at = new Date("2030-01-02T03:04:05.000Z")

/** One sample per event, with exactly the spec's data fields. */
const samples: { readonly [N in EventName]: { readonly event: N; readonly data: Record<string, unknown>; readonly fields: ReadonlyArray<string> } } =
  {
    "post.published": {
      event: "post.published",
      data: {
        postId: "p1",
        content: "Hello",
        groupId: "g1",
        provider: "x",
        channelId: "c1",
        releaseId: "r1",
        releaseUrl: "https://x.com/r1",
        publishedAt: at
      },
      fields: ["postId", "content", "groupId", "provider", "channelId", "releaseId", "releaseUrl", "publishedAt"]
    },
    "post.failed": {
      event: "post.failed",
      data: { fix: "Shorten it.", error: "Too long.", postId: "p1", groupId: "g1", provider: "x", channelId: "c1" },
      fields: ["fix", "error", "postId", "groupId", "provider", "channelId"]
    },
    "post.unconfirmed": {
      event: "post.unconfirmed",
      data: { fix: "Check the channel.", error: "No answer.", postId: "p1", groupId: "g1", provider: "x", channelId: "c1" },
      fields: ["fix", "error", "postId", "groupId", "provider", "channelId"]
    },
    "approval.requested": {
      event: "approval.requested",
      data: {
        groupId: "g1",
        publishAt: at,
        channelIds: ["c1", "c2"],
        previewUrl: "https://app/p/t",
        requestedBy: "API",
        approvalStatus: "requested"
      },
      fields: ["groupId", "publishAt", "channelIds", "previewUrl", "requestedBy", "approvalStatus"]
    },
    "approval.approved": {
      event: "approval.approved",
      data: { groupId: "g1", publishAt: at, approvedBy: "Client Co", channelIds: ["c1"], previewUrl: "https://app/p/t", approvalStatus: "approved" },
      fields: ["groupId", "publishAt", "approvedBy", "channelIds", "previewUrl", "approvalStatus"]
    },
    "approval.changes": {
      event: "approval.changes",
      data: {
        comment: "New logo",
        groupId: "g1",
        publishAt: at,
        channelIds: ["c1"],
        previewUrl: "https://app/p/t",
        requestedBy: "Client Co",
        approvalStatus: "changes"
      },
      fields: ["comment", "groupId", "publishAt", "channelIds", "previewUrl", "requestedBy", "approvalStatus"]
    },
    "channel.disconnected": {
      event: "channel.disconnected",
      data: { channelId: "c1", provider: "x", name: "Brand on X" },
      fields: ["channelId", "provider", "name"]
    },
    "channel.expiring": {
      event: "channel.expiring",
      data: { channelId: "c1", provider: "linkedin", name: "Brand on LinkedIn", expiresAt: at },
      fields: ["channelId", "provider", "name", "expiresAt"]
    },
    "billing.changed": {
      event: "billing.changed",
      data: { plan: "team", test: false, event: "renewed", amount: 29, period: "monthly", currency: "usd", periodEnd: at },
      fields: ["plan", "test", "event", "amount", "period", "currency", "periodEnd"]
    },
    test: { event: "test", data: { message: "This is a test delivery." }, fields: ["message"] }
  }

const encode = Schema.encodeUnknownEither(ServiceEvent)
const decode = Schema.decodeUnknownEither(ServiceEvent)

describe("protocol/events: the spec's events", () => {
  it("names: exactly the spec's 8 events then channel.expiring (beyond the spec), and test is not one of them", () => {
    expect([...eventNames]).toEqual([
      "post.published",
      "post.failed",
      "post.unconfirmed",
      "approval.requested",
      "approval.approved",
      "approval.changes",
      "channel.disconnected",
      "billing.changed",
      "channel.expiring"
    ])
    expect(TEST_EVENT).toBe("test")
    expect(isSubscribableEvent("test")).toBe(false)
    expect(eventNames.every(isSubscribableEvent)).toBe(true)
    expect(Object.keys(samples).sort()).toEqual([...eventNames, TEST_EVENT].sort())
  })

  for (const sample of Object.values(samples)) {
    it(`${sample.event}: encodes to JSON with exactly its data fields and decodes back`, () => {
      const encoded = encode({ event: sample.event, data: sample.data })
      if (Either.isLeft(encoded)) throw new Error(String(encoded.left))
      const wire = JSON.parse(JSON.stringify(encoded.right))
      expect(Object.keys(wire.data).sort()).toEqual([...sample.fields].sort())
      const decoded = decode(wire)
      if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
      expect(decoded.right).toEqual({ event: sample.event, data: sample.data })
    })
  }

  it("timestamps are UTC ISO strings in the payload", () => {
    const encoded = Schema.encodeSync(ServiceEvent)({ event: "post.published", data: samples["post.published"].data } as never)
    expect((encoded.data as { publishedAt: string }).publishedAt).toBe("2030-01-02T03:04:05.000Z")
  })

  it("billing.changed: amount, period, currency and periodEnd may be missing or null", () => {
    const minimal = { event: "billing.changed", data: { plan: "standard", test: true, event: "cancel_scheduled" } }
    expect(Either.isRight(decode(minimal))).toBe(true)
    expect(Either.getOrThrow(encode(minimal))).toEqual(minimal)
    expect(Either.isRight(decode({ ...minimal, data: { ...minimal.data, amount: null, period: null, currency: null, periodEnd: null } }))).toBe(true)
  })

  it("a payload that does not fit its event is refused", () => {
    expect(Either.isLeft(encode({ event: "post.failed", data: { error: "x", postId: "p" } }))).toBe(true)
    expect(Either.isLeft(encode({ event: "approval.requested", data: { ...samples["approval.changes"].data } }))).toBe(true)
    expect(Either.isLeft(encode({ event: "billing.changed", data: { plan: "standard", test: true, event: "refunded" } }))).toBe(true)
    expect(Either.isLeft(decode({ event: "post.exploded", data: {} }))).toBe(true)
  })

  it("EventMessage: what travels on EVENTS decodes with the event's data", () => {
    const text = JSON.stringify({
      id: "0b6f0f7e-7d0c-4c4f-9b53-1c1c2a0b9c11",
      workspaceId: "w1",
      event: "approval.requested",
      data: {
        groupId: "g1",
        publishAt: at.toISOString(),
        channelIds: ["c1"],
        previewUrl: "https://app/p/t",
        requestedBy: "API",
        approvalStatus: "requested"
      },
      createdAt: at.toISOString()
    })
    const message = Schema.decodeUnknownSync(EventMessageJson)(text)
    expect(message.event).toBe("approval.requested")
    if (message.event === "approval.requested") expect(message.data.publishAt).toEqual(at)
    expect(Schema.encodeSync(EventMessage)(message)).toEqual(JSON.parse(text))
  })
})
