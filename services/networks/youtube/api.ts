import { Option, Schema } from "effect"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { decodeBody } from "../networkHttp.js"

/** YouTube Data API v3 answers as developers.google.com/youtube/v3 documents them (counts are strings). */

const Count = Schema.optional(Schema.String)

export const Channels = Schema.Struct({
  items: Schema.optional(
    Schema.Array(
      Schema.Struct({
        id: Schema.String,
        snippet: Schema.Struct({
          title: Schema.String,
          customUrl: Schema.optional(Schema.String),
          thumbnails: Schema.optional(Schema.Struct({ default: Schema.optional(Schema.Struct({ url: Schema.String })) }))
        }),
        statistics: Schema.optional(Schema.Struct({ viewCount: Count, subscriberCount: Count, videoCount: Count })),
        contentDetails: Schema.optional(Schema.Struct({ relatedPlaylists: Schema.Struct({ uploads: Schema.optional(Schema.String) }) }))
      })
    )
  )
})

/** videos.insert's answer and videos.list's items: the parts this adapter asks for. */
export const Video = Schema.Struct({
  id: Schema.String,
  status: Schema.optional(
    Schema.Struct({
      uploadStatus: Schema.optional(Schema.String),
      failureReason: Schema.optional(Schema.String),
      rejectionReason: Schema.optional(Schema.String)
    })
  ),
  statistics: Schema.optional(Schema.Struct({ viewCount: Count, likeCount: Count, commentCount: Count }))
})
export type Video = typeof Video.Type

export const Videos = Schema.Struct({ items: Schema.Array(Video) })

export const PlaylistItems = Schema.Struct({
  items: Schema.Array(
    Schema.Struct({
      snippet: Schema.Struct({
        title: Schema.String,
        description: Schema.optional(Schema.String),
        resourceId: Schema.Struct({ videoId: Schema.String })
      })
    })
  )
})

/** Google's error body: `{"error":{"code","message","errors":[{"reason","message","domain"}]}}`. */
export const GoogleError = Schema.Struct({
  error: Schema.Struct({
    code: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String),
    errors: Schema.optional(Schema.Array(Schema.Struct({ reason: Schema.optional(Schema.String), message: Schema.optional(Schema.String) })))
  })
})

export const googleReasonOf = (response: OutboundResponse): { readonly reason: string; readonly message: string } =>
  Option.match(decodeBody(GoogleError, response), {
    onNone: () => ({ reason: `HTTP ${response.status}`, message: "" }),
    onSome: (e) => ({
      reason: e.error.errors?.[0]?.reason ?? `HTTP ${response.status}`,
      message: e.error.message ?? e.error.errors?.[0]?.message ?? ""
    })
  })

/**
 * What this adapter keeps between the steps of one upload (post_items.network_progress):
 * the resumable session's address and the file's size; where the bytes stand when a
 * search asked the session; the video's id once YouTube has it.
 */
export const YouTubeProgress = Schema.Struct({
  sessionUrl: Schema.String,
  size: Schema.Number,
  offset: Schema.optional(Schema.Number),
  videoId: Schema.optional(Schema.String)
})
export type YouTubeProgress = typeof YouTubeProgress.Type

/** Chunks are multiples of 256 KiB (videos.insert, resumable uploads): 8 MiB each, the last takes the rest. */
export const CHUNK_BYTES = 32 * 256 * 1024

/** The next byte after a 308's `Range: bytes=0-N` (0 when YouTube has none yet). */
export const nextOffsetOf = (response: OutboundResponse): number => {
  const header = response.headers["range"]
  const text = Array.isArray(header) ? header[0] : header
  const end = text === undefined ? undefined : /bytes=0-(\d+)/.exec(text)?.[1]
  return end === undefined ? 0 : Number(end) + 1
}
