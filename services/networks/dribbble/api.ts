import { Schema } from "effect"

/** Dribbble API v2 answers (developer.dribbble.com/v2): plain JSON, errors as `{message, errors?}`. */

/** POST https://dribbble.com/oauth/token: tokens do not expire and come without a refresh token. */
export const DribbbleToken = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/** GET /user: the signed-in account. */
export const DribbbleUser = Schema.Struct({
  id: Schema.Number,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  login: Schema.String,
  html_url: Schema.optional(Schema.String),
  avatar_url: Schema.optional(Schema.NullOr(Schema.String)),
  can_upload_shot: Schema.optional(Schema.Boolean)
})

/** A shot, as GET /shots/:id and GET /user/shots give it. */
export const Shot = Schema.Struct({ id: Schema.Number, title: Schema.optional(Schema.String), html_url: Schema.String })
export const Shots = Schema.Array(Shot)

/** 4xx: `{"message": "Validation failed.", "errors": [{"attribute", "message"}]}`. */
export const DribbbleError = Schema.Struct({
  message: Schema.String,
  errors: Schema.optional(Schema.Array(Schema.Struct({ attribute: Schema.optional(Schema.String), message: Schema.String })))
})

/** Between the steps of a publish (post_items.network_progress): the shot Dribbble is processing, since when. */
export const DribbbleProgress = Schema.Struct({ shotId: Schema.String, since: Schema.Number })
export type DribbbleProgress = typeof DribbbleProgress.Type

/** The only sizes Dribbble takes for a shot's image (developer.dribbble.com/v2/shots, "Create a shot"). */
export const SHOT_SIZES: ReadonlyArray<readonly [number, number]> = [
  [400, 300],
  [800, 600],
  [1600, 1200]
]
