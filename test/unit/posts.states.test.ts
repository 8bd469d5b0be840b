import { statusOf } from "../../protocol/http/errors.js"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  afterAttempt,
  type ApprovalStatus,
  approve,
  channelStatuses,
  type ChannelStatus,
  create,
  edit,
  legacyState,
  linkRelease,
  moveDate,
  type PostSnapshot,
  type PostStep,
  remove,
  removedWithChannel,
  requestChanges,
  retry,
  setStatus,
  wholePostStatus,
  type WholePostStatus
} from "../../domain/posts/states.js"

const now = new Date("2025-06-01T12:00:00.000Z")
const future = new Date("2025-06-03T08:00:00.000Z")
const past = new Date("2025-05-30T08:00:00.000Z")

const snapshot = (statuses: ReadonlyArray<ChannelStatus>, options: { approval?: ApprovalStatus | null; publishAt?: Date } = {}): PostSnapshot => ({
  publishAt: options.publishAt ?? future,
  approval: options.approval ?? null,
  channels: statuses.map((status, i) => ({ channelId: `c${i + 1}`, status }))
})

const right = (result: Either.Either<PostStep, { readonly error: string }>): PostStep => {
  if (Either.isLeft(result)) throw new Error(`expected a step, got: ${result.left.error}`)
  return result.right
}

const statusesAfter = (step: PostStep) => step.channels.map((c) => c.to)

const legacyStates = [
  ["draft", "DRAFT"],
  ["queued", "QUEUE"],
  ["publishing", "QUEUE"],
  ["pending", "QUEUE"],
  ["published", "PUBLISHED"],
  ["error", "ERROR"],
  ["unconfirmed", "ERROR"]
] as const

describe("states: legacy state of a channel status", () => {
  it.each(legacyStates)("%s → %s", (status, state) => {
    expect(legacyState(status)).toBe(state)
  })

  it("the table above names every channel status the domain has, each once", () => {
    expect(legacyStates.map(([status]) => status).sort()).toEqual([...channelStatuses].sort())
  })
})

describe("states: whole-post status", () => {
  it.each<[ReadonlyArray<ChannelStatus>, ApprovalStatus | null, WholePostStatus]>([
    [["draft", "draft"], null, "draft"],
    [["draft"], "requested", "review"],
    [["draft"], "changes", "changes"],
    [["queued", "queued"], "approved", "scheduled"],
    [["queued", "publishing", "pending"], null, "scheduled"],
    [["published", "queued"], null, "scheduled"],
    [["published", "published"], null, "published"],
    [["published", "error"], null, "partial"],
    [["published", "unconfirmed"], null, "partial"],
    [["error", "queued"], null, "error"],
    [["unconfirmed"], null, "error"],
    [["published", "draft"], null, "partial"],
    [[], null, "draft"]
  ])("%j with approval %s is %s", (channels, approval, status) => {
    expect(wholePostStatus(channels, approval)).toBe(status)
  })
})

describe("states: POST /posts creates a post", () => {
  const input = { date: future, now, channelIds: ["c1", "c2"], approvalRequired: false, actor: "API" }

  it("type draft: channels draft, no publish", () => {
    const step = create({ ...input, type: "draft" })
    expect(step).toMatchObject({ status: "draft", approval: null, events: [] })
    expect(step.channels).toEqual([
      { channelId: "c1", from: null, to: "draft", publishAt: future, dueAt: null },
      { channelId: "c2", from: null, to: "draft", publishAt: future, dueAt: null }
    ])
    expect(step.activity).toEqual([{ actor: "API", action: "created", detail: null }])
  })

  it("type schedule, no approval: channels queued at date", () => {
    const step = create({ ...input, type: "schedule" })
    expect(step).toMatchObject({ status: "scheduled", approval: null, publishAt: future, events: [] })
    expect(step.channels.map((c) => [c.to, c.dueAt])).toEqual([
      ["queued", future],
      ["queued", future]
    ])
  })

  it("type schedule, a customer with approval on: treated as review", () => {
    const step = create({ ...input, type: "schedule", approvalRequired: true })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(statusesAfter(step)).toEqual(["draft", "draft"])
    expect(step.events).toEqual([{ name: "approval.requested", requestedBy: "API" }])
  })

  it("type review: whole post review, approval.requested", () => {
    const step = create({ ...input, type: "review" })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(statusesAfter(step)).toEqual(["draft", "draft"])
    expect(step.events).toEqual([{ name: "approval.requested", requestedBy: "API" }])
  })

  it("type now: queued at once, the date is ignored", () => {
    const step = create({ ...input, type: "now", date: now })
    expect(step).toMatchObject({ status: "scheduled", publishAt: now })
    expect(step.channels.map((c) => [c.to, c.dueAt])).toEqual([
      ["queued", now],
      ["queued", now]
    ])
  })

  it("a schedule time within the past minute is due now", () => {
    const justPast = new Date(now.getTime() - 30_000)
    expect(create({ ...input, type: "schedule", date: justPast }).channels[0]?.dueAt).toEqual(now)
  })
})

describe("states: the worker's outcomes", () => {
  it.each(["queued", "publishing", "pending"] as const)("%s, published → published, post.published", (from) => {
    const step = afterAttempt(snapshot([from, "queued"]), "c1", { kind: "published", releaseUrl: "https://n.example/1" })
    expect(statusesAfter(step)).toEqual(["published", "queued"])
    expect(step.events).toEqual([{ name: "post.published", channelId: "c1" }])
    expect(step.activity).toEqual([{ actor: "System", action: "published", detail: "https://n.example/1" }])
  })

  it("queued, the network rejects → error, post.failed (its fail notification follows from it), activity failed", () => {
    const step = afterAttempt(snapshot(["queued"]), "c1", { kind: "rejected", error: "Too long", fix: "Shorten it" })
    expect(statusesAfter(step)).toEqual(["error"])
    expect(step.status).toBe("error")
    expect(step.events).toEqual([{ name: "post.failed", channelId: "c1", error: "Too long", fix: "Shorten it" }])
    expect(step.activity).toEqual([{ actor: "System", action: "failed", detail: "Too long" }])
  })

  it.each(["queued", "publishing"] as const)("%s, no answer and the search cannot tell → unconfirmed", (from) => {
    const step = afterAttempt(snapshot([from]), "c1", { kind: "unconfirmed", error: "No answer", fix: "Check" })
    expect(statusesAfter(step)).toEqual(["unconfirmed"])
    expect(step.events).toEqual([{ name: "post.unconfirmed", channelId: "c1", error: "No answer", fix: "Check" }])
  })

  it("unconfirmed, then the network's real answer arrives late → published, one post.published", () => {
    const step = afterAttempt(snapshot(["unconfirmed"]), "c1", { kind: "published" })
    expect(statusesAfter(step)).toEqual(["published"])
    expect(step.status).toBe("published")
    expect(step.events).toEqual([{ name: "post.published", channelId: "c1" }])
  })

  it.each(["draft", "published", "error"] as const)("a channel that is %s does not move and causes nothing (no second post.published)", (from) => {
    const step = afterAttempt(snapshot([from]), "c1", { kind: "published" })
    expect(statusesAfter(step)).toEqual([from])
    expect(step.events).toEqual([])
  })
})

/**
 * The spec's Transitions table, per trigger, for a channel in each status.
 * Columns: draft, queued, publishing, pending, published, error, unconfirmed.
 */
const table: ReadonlyArray<[string, (s: PostSnapshot) => PostStep, ReadonlyArray<ChannelStatus | null>]> = [
  [
    "PUT /posts/{id}/date",
    (s) => right(moveDate(s, { date: future, now, approvalRequired: false, actor: "API" })),
    ["queued", "queued", "publishing", "pending", "published", "queued", "unconfirmed"]
  ],
  [
    "PUT /posts/{id}/status draft",
    (s) => setStatus(s, { status: "draft", now, approvalRequired: false, actor: "API" }),
    ["draft", "draft", "publishing", "pending", "published", "draft", "unconfirmed"]
  ],
  [
    "PUT /posts/{id}/status schedule",
    (s) => setStatus(s, { status: "schedule", now, approvalRequired: false, actor: "API" }),
    ["queued", "queued", "publishing", "pending", "published", "error", "unconfirmed"]
  ],
  [
    "POST /posts with groupId (edit, type schedule)",
    (s) => edit(s, { type: "schedule", date: null, now, channelIds: ["c1"], approvalRequired: false, actor: "API" }),
    ["queued", "queued", "publishing", "pending", "published", "queued", "unconfirmed"]
  ],
  ["DELETE /posts/{id}", (s) => remove(s, { actor: "API" }), [null, null, null, null, null, null, null]]
]

describe("states: the transitions table, channel by channel", () => {
  for (const [trigger, apply, expected] of table) {
    describe(trigger, () => {
      it.each(channelStatuses.map((from, i) => [from, expected[i]] as const))("%s → %s", (from, to) => {
        expect(apply(snapshot([from])).channels[0]?.to).toBe(to)
      })
    })
  }
})

describe("states: PUT /posts/{id}/date", () => {
  it("queues draft, queued and failed channels at the new time; published stay", () => {
    const step = right(
      moveDate(snapshot(["draft", "queued", "error", "published"]), {
        date: future,
        now,
        approvalRequired: false,
        actor: "API"
      })
    )
    expect(step.channels.map((c) => [c.to, c.publishAt, c.dueAt])).toEqual([
      ["queued", future, future],
      ["queued", future, future],
      ["queued", future, future],
      ["published", null, null]
    ])
    expect(step.publishAt).toEqual(future)
    expect(step.needsRuleCheck).toEqual(["c1"])
    expect(step.activity).toEqual([{ actor: "API", action: "rescheduled", detail: future.toISOString() }])
  })

  it("refuses a date more than 1 minute in the past", () => {
    const result = moveDate(snapshot(["queued"]), { date: new Date(now.getTime() - 61_000), now, approvalRequired: false, actor: "API" })
    expect(Either.isLeft(result) && { ...result.left, status: statusOf(result.left) }).toMatchObject({
      status: 400,
      error: "The date is in the past. Use a time from now on."
    })
  })

  it("accepts a date within the past minute, due now", () => {
    const justPast = new Date(now.getTime() - 59_000)
    const step = right(moveDate(snapshot(["queued"]), { date: justPast, now, approvalRequired: false, actor: "API" }))
    expect(step.channels[0]).toMatchObject({ to: "queued", publishAt: justPast, dueAt: now })
  })

  it.each<[string, ApprovalStatus | null, boolean]>([
    ["waiting for approval", "requested", false],
    ["with changes asked", "changes", false],
    ["on a customer with approval on, not approved yet", null, true]
  ])("only moves drafts of a post %s", (_, approval, approvalRequired) => {
    const step = right(moveDate(snapshot(["draft"], { approval }), { date: future, now, approvalRequired, actor: "API" }))
    expect(step.channels[0]).toMatchObject({ to: "draft", publishAt: future, dueAt: null })
  })
})

describe("states: PUT /posts/{id}/status", () => {
  it("draft keeps queued and failed channels as drafts and takes the post back from review", () => {
    const step = setStatus(snapshot(["draft"], { approval: "requested" }), { status: "draft", now, approvalRequired: true, actor: "API" })
    expect(step).toMatchObject({ status: "draft", approval: null })
  })

  it("schedule queues drafts for the post time and asks for the rule check", () => {
    const step = setStatus(snapshot(["draft", "draft"]), { status: "schedule", now, approvalRequired: false, actor: "API" })
    expect(step.channels.map((c) => [c.to, c.dueAt])).toEqual([
      ["queued", future],
      ["queued", future]
    ])
    expect(step.needsRuleCheck).toEqual(["c1", "c2"])
    expect(step.status).toBe("scheduled")
  })

  it("schedule queues drafts now when the post time has passed", () => {
    const step = setStatus(snapshot(["draft"], { publishAt: past }), { status: "schedule", now, approvalRequired: false, actor: "API" })
    expect(step.channels[0]).toMatchObject({ to: "queued", dueAt: now })
  })

  it("schedule on a customer with approval on sends the post to review", () => {
    const step = setStatus(snapshot(["draft"]), { status: "schedule", now, approvalRequired: true, actor: "API" })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(step.events).toEqual([{ name: "approval.requested", requestedBy: "API" }])
  })

  it("schedule on a post with changes asked sends it to review again", () => {
    const step = setStatus(snapshot(["draft"], { approval: "changes" }), { status: "schedule", now, approvalRequired: false, actor: "API" })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(step.events).toHaveLength(1)
  })

  it("schedule on a post already in review changes nothing and asks no second time", () => {
    const step = setStatus(snapshot(["draft"], { approval: "requested" }), { status: "schedule", now, approvalRequired: true, actor: "API" })
    expect(step).toMatchObject({ status: "review", events: [], activity: [] })
  })

  it("schedule on an approved post queues it", () => {
    const step = setStatus(snapshot(["draft"], { approval: "approved" }), { status: "schedule", now, approvalRequired: true, actor: "API" })
    expect(step.channels[0]?.to).toBe("queued")
  })
})

describe("states: POST /posts with groupId (edit)", () => {
  const base = { type: "schedule", date: null, now, approvalRequired: false, actor: "API" } as const

  it("keeps published and publishing channels; edits the others", () => {
    const step = edit(snapshot(["published", "publishing", "queued"]), { ...base, channelIds: ["c1", "c2", "c3"] })
    expect(step.channels.map((c) => [c.from, c.to])).toEqual([
      ["published", "published"],
      ["publishing", "publishing"],
      ["queued", "queued"]
    ])
    expect(step.activity).toEqual([{ actor: "API", action: "edited", detail: null }])
  })

  it("keeps the post time when the body gives no date, and moves it when it does", () => {
    expect(edit(snapshot(["queued"]), { ...base, channelIds: ["c1"] }).publishAt).toEqual(future)
    const later = new Date("2025-07-01T00:00:00Z")
    expect(edit(snapshot(["queued"]), { ...base, date: later, channelIds: ["c1"] }).channels[0]).toMatchObject({
      publishAt: later,
      dueAt: later
    })
  })

  it("adds channels new to the body and removes the ones left out", () => {
    const step = edit(snapshot(["queued", "draft"]), { ...base, channelIds: ["c1", "c3"] })
    expect(step.channels.map((c) => [c.channelId, c.from, c.to])).toEqual([
      ["c1", "queued", "queued"],
      ["c2", "draft", null],
      ["c3", null, "queued"]
    ])
  })

  it("a post with changes asked goes to review again", () => {
    const step = edit(snapshot(["draft"], { approval: "changes" }), { ...base, channelIds: ["c1"] })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(step.events).toEqual([{ name: "approval.requested", requestedBy: "API" }])
  })

  it("an approved post on a customer with approval on goes to review again", () => {
    const step = edit(snapshot(["queued"], { approval: "approved" }), { ...base, channelIds: ["c1"], approvalRequired: true })
    expect(step).toMatchObject({ status: "review", approval: "requested" })
    expect(statusesAfter(step)).toEqual(["draft"])
  })

  it("type draft takes the post out of the approval flow", () => {
    const step = edit(snapshot(["draft"], { approval: "requested" }), { ...base, type: "draft", channelIds: ["c1"] })
    expect(step).toMatchObject({ status: "draft", approval: null, events: [] })
  })
})

describe("states: DELETE", () => {
  it("removes the post on all channels", () => {
    const step = remove(snapshot(["queued", "published"]), { actor: "API" })
    expect(step.channels.map((c) => [c.from, c.to])).toEqual([
      ["queued", null],
      ["published", null]
    ])
    expect(step.activity).toEqual([{ actor: "API", action: "deleted", detail: null }])
  })

  it.each(channelStatuses.map((s) => [s, ["draft", "queued", "error", "unconfirmed"].includes(s)] as const))(
    "DELETE /integrations/{id}: a %s post of the channel is deleted: %s",
    (status, deleted) => {
      expect(removedWithChannel.includes(status)).toBe(deleted)
    }
  )
})

describe("states: approval", () => {
  it("approve: review → channels queued at the post time, whole post scheduled, approval.approved", () => {
    const step = right(approve(snapshot(["draft", "draft"], { approval: "requested" }), { now, approvedBy: "Client Ann" }))
    expect(step).toMatchObject({ status: "scheduled", approval: "approved" })
    expect(step.channels.map((c) => [c.to, c.dueAt])).toEqual([
      ["queued", future],
      ["queued", future]
    ])
    expect(step.events).toEqual([{ name: "approval.approved", approvedBy: "Client Ann" }])
    expect(step.activity).toEqual([{ actor: "Client Ann", action: "approved", detail: null }])
  })

  it("approve after the post time: queued now", () => {
    const step = right(approve(snapshot(["draft"], { approval: "requested", publishAt: past }), { now, approvedBy: "Ann" }))
    expect(step.channels[0]?.dueAt).toEqual(now)
  })

  it("request changes: whole post changes, channels stay drafts, approval.changes with the comment", () => {
    const step = right(
      requestChanges(snapshot(["draft"], { approval: "requested" }), {
        comment: "Use the new logo",
        requestedBy: "Client Ann"
      })
    )
    expect(step).toMatchObject({ status: "changes", approval: "changes" })
    expect(statusesAfter(step)).toEqual(["draft"])
    expect(step.events).toEqual([{ name: "approval.changes", requestedBy: "Client Ann", comment: "Use the new logo" }])
    expect(step.activity).toEqual([{ actor: "Client Ann", action: "changes requested", detail: "Use the new logo" }])
  })

  it.each<ApprovalStatus | null>([null, "approved", "changes"])("a post with approval %s is not waiting", (approval) => {
    const current = snapshot(["draft"], { approval })
    const expected = { status: 400, error: "This post is not waiting for approval." }
    const approved = approve(current, { now, approvedBy: "Ann" })
    const changes = requestChanges(current, { comment: "x", requestedBy: "Ann" })
    expect(Either.isLeft(approved) && { ...approved.left, status: statusOf(approved.left) }).toMatchObject(expected)
    expect(Either.isLeft(changes) && { ...changes.left, status: statusOf(changes.left) }).toMatchObject(expected)
  })
})

describe("states: POST /posts/{id}/retry (error, unconfirmed → queued now)", () => {
  it.each<[ReadonlyArray<ChannelStatus>, ReadonlyArray<ChannelStatus | null>]>([
    [["error"], ["queued"]],
    [["unconfirmed"], ["queued"]],
    [
      ["published", "error"],
      ["published", "queued"]
    ],
    [
      ["draft", "queued", "publishing", "pending", "published"],
      ["draft", "queued", "publishing", "pending", "published"]
    ]
  ])("%j → %j", (from, to) => {
    const step = retry(snapshot(from), { now, actor: "API", failedFollowUps: 0 })
    expect(statusesAfter(step)).toEqual(to)
    for (const c of step.channels) if (c.from !== c.to) expect(c.dueAt).toEqual(now)
  })

  it("writes `retried` only when something is retried (a channel, or a failed follow-up of a live one)", () => {
    expect(retry(snapshot(["published"]), { now, actor: "API", failedFollowUps: 0 }).activity).toEqual([])
    expect(retry(snapshot(["published"]), { now, actor: "API", failedFollowUps: 1 }).activity.map((a) => a.action)).toEqual(["retried"])
    expect(retry(snapshot(["error"]), { now, actor: "API", failedFollowUps: 0 }).status).toBe("scheduled")
  })
})

describe("states: PUT /posts/{id}/release-id (any channel → published)", () => {
  it.each<[ChannelStatus, boolean]>([
    ["unconfirmed", true],
    ["error", true],
    ["queued", true],
    ["publishing", true],
    ["draft", true],
    ["published", false]
  ])("%s → published; post.published: %s", (from, event) => {
    const step = linkRelease(snapshot([from, "published"]), "c1", { actor: "API", releaseId: "r1" })
    expect(statusesAfter(step)).toEqual(["published", "published"])
    expect(step.activity).toEqual([{ actor: "API", action: "linked live post", detail: "r1" }])
    expect(step.events).toEqual(event ? [{ name: "post.published", channelId: "c1" }] : [])
    expect(step.status).toBe("published")
  })

  it("only the named channel moves; the whole post is partial while another failed", () => {
    const step = linkRelease(snapshot(["unconfirmed", "error"]), "c1", { actor: "API", releaseId: "r1" })
    expect(statusesAfter(step)).toEqual(["published", "error"])
    expect(step.status).toBe("partial")
  })
})
