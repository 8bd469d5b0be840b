import { Data, type Effect, type Option, type Redacted } from "effect"
import type { InvalidRequest } from "../../domain/errors.js"
import type { OutboundError } from "../platform/outbound/errors.js"
import type { OutboundResponse } from "../platform/outbound/request.js"
import type { StoredMedia } from "./storedMedia.js"
import type { ChannelRow } from "../repos/channelsRepo.js"

/**
 * A channel's network credentials: a JSON object whose fields each adapter decodes with its
 * own Schema (tokens, instance address, bot token …). Encrypted at rest with SECRET_KEY
 * (services/networks/credentials.ts); handed to adapters Redacted so that a log line
 * or an error can never print them.
 */
export type Credentials = Readonly<Record<string, unknown>>

/** Who the credentials belong to, as the network names them (the channel's name, handle and picture). */
export interface Profile {
  /** The network's own id of the account (or bot + chat for chat apps). */
  readonly accountId: string
  readonly name: string
  /** Handle shown as the channel's `profile`. */
  readonly profile: string
  readonly picture: string | null
}

/** A verified connection: what to store (possibly enriched, e.g. an account id) and whose it is. */
export interface Connected {
  readonly credentials: Credentials
  readonly profile: Profile
  /** Post settings this connection already answers (not secret), used when a post leaves them out. */
  readonly defaultSettings?: Readonly<Record<string, unknown>>
  /**
   * What the person must still choose after signing in (a Facebook page, a LinkedIn
   * organization, a Google Business location), when the account has more than one: the
   * channel is saved with `inBetweenSteps` true until `choose` is called with one of these.
   * An account with exactly one is connected to it at once (no choices).
   */
  readonly choices?: ReadonlyArray<Choice>
}

/** One page, organization or location the person may connect the channel to. */
export interface Choice {
  readonly id: string
  readonly name: string
  readonly picture: string | null
}

/** Connecting failed: the plain-language reason, shown on the callback page or by the admin CLI. */
export class ConnectFailed extends Data.TaggedError("ConnectFailed")<{ readonly message: string }> {}

/** How a network is connected (spec: GET /social). */
export type ConnectMethod =
  | {
      readonly kind: "link"
      /** The network's sign-in address; `state` comes back to the callback with the code. */
      readonly authorizeUrl: (input: {
        readonly state: string
        readonly redirectUri: string
        /** PKCE verifier kept with the state (networks that use PKCE send its S256 challenge). */
        readonly codeVerifier: string
        /** Where the account lives, for networks with many servers (Mastodon); the adapter's default otherwise. */
        readonly instance: string | null
      }) => Effect.Effect<string, ConnectFailed>
      /** The callback's code → credentials and profile. */
      readonly exchange: (input: {
        readonly code: string
        readonly redirectUri: string
        readonly codeVerifier: string
        readonly instance: string | null
        /** Every query parameter of the callback (Discord adds guild_id). */
        readonly query: Readonly<Record<string, string>>
      }) => Effect.Effect<Connected, ConnectFailed>
    }
  | { readonly kind: "form" }

/** What a refresh found: nothing to do, new credentials to store, or a refresh the network refused. */
export type Refresh = Data.TaggedEnum<{
  Unchanged: {}
  Refreshed: { readonly credentials: Credentials }
  /** The network refused: the channel must be reconnected (channel.disconnected). */
  Failed: { readonly reason: string }
  /** The network could not be asked (no answer, 5xx): try again later, keep the channel. */
  Unavailable: { readonly reason: string }
}>
export const Refresh = Data.taggedEnum<Refresh>()

/** What a helper tool gets: the channel it runs for, its credentials and the caller's `data`. */
export interface ToolCall {
  readonly channel: ChannelRow
  readonly credentials: Redacted.Redacted<Credentials>
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
  /** The item's files as stored with the post (url, mime, type, alt …); read them with NetworkDeps.media. */
  readonly media: ReadonlyArray<StoredMedia>
  readonly channel: {
    readonly id: string
    /** The channel's network credentials, decrypted ({} for networks that need none). */
    readonly credentials: Redacted.Redacted<Credentials>
    /** The settings of the channel's post (network options, e.g. `who_can_reply_post`). */
    readonly settings: Readonly<Record<string, unknown>>
  }
  /** The release id of the item this one follows (follow-up comments answer it); null for the post. */
  readonly previousReleaseId: string | null
  /** The release id of the post's first item (Bluesky replies name the thread's root); null for the post. */
  readonly rootReleaseId: string | null
  /**
   * What an earlier step of this item left with the network (a container id, an upload
   * session's address, uploaded media ids), as the adapter answered it in `Pending`; null on
   * the first step. An adapter continues from it instead of creating a second container.
   */
  readonly progress: Progress | null
}

/**
 * An adapter's own record of a publish that takes several steps: a JSON object only it
 * reads (decoded with its own Schema). Stored with the item (post_items.network_progress),
 * never shown to clients.
 */
export type Progress = Readonly<Record<string, unknown>>

/** Why a `Pending` item waits: the network is processing what it was given, or the account's cap on posts is full. */
export type PendingKind = "processing" | "network-limit"

/**
 * What is left of the account's publishing quota, as the network tells it (Instagram's
 * posts in 24 hours, X's credits): shown by GET /integrations/{id}/health.
 */
export interface Quota {
  readonly remaining: number
  /** The whole quota of the period, when the network says it. */
  readonly limit: number | null
  /** When the quota fills up again, when the network says it. */
  readonly resetsAt: Date | null
  /** What is counted, in plain words ("posts in 24 hours", "credits"). */
  readonly unit: string
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
  /**
   * Not live yet, nothing wrong: the network is processing a container or an upload, or the
   * account's cap is full. The publisher stores `progress` with the item, shows the item
   * held (`kind`) with `waitingFor`, and calls `publish` again with it after `retryAfterMs`
   * (the job waits in JetStream, never in a worker).
   */
  Pending: {
    readonly progress: Progress
    readonly kind: PendingKind
    readonly waitingFor: string
    readonly retryAfterMs: number
  }
}>
export const PublishAnswer = Data.taggedEnum<PublishAnswer>()

/** What a search for an item whose answer was lost found. */
export type SearchAnswer = Data.TaggedEnum<{
  Found: { readonly releaseId: string; readonly releaseUrl: string }
  NotFound: {}
  CannotTell: { readonly reason: string }
  /**
   * The network says for sure the item is not live and where its publish stands (a
   * container not yet published, an upload session with bytes to go): the publisher
   * continues from `progress` and no second copy is ever made.
   */
  Unfinished: { readonly progress: Progress }
}>
export const SearchAnswer = Data.taggedEnum<SearchAnswer>()

/** One metric of GET /analytics (spec: Statistics metric). */
export interface Metric {
  readonly label: string
  readonly help?: string
  readonly percentageChange: number
  readonly data: ReadonlyArray<{ readonly total: number; readonly date: string }>
  /** The same metric over the period before, when the network shares it (percentageChange compares with it). */
  readonly previous?: ReadonlyArray<{ readonly total: number; readonly date: string }>
}

/** Statistics answer: metrics, or why there are none (spec: `{missing: true, message}`). */
export type Statistics = Data.TaggedEnum<{
  Metrics: { readonly metrics: ReadonlyArray<Metric> }
  Missing: { readonly message: string }
}>
export const Statistics = Data.taggedEnum<Statistics>()

/**
 * One adapter per network (docs/networks.md, "One adapter per network"): connecting, token refresh, publishing the
 * post and its follow-ups, the search that tells whether a post whose answer was lost is
 * live, statistics and helper tools. An adapter reaches its network only through
 * NetworkDeps.outbound (the SSRF-safe client) and never touches the database: the
 * publisher stores what it answers. No adapter method fails: every network answer,
 * garbage included, becomes one of the tagged answers above (`classify`).
 */
export interface NetworkAdapter {
  readonly identifier: string
  readonly connect: ConnectMethod
  /**
   * Checks credentials against the network (the admin CLI, form networks): the fields of
   * the table of docs/networks.md, "Connecting channels", decoded by the adapter, answered with what to store.
   */
  readonly verify: (credentials: unknown) => Effect.Effect<Connected, ConnectFailed>
  /**
   * True when `refresh` never changes the credentials (tokens that do not expire): a
   * publish then uses the stored ones without taking the channel's lock. Unset: refreshed
   * under the lock before every publish.
   */
  readonly tokensNeverExpire?: boolean
  /**
   * True when access tokens live hours and the refresh token renews them before use (X,
   * YouTube …): their expiry is routine, so a channel that holds a refresh token is never
   * warned about it with channel.expiring (docs/networks.md, "Channel health and expiry warnings").
   */
  readonly shortLivedTokens?: boolean
  /**
   * What is left of the account's publishing quota, when the network tells it; None when it
   * cannot be told now. Only GET /integrations/{id}/health asks (unset: no quota is shown).
   */
  readonly quota?: (credentials: Redacted.Redacted<Credentials>) => Effect.Effect<Option.Option<Quota>>
  /**
   * The person chose one of `Connected.choices`: the credentials and profile of the chosen
   * page, organization or location (from the credentials saved at sign-in).
   */
  readonly choose?: (credentials: Redacted.Redacted<Credentials>, choiceId: string) => Effect.Effect<Connected, ConnectFailed>
  /** Called before every publish and tool call: refreshes tokens that expire soon. */
  readonly refresh: (credentials: Redacted.Redacted<Credentials>) => Effect.Effect<Refresh>
  /** The post itself (previousReleaseId null). */
  readonly publish: (request: PublishRequest) => Effect.Effect<PublishAnswer>
  /** A follow-up: a reply to previousReleaseId. */
  readonly publishFollowUp: (request: PublishRequest) => Effect.Effect<PublishAnswer>
  /**
   * A recent post of this account with the item's text; CannotTell on networks that cannot
   * search. With `request.progress` the adapter may ask its container or upload session
   * first (Found, or Unfinished to continue it).
   */
  readonly search: (request: PublishRequest) => Effect.Effect<SearchAnswer>
  readonly statistics: {
    /** The most days of channel statistics the network keeps; unset: every range the API offers. */
    readonly longestRangeDays?: number
    readonly channel: (credentials: Redacted.Redacted<Credentials>, days: number) => Effect.Effect<Statistics>
    readonly post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) => Effect.Effect<Statistics>
  }
  readonly runTool: (call: ToolCall) => Effect.Effect<Record<string, unknown>, InvalidRequest>
  /**
   * The network's answer to a publish call → published (with id and address), rejected
   * (its reason in plain language and a fix), rate limited (with the wait) or no answer.
   * Garbage, HTML, a 2xx without an id, a 50 MB body: never a crash, never "published".
   */
  readonly classify: (answer: NetworkAnswer) => PublishAnswer
}

/** What a call to a network came back with: a response (any status), or why none came. */
export type NetworkAnswer =
  | { readonly _tag: "Response"; readonly response: OutboundResponse }
  | { readonly _tag: "Failed"; readonly error: OutboundError }
