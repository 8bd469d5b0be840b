import type { SqlClient } from "@effect/sql"
import type { Effect } from "effect"
import type { ApiError } from "../../domain/errors.js"
import type { ChannelRow } from "../repos/channelsRepo.js"

/** What a helper tool gets: the channel it runs for and the caller's `data`. */
export interface ToolCall {
  readonly channel: ChannelRow
  readonly methodName: string
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * One adapter per network (DESIGN: Networks). This part: helper tools.
 * Sign-in, token refresh, publish, search and statistics join it with publishing.
 */
export interface NetworkAdapter {
  readonly identifier: string
  readonly runTool: (call: ToolCall) => Effect.Effect<Record<string, unknown>, ApiError, SqlClient.SqlClient>
}
