import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Either, Option, Redacted, Schema } from "effect"
import { canonicalJson } from "../../domain/idempotency.js"
import { findNetwork } from "../../domain/networks/index.js"
import type { Plan } from "../../domain/posts/preview.js"
import type { ChannelRow } from "../repos/channelsRepo.js"

/**
 * The `planId` of a preview (docs/using-the-api.md, "Preview, then commit"): the plan itself
 * (digests of the body, of each channel's state and of its network's rules) with an expiry,
 * signed with a key derived from SECRET_KEY. Nothing is stored: any gateway checks a planId
 * by recomputing the digests now, and names what differs.
 */

/** How long a preview may be committed. */
export const PLAN_TTL_SECONDS = 3600

const digest = (value: unknown) => createHash("sha256").update(canonicalJson(value)).digest("base64url").slice(0, 16)

const signingKey = (secretKey: Redacted.Redacted) => createHmac("sha256", Redacted.value(secretKey)).update("post-scheduler plans v1").digest()

const mac = (secretKey: Redacted.Redacted, payload: string) => createHmac("sha256", signingKey(secretKey)).update(payload).digest("base64url")

/** The plan of a body against the channels it names, as they are now (the body without its planId). */
export const planOf = (body: unknown, channels: ReadonlyArray<ChannelRow>): Plan => ({
  body: digest(withoutPlanId(body)),
  channels: channels.map((c) => ({
    channelId: c.id,
    channelName: c.name,
    state: digest({
      name: c.name,
      network: c.network,
      disabled: c.disabled,
      refreshNeeded: c.refreshNeeded,
      inBetweenSteps: c.inBetweenSteps,
      customerApproval: c.customerApproval,
      defaultSettings: c.defaultSettings ?? {}
    }),
    rules: digest(Option.getOrNull(findNetwork(c.network)))
  }))
})

/** A body as its plan sees it: `planId` is how it is committed, not what it says. */
export const withoutPlanId = (body: unknown): unknown => {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("planId" in body)) return body
  const { planId: _planId, ...rest } = body as Readonly<Record<string, unknown>>
  return rest
}

const SignedPlan = Schema.Struct({
  body: Schema.String,
  channels: Schema.Array(Schema.Struct({ channelId: Schema.String, channelName: Schema.String, state: Schema.String, rules: Schema.String })),
  workspaceId: Schema.String,
  expiresAt: Schema.Number
})
const decodeSigned = Schema.decodeUnknownEither(Schema.parseJson(SignedPlan))

export const signPlan = (secretKey: Redacted.Redacted, workspaceId: string, plan: Plan, nowMs = Date.now()): string => {
  const payload = Buffer.from(JSON.stringify({ ...plan, workspaceId, expiresAt: Math.floor(nowMs / 1000) + PLAN_TTL_SECONDS })).toString("base64url")
  return `plan_${payload}.${mac(secretKey, payload)}`
}

/** Why a planId cannot be committed. */
export type PlanRefusal = "malformed" | "expired"

/** The plan a planId carries, when it is this service's, this workspace's, and not expired. */
export const openPlan = (secretKey: Redacted.Redacted, workspaceId: string, planId: string, nowMs = Date.now()): Either.Either<Plan, PlanRefusal> => {
  const match = /^plan_([A-Za-z0-9_-]{1,200000})\.([A-Za-z0-9_-]{43})$/.exec(planId)
  if (match === null) return Either.left("malformed")
  const [, payload = "", signature = ""] = match
  const expected = Buffer.from(mac(secretKey, payload), "latin1")
  const given = Buffer.from(signature, "latin1")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Either.left("malformed")
  const decoded = decodeSigned(Buffer.from(payload, "base64url").toString("utf8"))
  if (Either.isLeft(decoded) || decoded.right.workspaceId !== workspaceId) return Either.left("malformed")
  if (decoded.right.expiresAt * 1000 <= nowMs) return Either.left("expired")
  return Either.right({ body: decoded.right.body, channels: decoded.right.channels })
}
