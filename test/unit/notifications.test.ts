import { describe, expect, it } from "vitest"
import { billingEvents } from "../../domain/billing.js"
import { channelNamedBy, notificationFor, type EventForNotification } from "../../domain/notifications.js"

/** Spec: "Notification" (type success, fail or info; link a path inside the app), derived from events. */

const failed: EventForNotification = { event: "post.failed", data: { groupId: "g1", channelId: "c1", error: "The post is too long." } }

describe("notifications: which event makes which notification", () => {
  it("post.failed → fail, 'A post failed on <channel>', the error as body, the post as link", () => {
    expect(notificationFor(failed, "Brand on X")).toEqual({
      type: "fail",
      title: "A post failed on Brand on X",
      body: "The post is too long.",
      link: "/posts/g1"
    })
    expect(channelNamedBy(failed)).toBe("c1")
  })

  it("post.unconfirmed → fail, 'A post on <channel> could not be confirmed'", () => {
    const n = notificationFor({ event: "post.unconfirmed", data: { groupId: "g1", channelId: "c1", error: "No answer." } }, "Brand")
    expect(n).toEqual({ type: "fail", title: "A post on Brand could not be confirmed", body: "No answer.", link: "/posts/g1" })
  })

  it("post.published → success naming the channel and the live address", () => {
    const n = notificationFor({ event: "post.published", data: { groupId: "g1", channelId: "c1", releaseUrl: "https://x.com/1" } }, "Brand")
    expect(n).toMatchObject({ type: "success", title: "A post went live on Brand", link: "/posts/g1" })
    expect(n?.body).toContain("https://x.com/1")
  })

  it("approval.changes → info with the client's comment", () => {
    const n = notificationFor({ event: "approval.changes", data: { groupId: "g1", requestedBy: "Client Co", comment: "New logo" } }, undefined)
    expect(n).toEqual({ type: "info", title: "Client Co asked for changes", body: "New logo", link: "/posts/g1" })
  })

  it("channel.disconnected → fail naming the channel", () => {
    const n = notificationFor({ event: "channel.disconnected", data: { channelId: "c1", name: "Brand on X" } }, undefined)
    expect(n).toMatchObject({ type: "fail", title: "Brand on X was disconnected", link: "/channels/c1" })
  })

  it("channel.expiring → info naming the channel and when its sign-in expires", () => {
    const expiresAt = new Date("2030-01-02T03:04:05.000Z")
    const n = notificationFor({ event: "channel.expiring", data: { channelId: "c1", name: "Brand on LinkedIn", expiresAt } }, undefined)
    expect(n).toMatchObject({ type: "info", title: "Brand on LinkedIn's sign-in expires soon", link: "/channels/c1" })
    expect(n?.body).toContain("2030-01-02T03:04:05.000Z")
  })

  it("approval.requested, approval.approved and test make none", () => {
    for (const event of ["approval.requested", "approval.approved", "test"] as const) {
      expect(notificationFor({ event, data: {} }, undefined)).toBeNull()
    }
  })

  it("billing.changed: past_due and grace_over → fail, grace_reminder and ended → info, the others none", () => {
    const types = Object.fromEntries(
      billingEvents.map((event) => [event, notificationFor({ event: "billing.changed", data: { event } }, undefined)?.type ?? null])
    )
    expect(types).toEqual({
      activated: null,
      changed: null,
      renewed: null,
      trial_plan: null,
      downgrade_scheduled: null,
      change_canceled: null,
      cancel_scheduled: null,
      resumed: null,
      past_due: "fail",
      grace_reminder: "info",
      grace_over: "fail",
      ended: "info"
    })
  })

  it("a channel removed meanwhile still gets a readable title", () => {
    expect(notificationFor(failed, undefined)?.title).toBe("A post failed on a channel that was removed")
  })

  it("every link is a path inside the app", () => {
    const links = [notificationFor(failed, "B"), notificationFor({ event: "billing.changed", data: { event: "ended" } }, undefined)].map(
      (n) => n?.link
    )
    for (const link of links) expect(link).toMatch(/^\/[a-z]/)
  })
})
