import type { SqlClient } from "@effect/sql"
import type { Effect, Option } from "effect"
import type { InvalidRequest } from "../../domain/errors.js"
import type { ChannelRow } from "../repos/channelsRepo.js"

/** What a helper tool gets: the channel it runs for and the caller's `data`. */
export interface ToolCall {
  readonly channel: ChannelRow
  readonly methodName: string
  readonly data: Readonly<Record<string, unknown>>
}

/** One item (the post or a follow-up) to send to a network. */
export interface PublishRequest {
  readonly itemId: string
  readonly channelId: string
  readonly position: number
  readonly content: string
  /** The release id of the item this one follows (follow-up comments answer it). */
  readonly replyTo: string | null
  readonly settings: Readonly<Record<string, unknown>>
}

/** What the network said. `NoAnswer`: it may or may not have the post. */
export type PublishResult =
  | { readonly _tag: "Published"; readonly releaseId: string; readonly releaseUrl: string }
  | { readonly _tag: "Rejected"; readonly error: string; readonly fix: string }
  | { readonly _tag: "NoAnswer"; readonly reason: string }

export interface LivePost {
  readonly releaseId: string
  readonly releaseUrl: string
}

/**
 * One adapter per network (DESIGN: Networks): helper tools, publishing and the search
 * that tells whether a post whose answer was lost is live. Sign-in, token refresh and
 * statistics join it with the network adapters.
 */
export interface NetworkAdapter {
  readonly identifier: string
  readonly runTool: (call: ToolCall) => Effect.Effect<Record<string, unknown>, InvalidRequest, SqlClient.SqlClient>
  readonly publish: (request: PublishRequest) => Effect.Effect<PublishResult, never, SqlClient.SqlClient>
  /** Some(live post), None (not there), or fails when the network cannot tell. */
  readonly search: (request: PublishRequest) => Effect.Effect<Option.Option<LivePost>, "cannot_tell", SqlClient.SqlClient>
}
