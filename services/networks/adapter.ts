import { Data, type Effect, type Option, type Redacted } from "effect"
import type { InvalidRequest } from "../../domain/errors.js"
import type { StoredMedia } from "../posts/rows.js"
import type { ChannelRow } from "../repos/channelsRepo.js"

/** What a helper tool gets: the channel it runs for and the caller's `data`. */
export interface ToolCall {
  readonly channel: ChannelRow
  readonly methodName: string
  readonly data: Readonly<Record<string, unknown>>
}

/** One item (the post or a follow-up) to send to a network, with everything the network needs. */
export interface PublishRequest {
  readonly item: {
    readonly id: string
    /** 0: the post itself; 1..: follow-up comments. */
    readonly position: number
    readonly content: string
  }
  /** The item's files as stored with the post (url, mime, type, alt …). */
  readonly media: ReadonlyArray<StoredMedia>
  readonly channel: {
    readonly id: string
    /** The channel's network credentials, decrypted; none for networks that need none. */
    readonly credentials: Option.Option<Redacted.Redacted<string>>
    /** The settings of the channel's post (network options, e.g. `audience`). */
    readonly settings: Readonly<Record<string, unknown>>
  }
  /** The release id of the item this one follows (follow-up comments answer it); null for the post. */
  readonly previousReleaseId: string | null
}

/** What the network said to a publish. */
export type PublishAnswer = Data.TaggedEnum<{
  /** Live, with the network's id and address of it. */
  Published: { readonly releaseId: string; readonly releaseUrl: string }
  /** Refused, in plain language, with what to do about it. */
  Rejected: { readonly message: string; readonly fix: string }
  /** Refused for now: nothing was published; try again after the wait. */
  RateLimited: { readonly retryAfterMs: number }
  /** Nothing reached the network (connection refused, name unknown): safe to send again. */
  FailedBeforeSending: { readonly reason: string }
  /** The request left but no answer came: the post may or may not be live. */
  NoAnswer: { readonly reason: string }
}>
export const PublishAnswer = Data.taggedEnum<PublishAnswer>()

/** What a search for an item whose answer was lost found. */
export type SearchAnswer = Data.TaggedEnum<{
  Found: { readonly releaseId: string; readonly releaseUrl: string }
  NotFound: {}
  CannotTell: { readonly reason: string }
}>
export const SearchAnswer = Data.taggedEnum<SearchAnswer>()

/**
 * One adapter per network (DESIGN: Networks): publishing, the search that tells whether a
 * post whose answer was lost is live, and helper tools. An adapter reaches its network
 * through the outbound HTTP client (services/platform/outbound) with the channel's
 * credentials given in the request; it never touches the database. Sign-in, token refresh
 * and statistics join it with the network adapters.
 */
export interface NetworkAdapter {
  readonly identifier: string
  readonly publish: (request: PublishRequest) => Effect.Effect<PublishAnswer>
  readonly search: (request: PublishRequest) => Effect.Effect<SearchAnswer>
  readonly runTool: (call: ToolCall) => Effect.Effect<Record<string, unknown>, InvalidRequest>
}
