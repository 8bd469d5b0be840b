import type { ChannelStatus } from "../../domain/posts/states.js"
import type { StoredMedia } from "./rows.js"

/** What a new or edited post writes, as the step writes (postStepsRepo.ts) and the one statement (createPostRepo.ts) take it. */

/** An item to write for a channel (create and edit). */
export interface ItemWrite {
  readonly content: string
  readonly media: ReadonlyArray<StoredMedia>
  readonly delay: number
}

export interface EntryWrite {
  readonly items: ReadonlyArray<ItemWrite>
  readonly settings: Readonly<Record<string, unknown>>
}

export interface GroupFields {
  readonly repeatDays: number | null
  readonly shortLink: boolean
  readonly creationMethod: string
  readonly author: string
}

/** A channel post the whole post has after a write, in order (what POST /posts answers). */
export interface LiveChannelPost {
  readonly postId: string
  readonly channelId: string
  readonly status: ChannelStatus
}
