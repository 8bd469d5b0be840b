import { withMediaByPath } from "../../domain/posts/mediaByPath.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import { checkPostAgainstNetworks, unknownChannelIds, type RulesContext } from "../../domain/posts/rules.js"
import type { MediaForPost } from "../media/mediaRepo.js"
import type { ChannelRow } from "../repos/channelsRepo.js"
import { channelForRules, libraryMediaForRules, withChannelDefaults } from "./rulesContext.js"

/**
 * The rules POST /posts applies to a read body, on the channels and library files it names:
 * one function for POST /posts (newPosts.ts) and each row of an import (PostsImport.ts),
 * so both refuse with the same messages. Pure: the caller reads the rows.
 */
export const checkGiven = (
  given: NormalizedPost,
  channels: ReadonlyArray<ChannelRow>,
  library: ReadonlyArray<MediaForPost>,
  byPath: ReadonlyMap<string, string>
) => {
  const libraryById: ReadonlyMap<string, MediaForPost> = new Map(library.map((m) => [m.id, m]))
  // files given by path are their library items; settings a channel's connection
  // answers fill what the post leaves out (a Discord channel id)
  const post = withChannelDefaults(
    withMediaByPath(given, (id) => libraryById.has(id), byPath),
    channels
  )
  const context: RulesContext = {
    channels: channels.flatMap(channelForRules),
    media: (id) => {
      const m = libraryById.get(id)
      return m === undefined ? undefined : libraryMediaForRules(m)
    }
  }
  const unknownChannel = unknownChannelIds(post, context).length > 0
  return { post, context, libraryById, unknownChannel, problems: unknownChannel ? [] : checkPostAgainstNetworks(post, context) }
}
