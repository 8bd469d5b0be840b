import { Either } from "effect"
import { Errors, type InvalidRequest } from "../errors.js"
import { dueTime, isTooFarInPast } from "./dates.js"
import { PostMessages } from "./messages.js"
import type { PostType } from "./normalizedPost.js"

/**
 * The state machine of a post (spec "States and transitions"), as data and pure functions.
 * Given a post's current state and a trigger, each function returns the next state and
 * what the change causes (activity entries and events; the notifications follow from the
 * events in domain/notifications.ts). Services store the result; they do not decide
 * transitions themselves.
 *
 * Approval, where the spec leaves it open ("Post status after an approval or a change
 * request: not shown"):
 * - A post waiting for approval (`review`) keeps its channels as drafts, so nothing can
 *   publish before the client has said yes.
 * - Approved: its draft channels are queued for the post time (now if that has passed);
 *   the whole post is `scheduled` and approvalStatus `approved`.
 * - Changes requested: channels stay drafts; the whole post is `changes`. Editing it with
 *   POST /posts and `groupId` (type schedule or review), or PUT status `schedule`, sends
 *   it to review again (a new `approval.requested`).
 */

// ---- Statuses -----------------------------------------------------------------------------

/** Spec "Channel post states": the exact `status` of one channel's post. */
export const channelStatuses = ["draft", "queued", "publishing", "pending", "published", "error", "unconfirmed"] as const
export type ChannelStatus = (typeof channelStatuses)[number]

/** The reference API's `state` of a Post row. */
export type LegacyState = "DRAFT" | "QUEUE" | "PUBLISHED" | "ERROR"

/** Spec: draft → DRAFT; queued, publishing, pending → QUEUE; published → PUBLISHED; error, unconfirmed → ERROR. */
export const legacyStates: { readonly [S in ChannelStatus]: LegacyState } = {
  draft: "DRAFT",
  queued: "QUEUE",
  publishing: "QUEUE",
  pending: "QUEUE",
  published: "PUBLISHED",
  error: "ERROR",
  unconfirmed: "ERROR"
}

export const legacyState = (status: ChannelStatus): LegacyState => legacyStates[status]

/** Spec "Whole-post status". */
export const wholePostStatuses = ["draft", "review", "scheduled", "changes", "published", "partial", "error"] as const
export type WholePostStatus = (typeof wholePostStatuses)[number]

/** approvalStatus of a whole post; null when no approval is involved. */
export type ApprovalStatus = "requested" | "approved" | "changes"

/**
 * The whole-post status from its channels and approval: answers derive it from the
 * channels as they are at that moment (services/posts/render.ts), so no change (an edit,
 * a deleted channel, a worker's outcome) can leave it stale. Order matters: a post waiting
 * on its client shows that first; a failure shows before anything still to come, because
 * it needs a person; channels still to go out read `scheduled`; live channels next to
 * drafts read `partial` (something is live, not everything; a person must schedule the rest).
 */
export const wholePostStatus = (channels: ReadonlyArray<ChannelStatus>, approval: ApprovalStatus | null): WholePostStatus => {
  const has = (...statuses: ReadonlyArray<ChannelStatus>) => channels.some((c) => statuses.includes(c))
  if (channels.length === 0) return "draft"
  if (approval === "requested" && has("draft")) return "review"
  if (approval === "changes" && has("draft")) return "changes"
  if (has("error", "unconfirmed")) return has("published") ? "partial" : "error"
  if (channels.every((c) => c === "published")) return "published"
  if (has("queued", "publishing", "pending")) return "scheduled"
  return has("published") ? "partial" : "draft"
}

// ---- The transition table -----------------------------------------------------------------

type Moves = Partial<Record<ChannelStatus, ChannelStatus>>

/**
 * Spec "Transitions", per trigger: the channel statuses that move and where they go.
 * A status not listed for a trigger stays as it is.
 */
export const channelMoves = {
  /** PUT /posts/{id}/date: draft, queued, error → queued at the new time. */
  moveDate: { draft: "queued", queued: "queued", error: "queued" },
  /** PUT /posts/{id}/status `draft`. */
  toDraft: { queued: "draft", error: "draft" },
  /** PUT /posts/{id}/status `schedule`. */
  schedule: { draft: "queued" },
  /** Client or admin approves. */
  approve: { draft: "queued" },
  /**
   * Worker: the network took the post, or a search after no answer found it. A real answer
   * that comes after a search already said `unconfirmed` wins: the post is live.
   */
  published: { queued: "published", publishing: "published", pending: "published", unconfirmed: "published" },
  /** Worker: the network refused the post; not retried on its own. */
  rejected: { queued: "error", publishing: "error", pending: "error" },
  /** Worker: no answer and the search cannot tell; nothing is sent again. */
  unconfirmed: { queued: "unconfirmed", publishing: "unconfirmed", pending: "unconfirmed" },
  /** POST /posts/{id}/retry: failed and unconfirmed channels are queued now (an unconfirmed one searches first). */
  retry: { error: "queued", unconfirmed: "queued" },
  /** PUT /posts/{id}/release-id: the channel's post is live with the given id, whatever it was doing. */
  linkRelease: {
    draft: "published",
    queued: "published",
    publishing: "published",
    pending: "published",
    error: "published",
    unconfirmed: "published"
  }
} as const satisfies Record<string, Moves>

export type ChannelTrigger = keyof typeof channelMoves

/**
 * POST /posts with groupId leaves these channels as they are. The spec names published and
 * publishing; pending (the network has it) and unconfirmed (it may be live) are kept too,
 * because queuing them again could post twice.
 */
export const keptOnEdit: ReadonlyArray<ChannelStatus> = ["published", "publishing", "pending", "unconfirmed"]

/** DELETE /integrations/{id}: the channel's posts in these statuses are deleted; live ones stay. */
export const removedWithChannel: ReadonlyArray<ChannelStatus> = ["draft", "queued", "error", "unconfirmed"]

// ---- Post state and what a transition returns ----------------------------------------------

export interface ChannelPost {
  readonly channelId: string
  readonly status: ChannelStatus
}

/** What the transitions need to know about a stored post. */
export interface PostSnapshot {
  readonly publishAt: Date
  readonly approval: ApprovalStatus | null
  readonly channels: ReadonlyArray<ChannelPost>
}

/** One channel's part of a transition. */
export interface ChannelStep {
  readonly channelId: string
  /** null: the channel is new to the post. */
  readonly from: ChannelStatus | null
  /** null: the channel's post is removed. */
  readonly to: ChannelStatus | null
  /** The channel's new post time, when this step changes it. */
  readonly publishAt: Date | null
  /** When the channel's first item becomes due, when this step queues it. */
  readonly dueAt: Date | null
}

/** A line of the post's history (`activity`). */
export interface ActivityEntry {
  readonly actor: string
  readonly action: string
  readonly detail: string | null
}

/** Events to write to the outbox; the service adds the spec's payload fields (groupId, previewUrl, …). */
export type PostEvent =
  | { readonly name: "approval.requested"; readonly requestedBy: string }
  | { readonly name: "approval.approved"; readonly approvedBy: string }
  | { readonly name: "approval.changes"; readonly requestedBy: string; readonly comment: string }
  | { readonly name: "post.published"; readonly channelId: string }
  | { readonly name: "post.failed"; readonly channelId: string; readonly error: string; readonly fix: string }
  | { readonly name: "post.unconfirmed"; readonly channelId: string; readonly error: string; readonly fix: string }

export interface PostStep {
  readonly status: WholePostStatus
  readonly approval: ApprovalStatus | null
  readonly publishAt: Date
  /** Every channel of the post, changed or not. */
  readonly channels: ReadonlyArray<ChannelStep>
  readonly activity: ReadonlyArray<ActivityEntry>
  readonly events: ReadonlyArray<PostEvent>
  /** Channels going from draft to queued: the caller checks them against network rules first. */
  readonly needsRuleCheck: ReadonlyArray<string>
}

interface StepParts {
  readonly approval: ApprovalStatus | null
  readonly publishAt: Date
  readonly channels: ReadonlyArray<ChannelStep>
  readonly activity?: ReadonlyArray<ActivityEntry>
  readonly events?: ReadonlyArray<PostEvent>
}

const step = (parts: StepParts): PostStep => ({
  status: wholePostStatus(
    parts.channels.flatMap((c) => (c.to === null ? [] : [c.to])),
    parts.approval
  ),
  approval: parts.approval,
  publishAt: parts.publishAt,
  channels: parts.channels,
  activity: parts.activity ?? [],
  events: parts.events ?? [],
  needsRuleCheck: parts.channels.filter((c) => c.from === "draft" && c.to === "queued").map((c) => c.channelId)
})

const unchanged = (c: ChannelPost): ChannelStep => ({
  channelId: c.channelId,
  from: c.status,
  to: c.status,
  publishAt: null,
  dueAt: null
})

/** Applies one row of the table; `dueAt` is used when the channel ends up queued. */
const move = (moves: Moves, c: ChannelPost, dueAt: Date, publishAt: Date | null = null): ChannelStep => {
  const to = moves[c.status]
  if (to === undefined) return unchanged(c)
  return { channelId: c.channelId, from: c.status, to, publishAt, dueAt: to === "queued" ? dueAt : null }
}

const entry = (actor: string, action: string, detail: string | null = null): ActivityEntry => ({ actor, action, detail })

/** Drafts may be queued only when no client's yes is outstanding. */
const approvalGateOpen = (approval: ApprovalStatus | null, approvalRequired: boolean): boolean =>
  approval === "approved" || (approval === null && !approvalRequired)

const notWaiting = (): Either.Either<never, InvalidRequest> => Either.left(Errors.badRequest(PostMessages.notWaitingForApproval))

// ---- POST /posts: create and edit ---------------------------------------------------------

interface Plan {
  readonly to: "draft" | "queued"
  readonly approval: ApprovalStatus | null
  readonly publishAt: Date
  readonly dueAt: Date | null
}

/**
 * What a body's type makes of the post's channels. `schedule` goes to review when a
 * channel's customer has approval on, or when the post was already with its client
 * (an edit after "changes" is sent back for approval). `now` publishes at once; the
 * spec sends only `schedule` to review.
 */
const planFor = (type: PostType, publishAt: Date, now: Date, approvalRequired: boolean, previous: ApprovalStatus | null): Plan => {
  const review: Plan = { to: "draft", approval: "requested", publishAt, dueAt: null }
  const kept = previous === "approved" ? "approved" : null
  switch (type) {
    case "draft":
      return { to: "draft", approval: null, publishAt, dueAt: null }
    case "review":
      return review
    case "now":
      return { to: "queued", approval: kept, publishAt: now, dueAt: now }
    case "schedule":
      return approvalRequired || previous === "requested" || previous === "changes"
        ? review
        : { to: "queued", approval: kept, publishAt, dueAt: dueTime(publishAt, now) }
  }
}

const approvalRequestedBy = (plan: Plan, actor: string): ReadonlyArray<PostEvent> =>
  plan.approval === "requested" ? [{ name: "approval.requested", requestedBy: actor }] : []

export interface CreateInput {
  readonly type: PostType
  /** The body's date (already `now` for type now). */
  readonly date: Date
  readonly now: Date
  readonly channelIds: ReadonlyArray<string>
  /** A channel's customer has approval on. */
  readonly approvalRequired: boolean
  readonly actor: string
}

/** POST /posts without groupId: a new post on every channel of the body. */
export const create = (input: CreateInput): PostStep => {
  const plan = planFor(input.type, input.date, input.now, input.approvalRequired, null)
  return step({
    approval: plan.approval,
    publishAt: plan.publishAt,
    channels: input.channelIds.map((channelId) => ({
      channelId,
      from: null,
      to: plan.to,
      publishAt: plan.publishAt,
      dueAt: plan.dueAt
    })),
    activity: [entry(input.actor, "created")],
    events: approvalRequestedBy(plan, input.actor)
  })
}

export interface EditInput {
  readonly type: PostType
  /** The body's date, or null when it gave none: the post keeps its time. */
  readonly date: Date | null
  readonly now: Date
  readonly channelIds: ReadonlyArray<string>
  readonly approvalRequired: boolean
  readonly actor: string
}

/**
 * POST /posts with groupId: the body replaces the post. Channels that are live or on
 * their way (keptOnEdit) stay as they are; other channels missing from the body are removed.
 */
export const edit = (current: PostSnapshot, input: EditInput): PostStep => {
  const plan = planFor(input.type, input.date ?? current.publishAt, input.now, input.approvalRequired, current.approval)
  const replaced = (channelId: string, from: ChannelStatus | null): ChannelStep => ({
    channelId,
    from,
    to: plan.to,
    publishAt: plan.publishAt,
    dueAt: plan.dueAt
  })
  const existing = current.channels.map((c): ChannelStep => {
    if (keptOnEdit.includes(c.status)) return unchanged(c)
    if (input.channelIds.includes(c.channelId)) return replaced(c.channelId, c.status)
    return { channelId: c.channelId, from: c.status, to: null, publishAt: null, dueAt: null }
  })
  const added = input.channelIds.filter((id) => !current.channels.some((c) => c.channelId === id)).map((id) => replaced(id, null))
  return step({
    approval: plan.approval,
    publishAt: plan.publishAt,
    channels: [...existing, ...added],
    activity: [entry(input.actor, "edited")],
    events: approvalRequestedBy(plan, input.actor)
  })
}

// ---- PUT /posts/{id}/date -------------------------------------------------------------------

export interface MoveDateInput {
  readonly date: Date
  readonly now: Date
  readonly approvalRequired: boolean
  readonly actor: string
}

/**
 * Moves every draft, queued or failed channel to the new time and queues it (failed ones
 * are queued again); published and in-flight channels stay. While a client's approval is
 * outstanding, drafts only move: queuing them would publish without the client's yes.
 */
export const moveDate = (current: PostSnapshot, input: MoveDateInput): Either.Either<PostStep, InvalidRequest> => {
  if (isTooFarInPast(input.date, input.now)) return Either.left(Errors.badRequest(PostMessages.dateInPast))
  const gateOpen = approvalGateOpen(current.approval, input.approvalRequired)
  const dueAt = dueTime(input.date, input.now)
  return Either.right(
    step({
      approval: current.approval,
      publishAt: input.date,
      channels: current.channels.map((c) =>
        c.status === "draft" && !gateOpen ? { ...unchanged(c), publishAt: input.date } : move(channelMoves.moveDate, c, dueAt, input.date)
      ),
      activity: [entry(input.actor, "rescheduled", input.date.toISOString())]
    })
  )
}

// ---- PUT /posts/{id}/status -----------------------------------------------------------------

export interface SetStatusInput {
  readonly status: "draft" | "schedule"
  readonly now: Date
  readonly approvalRequired: boolean
  readonly actor: string
}

/**
 * `draft` stops queued and failed channels and keeps them as drafts; it also takes the post
 * back from its client (approval cleared). `schedule` queues the drafts for the post time,
 * or now when it has passed; when a client's yes is needed it sends the post to review.
 */
export const setStatus = (current: PostSnapshot, input: SetStatusInput): PostStep => {
  if (input.status === "draft") {
    return step({
      approval: null,
      publishAt: current.publishAt,
      channels: current.channels.map((c) => move(channelMoves.toDraft, c, input.now)),
      activity: [entry(input.actor, "moved to drafts")]
    })
  }
  const hasDrafts = current.channels.some((c) => c.status === "draft")
  if (!hasDrafts) return step({ approval: current.approval, publishAt: current.publishAt, channels: current.channels.map(unchanged) })
  if (!approvalGateOpen(current.approval, input.approvalRequired)) {
    const newRequest = current.approval !== "requested"
    return step({
      approval: "requested",
      publishAt: current.publishAt,
      channels: current.channels.map(unchanged),
      activity: newRequest ? [entry(input.actor, "sent for approval")] : [],
      events: newRequest ? [{ name: "approval.requested", requestedBy: input.actor }] : []
    })
  }
  return step({
    approval: current.approval,
    publishAt: current.publishAt,
    channels: current.channels.map((c) => move(channelMoves.schedule, c, dueTime(current.publishAt, input.now))),
    activity: [entry(input.actor, "scheduled")]
  })
}

// ---- DELETE /posts/{id}, DELETE /posts/group/{group} -----------------------------------------

/** Removes the post on every channel; queued ones never publish, live posts stay on the network. */
export const remove = (current: PostSnapshot, input: { readonly actor: string }): PostStep =>
  step({
    approval: current.approval,
    publishAt: current.publishAt,
    channels: current.channels.map((c) => ({ channelId: c.channelId, from: c.status, to: null, publishAt: null, dueAt: null })),
    activity: [entry(input.actor, "deleted")]
  })

// ---- Approval --------------------------------------------------------------------------------

/** The client or an admin approves a post in review: drafts are queued for its time (now if past). */
export const approve = (
  current: PostSnapshot,
  input: { readonly now: Date; readonly approvedBy: string }
): Either.Either<PostStep, InvalidRequest> => {
  if (current.approval !== "requested") return notWaiting()
  return Either.right(
    step({
      approval: "approved",
      publishAt: current.publishAt,
      channels: current.channels.map((c) => move(channelMoves.approve, c, dueTime(current.publishAt, input.now))),
      activity: [entry(input.approvedBy, "approved")],
      events: [{ name: "approval.approved", approvedBy: input.approvedBy }]
    })
  )
}

/** The client asks for changes: channels stay drafts, the whole post shows `changes`. */
export const requestChanges = (
  current: PostSnapshot,
  input: { readonly comment: string; readonly requestedBy: string }
): Either.Either<PostStep, InvalidRequest> => {
  if (current.approval !== "requested") return notWaiting()
  return Either.right(
    step({
      approval: "changes",
      publishAt: current.publishAt,
      channels: current.channels.map(unchanged),
      activity: [entry(input.requestedBy, "changes requested", input.comment)],
      events: [{ name: "approval.changes", requestedBy: input.requestedBy, comment: input.comment }]
    })
  )
}

// ---- POST /posts/{id}/retry and PUT /posts/{id}/release-id ---------------------------------------

export interface RetryInput {
  readonly now: Date
  readonly actor: string
  /** Failed or unconfirmed follow-ups of channels that stay as they are (a published channel's failed reply). */
  readonly failedFollowUps: number
}

/**
 * Queues again, now, every failed or unconfirmed channel (spec: error, unconfirmed →
 * queued; activity `retried`). Failed follow-ups are queued by the caller; a post with
 * nothing to retry does not change and writes no activity.
 */
export const retry = (current: PostSnapshot, input: RetryInput): PostStep => {
  const channels = current.channels.map((c) => move(channelMoves.retry, c, input.now))
  const moved = channels.filter((c) => c.from !== c.to).length
  return step({
    approval: current.approval,
    publishAt: current.publishAt,
    channels,
    activity: moved + input.failedFollowUps > 0 ? [entry(input.actor, "retried")] : []
  })
}

/**
 * Marks one channel's post live with the id the caller found (spec: any channel →
 * published; activity `linked live post`). `post.published` is written once: not when the
 * channel was already published (a new id only replaces the old one).
 */
export const linkRelease = (current: PostSnapshot, channelId: string, input: { readonly actor: string; readonly releaseId: string }): PostStep => {
  const channels = current.channels.map((c) => (c.channelId === channelId ? move(channelMoves.linkRelease, c, current.publishAt) : unchanged(c)))
  const target = channels.find((c) => c.channelId === channelId)
  const becameLive = target !== undefined && target.from !== "published" && target.to === "published"
  return step({
    approval: current.approval,
    publishAt: current.publishAt,
    channels,
    activity: [entry(input.actor, "linked live post", input.releaseId)],
    events: becameLive ? [{ name: "post.published", channelId }] : []
  })
}

// ---- Publishing outcomes (worker) ------------------------------------------------------------

export type AttemptOutcome =
  | { readonly kind: "published"; readonly releaseUrl?: string | null }
  | { readonly kind: "rejected"; readonly error: string; readonly fix: string }
  | { readonly kind: "unconfirmed"; readonly error: string; readonly fix: string }

/**
 * What one publishing attempt of a channel's post leads to. A channel that is no longer on
 * its way (deleted, already published, moved to draft) does not move, and causes nothing:
 * a late or repeated outcome must not send a second `post.published`.
 */
export const afterAttempt = (current: PostSnapshot, channelId: string, outcome: AttemptOutcome): PostStep => {
  const channel = current.channels.find((c) => c.channelId === channelId)
  const moves: Moves = channelMoves[outcome.kind]
  const to = channel === undefined ? undefined : moves[channel.status]
  const channels = current.channels.map((c) => (c.channelId === channelId && to !== undefined ? { ...unchanged(c), to } : unchanged(c)))
  const base = { approval: current.approval, publishAt: current.publishAt, channels }
  if (to === undefined) return step(base)
  switch (outcome.kind) {
    case "published":
      return step({
        ...base,
        activity: [entry("System", "published", outcome.releaseUrl ?? null)],
        events: [{ name: "post.published", channelId }]
      })
    case "rejected":
      return step({
        ...base,
        activity: [entry("System", "failed", outcome.error)],
        events: [{ name: "post.failed", channelId, error: outcome.error, fix: outcome.fix }]
      })
    case "unconfirmed":
      return step({
        ...base,
        activity: [entry("System", "unconfirmed", outcome.error)],
        events: [{ name: "post.unconfirmed", channelId, error: outcome.error, fix: outcome.fix }]
      })
  }
}
