import { postLength } from "../networks/length.js"
import { linksToShorten, replaceLinks, shortUrl } from "../shortLinks.js"
import type { NormalizedPost } from "./normalizedPost.js"
import { checkPostAgainstNetworks, mediaPreparationOf, type RulesContext } from "./rules.js"

/**
 * POST /posts/preview (docs/using-the-api.md, "Preview, then commit"): what each channel's
 * network will receive, computed by the same rules as POST /posts and saving nothing. The
 * problems are POST /posts' own messages; warnings say what is close to a limit.
 */

/** A text at or above this share of the network's limit is close to it. */
export const CLOSE_TO_LIMIT = 0.9

/** What a short link looks like before its code exists: the code is made when the post goes out (12 characters). */
export const SHORT_CODE_PLACEHOLDER = "xxxxxxxxxxxx"

export interface PreviewMedia {
  readonly id: string | null
  readonly path: string | null
  readonly name: string | null
  readonly type: "image" | "video" | null
  readonly size: number | null
}

export interface PreviewItem {
  readonly content: string
  /** The length as the network counts it (characters, graphemes or X's weighted length). */
  readonly length: number
  readonly maxLength: number
  readonly media: ReadonlyArray<PreviewMedia>
}

export interface PreviewChannel {
  readonly channelId: string
  readonly channelName: string
  readonly network: string
  readonly items: ReadonlyArray<PreviewItem>
  /** The settings the post goes with: the body's, over the channel's defaults. */
  readonly settings: Readonly<Record<string, unknown>>
  /** What preparation will do to the channel's files (one line per file that gets a rendition). */
  readonly preparation: ReadonlyArray<string>
  readonly problems: ReadonlyArray<{ readonly message: string }>
  readonly warnings: ReadonlyArray<{ readonly message: string }>
}

/** What the preview knows of a library file besides the rules' view (its size and address). */
export interface LibraryFile {
  readonly id: string
  readonly path: string
  readonly name: string
  readonly type: "image" | "video"
  readonly size: number
}

/** The text a network receives: with `shortLink`, each link as a short address of this server (shortened only when the network still takes it). */
export const textAsSent = (post: NormalizedPost, content: string, network: Parameters<typeof postLength>[0], publicUrl: string): string => {
  if (!post.shortLink) return content
  const links = linksToShorten(content, publicUrl)
  if (links.length === 0) return content
  const shortened = replaceLinks(content, links, () => shortUrl(publicUrl, SHORT_CODE_PLACEHOLDER))
  return postLength(network, shortened) <= network.maxLength ? shortened : content
}

export const previewPost = (
  post: NormalizedPost,
  context: RulesContext,
  library: (id: string) => LibraryFile | undefined,
  publicUrl: string
): ReadonlyArray<PreviewChannel> => {
  const problems = checkPostAgainstNetworks(post, context)
  return post.entries.flatMap((entry) => {
    const channel = context.channels.find((c) => c.id === entry.channelId)
    if (channel === undefined) return []
    const { name, network } = channel
    const warnings: Array<{ message: string }> = []
    const items = entry.items.map((item, index): PreviewItem => {
      const content = textAsSent(post, item.content, network, publicUrl)
      const length = postLength(network, content)
      const where = index === 0 ? "the post" : `follow-up ${index}`
      if (length <= network.maxLength && length >= Math.ceil(network.maxLength * CLOSE_TO_LIMIT)) {
        warnings.push({ message: `${name}: ${where} is ${length} of ${network.maxLength} characters, close to the limit.` })
      }
      if (item.media.length === network.maxMedia && network.maxMedia > 1) {
        warnings.push({ message: `${name}: ${where} has ${item.media.length} files, the most ${network.name} takes.` })
      }
      return {
        content,
        length,
        maxLength: network.maxLength,
        media: item.media.map((ref): PreviewMedia => {
          const file = ref.id === null ? undefined : library(ref.id)
          return file === undefined
            ? { id: ref.id, path: ref.path, name: null, type: null, size: null }
            : { id: file.id, path: file.path, name: file.name, type: file.type, size: file.size }
        })
      }
    })
    return [
      {
        channelId: channel.id,
        channelName: name,
        network: network.identifier,
        items,
        settings: entry.settings,
        preparation: mediaPreparationOf(post, channel.id, context),
        problems: problems.filter((p) => p.channelId === channel.id).map((p) => ({ message: p.message })),
        warnings
      }
    ]
  })
}

/** What a plan is bound to, per channel: its state as the rules see it, and its network's rules. */
export interface PlanChannel {
  readonly channelId: string
  readonly channelName: string
  /** A digest of the channel's state (name, network, disabled, reconnect needed, customer approval, default settings). */
  readonly state: string
  /** A digest of its network's rules (the catalog entry). */
  readonly rules: string
}

export interface Plan {
  /** A digest of the body (key order does not matter). */
  readonly body: string
  readonly channels: ReadonlyArray<PlanChannel>
}

/** What changed between a plan and now, in plain words; empty when nothing did. */
export const planChanges = (previewed: Plan, now: Plan): ReadonlyArray<string> => {
  const changes: Array<string> = []
  if (previewed.body !== now.body) changes.push("the body is not the one previewed")
  for (const before of previewed.channels) {
    const after = now.channels.find((c) => c.channelId === before.channelId)
    if (after === undefined) changes.push(`the channel ${before.channelName} was disconnected`)
    else {
      if (after.state !== before.state) changes.push(`the channel ${before.channelName} changed (connection, settings or approval)`)
      if (after.rules !== before.rules) changes.push(`the rules of ${before.channelName}'s network changed`)
    }
  }
  return changes
}
