import { Schema } from "effect"

/** The post's `subreddit` setting as the Lemmy adapter reads it, and what a multi-community publish leaves. */

/** One community to post in: `{subreddit, title, url}` (or `{value: …}` as the reference clients send it). */
export interface Entry {
  /** A community id (digits) or name (`technology`, `technology@lemmy.ml`). */
  readonly community: string
  readonly title: string
  readonly url: string | undefined
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : typeof value === "number" ? String(value) : undefined
const fieldsOf = (entry: unknown): Readonly<Record<string, unknown>> => {
  if (typeof entry !== "object" || entry === null) return {}
  const value: unknown = "value" in entry ? entry.value : entry
  return typeof value === "object" && value !== null ? (value as Readonly<Record<string, unknown>>) : {}
}

/** Lemmy's post title limit (MAX_TITLE_LENGTH). */
const TITLE_MAX = 200

/** The communities of the post's settings that have a community and a title (rules refuse the others before saving). */
export const entriesOf = (settings: Readonly<Record<string, unknown>>): ReadonlyArray<Entry> => {
  const list = settings["subreddit"]
  if (!Array.isArray(list)) return []
  return list.flatMap((raw: unknown) => {
    const f = fieldsOf(raw)
    const community = (text(f["subreddit"]) ?? text(f["id"]))?.replace(/^!/, "")
    const title = text(f["title"])
    if (community === undefined || title === undefined) return []
    return [{ community, title: [...title].slice(0, TITLE_MAX).join(""), url: text(f["url"]) }]
  })
}

/** A post live in one community. */
export const Posted = Schema.Struct({ community: Schema.String, id: Schema.String, url: Schema.String })
export type Posted = typeof Posted.Type
/** The communities already posted in: a post to several is one step each, so a retry never posts twice where it is live. */
export const LemmyProgress = Schema.Struct({ done: Schema.Array(Posted) })
export type LemmyProgress = typeof LemmyProgress.Type

/**
 * Release ids: a post is its id (`123`); a comment is `123:456` (post id, comment id), so a
 * follow-up of a comment knows the post it belongs to (POST /api/v3/comment needs both).
 */
export const commentReleaseId = (postId: number, commentId: number) => `${postId}:${commentId}`
export const parseReleaseId = (releaseId: string): { readonly postId: number; readonly commentId: number | null } | null => {
  const match = /^(\d+)(?::(\d+))?$/.exec(releaseId)
  if (match === null) return null
  return { postId: Number(match[1]), commentId: match[2] === undefined ? null : Number(match[2]) }
}
