import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { Uuid } from "../../domain/ids.js"
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../domain/idempotency.js"
import { expecting } from "../../domain/fieldProblem.js"
import { FullPostBody, SettingsBody, SimplePostBody } from "../../domain/posts/body.js"
import { IdParam, optionalParam } from "./common.js"
import {
  ChangedMeanwhile,
  ChannelNotFound,
  IdempotencyKeyReused,
  IdempotencyKeyRunning,
  InvalidDate,
  InvalidId,
  InvalidJson,
  InvalidRequest,
  Forbidden,
  MediaRefused,
  PostNotFound,
  RuleViolations,
  TooManyRequests
} from "./errors.js"
import { CreatedPostRow, PostAttempt, PostPreview, PostRow, WholePost } from "./postResources.js"
import { Authentication } from "./security.js"

/**
 * POST /posts reads its body itself (both forms, aliases, the spec's own 400 messages),
 * so the contract documents the two forms without letting HttpApi decode them.
 */
const PostsBodyDoc = Schema.Unknown.annotations({
  identifier: "PostsBody",
  description: "The full form (posts[]) or the simpler form (content + channels).",
  jsonSchema: { anyOf: [JSONSchema.make(FullPostBody), JSONSchema.make(SimplePostBody)] }
})

const DeleteAnswer = Schema.Struct({ error: Schema.Literal(false), success: Schema.Literal(true) })

export const PostsApi = HttpApiGroup.make("posts")
  .add(
    HttpApiEndpoint.get("listPosts", "/posts")
      .setUrlParams(
        Schema.Struct({
          startDate: optionalParam(Schema.String.annotations({ description: "ISO 8601; default 30 days ago" })),
          endDate: optionalParam(Schema.String.annotations({ description: "ISO 8601; default 30 days from now" })),
          customer: optionalParam(Uuid.annotations({ description: "Only posts on channels of this customer id" }))
        })
      )
      .addSuccess(Schema.Struct({ posts: Schema.Array(PostRow) }))
      .addError(InvalidDate)
      .addError(InvalidId)
      .annotate(OpenApi.Summary, "List posts between two dates")
      .annotate(OpenApi.Description, "One row per channel, oldest first; default range 30 days back to 30 days ahead.")
  )
  .add(
    HttpApiEndpoint.post("createPosts", "/posts")
      .setPayload(PostsBodyDoc)
      .setHeaders(
        Schema.Struct({
          // checked with the rest of the body by the writer (domain/idempotency.ts); documented here
          "idempotency-key": Schema.optional(
            Schema.String.annotations({
              description: "Same key and same body within 24 hours replays the first answer (header Idempotent-Replayed: true)",
              jsonSchema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH }
            })
          )
        })
      )
      .addSuccess(Schema.Array(CreatedPostRow))
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(InvalidDate)
      .addError(RuleViolations)
      .addError(ChannelNotFound)
      .addError(MediaRefused)
      .addError(PostNotFound)
      .addError(IdempotencyKeyReused)
      .addError(IdempotencyKeyRunning)
      .addError(ChangedMeanwhile)
      .addError(TooManyRequests)
      .annotate(OpenApi.Summary, "Create or edit posts")
  )
  .add(
    HttpApiEndpoint.post("previewPost", "/posts/preview")
      .setPayload(PostsBodyDoc)
      .addSuccess(PostPreview)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(InvalidDate)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Preview a post, per channel")
      .annotate(
        OpenApi.Description,
        "Takes the body POST /posts takes and saves nothing. Answers, per channel, the items its network will receive " +
          "after every rule (text as the network counts it, short links, files and what preparation will do to them, " +
          "settings resolved), the problems POST /posts would refuse it for (same messages; still 200), warnings close " +
          "to a limit, and a planId: POST /posts with the same body and `planId` publishes exactly this plan or answers " +
          "409 naming what changed (the body, a channel, a network's rules). A planId is valid one hour."
      )
  )
  .add(
    HttpApiEndpoint.get("getPost", "/posts/:id")
      .setPath(IdParam)
      .addSuccess(WholePost)
      .addError(InvalidId)
      .addError(PostNotFound)
      .annotate(OpenApi.Summary, "Get a whole post (per-channel id or group id)")
  )
  .add(
    HttpApiEndpoint.post("retryPost", "/posts/:id/retry")
      .setPath(IdParam)
      .addSuccess(WholePost)
      .addError(InvalidId)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Retry failed channels")
      .annotate(
        OpenApi.Description,
        "No body. Queues again, now, every channel of the post that failed or is unconfirmed, and failed or " +
          "unconfirmed follow-up comments. An unconfirmed one asks the network first and is linked instead of sent when " +
          "the post is already there (networks that cannot search send it; Discord's nonce and Mastodon's " +
          "Idempotency-Key still guard a copy within their windows). Activity `retried`."
      )
  )
  .add(
    HttpApiEndpoint.put("linkRelease", "/posts/:id/release-id")
      .setPath(IdParam)
      .setPayload(
        Schema.Struct({
          releaseId: expecting(Schema.String, "a string: the post's id on the network").annotations({ description: "The post's id on the network" }),
          releaseUrl: Schema.optional(
            expecting(Schema.String, "a string: the post's address on the network").annotations({ description: "The post's address on the network" })
          )
        })
      )
      .addSuccess(WholePost)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Link a live post")
      .annotate(
        OpenApi.Description,
        "Marks one channel's post (a per-channel id; a group id means its first channel) as published with these " +
          "values, whatever it was doing; its waiting follow-ups then go out. Activity `linked live post`; " +
          "`post.published` when the channel was not published yet."
      )
  )
  .add(
    HttpApiEndpoint.get("postAttempts", "/posts/:id/attempts")
      .setPath(IdParam)
      .addSuccess(Schema.Array(PostAttempt))
      .addError(InvalidId)
      .addError(PostNotFound)
      .annotate(OpenApi.Summary, "The attempt timeline")
      .annotate(
        OpenApi.Description,
        "Every publish attempt of the whole post (a per-channel id or its group id), by channel, item and attempt: " +
          "when it started, what was asked of the network, how long it took, the network's status and error text as " +
          "received (credentials and tokens never shown), the outcome, and each network call it made."
      )
  )
  .add(
    HttpApiEndpoint.get("missingPost", "/posts/:id/missing")
      .setPath(IdParam)
      .addSuccess(Schema.Array(Schema.Struct({ id: Schema.String, url: Schema.String })))
      .addError(InvalidId)
      .addError(PostNotFound)
      .annotate(OpenApi.Summary, "Search the network for a post")
      .annotate(
        OpenApi.Description,
        "Asks the channel's network for a recent post of the account with the same text as the post's first item " +
          "(per-channel id; a group id means its first channel). 0 or 1 items; networks that cannot search (LinkedIn, " +
          "Telegram, Discord) answer an empty array."
      )
  )
  .add(
    HttpApiEndpoint.put("movePost", "/posts/:id/date")
      .setPath(IdParam)
      .setPayload(Schema.Struct({ date: expecting(Schema.String, "an ISO 8601 date with a time zone, for example 2025-01-31T09:00:00Z") }))
      .addSuccess(WholePost)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(InvalidDate)
      .addError(RuleViolations)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Move a post")
  )
  .add(
    HttpApiEndpoint.put("setPostStatus", "/posts/:id/status")
      .setPath(IdParam)
      .setPayload(Schema.Struct({ status: expecting(Schema.Literal("draft", "schedule"), "draft or schedule") }))
      .addSuccess(WholePost)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(RuleViolations)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Switch draft and scheduled")
  )
  .add(
    HttpApiEndpoint.put("setPostSettings", "/posts/:id/settings")
      .setPath(IdParam)
      .setPayload(Schema.Struct({ settings: SettingsBody }))
      .addSuccess(WholePost)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(RuleViolations)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Change channel settings")
  )
  .add(
    HttpApiEndpoint.del("deletePost", "/posts/:id")
      .setPath(IdParam)
      .addSuccess(DeleteAnswer)
      .addError(InvalidId)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Delete a post")
  )
  .add(
    HttpApiEndpoint.del("deletePostGroup", "/posts/group/:group")
      .setPath(Schema.Struct({ group: Uuid }))
      .addSuccess(DeleteAnswer)
      .addError(InvalidId)
      .addError(PostNotFound)
      .addError(ChangedMeanwhile)
      .annotate(OpenApi.Summary, "Delete a post by group id")
  )
  .annotate(OpenApi.Title, "Posts")
  // every endpoint checks the caller's role (domain/policy.ts)
  .addError(Forbidden)
  .middleware(Authentication)
