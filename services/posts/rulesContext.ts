import { Option } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import type { MediaRef, NormalizedPost, PostEntry } from "../../domain/posts/normalizedPost.js"
import { kindOfAddress, type ChannelForRules, type MediaForRules } from "../../domain/posts/rules.js"
import type { MediaForPost } from "../media/mediaRepo.js"
import type { ChannelRow } from "../repos/channelsRepo.js"
import type { LoadedPost } from "./postsReadRepo.js"
import { decodeSettings, decodeStoredMedia, type StoredItem, type StoredMedia } from "./rows.js"

/**
 * What the network rules (domain/posts/rules.ts) are given about a post's channels and
 * files, from the rows the writer read; and what an item keeps of a file.
 */

export const channelForRules = (c: Pick<ChannelRow, "id" | "name" | "network" | "disabled" | "refreshNeeded" | "inBetweenSteps">) =>
  Option.match(findNetwork(c.network), {
    onNone: (): ReadonlyArray<ChannelForRules> => [],
    onSome: (network) => [{ id: c.id, name: c.name, network, disabled: c.disabled, refreshNeeded: c.refreshNeeded, inBetweenSteps: c.inBetweenSteps }]
  })

/** What the rules need of a library item: its kind, type, name and facts, as the library recorded them. */
export const libraryMediaForRules = (m: Pick<MediaForPost, "id" | "type" | "mime" | "name" | "facts">): MediaForRules => ({
  id: m.id,
  type: m.type === "video" ? "video" : "image",
  mime: m.mime,
  name: m.name,
  facts: m.facts
})

/** The snapshot an item keeps of a file: the library's record, or what an outside address tells. */
export const mediaSnapshot = (ref: MediaRef, known: ReadonlyMap<string, MediaForPost>): StoredMedia => {
  const row = ref.id === null ? undefined : known.get(ref.id)
  if (row !== undefined) {
    return {
      id: row.id,
      alt: ref.alt ?? row.alt,
      url: row.path,
      mime: row.mime,
      name: row.name,
      size: row.size,
      type: row.type,
      width: row.width ?? 0,
      height: row.height ?? 0,
      ...(row.facts !== null ? { facts: row.facts } : {})
    }
  }
  const path = ref.path ?? ""
  const name = path.split("/").pop()?.split("?")[0] ?? ""
  return { id: ref.id ?? "", alt: ref.alt ?? "", url: path, mime: "", name, size: 0, type: kindOfAddress(path), width: 0, height: 0 }
}

/**
 * A stored post read back as a NormalizedPost with the rules context of its stored files:
 * a file keeps the kind it had when saved (a video stays a video), so checking a stored
 * draft answers exactly what checking the same body on POST /posts answers.
 */
export const storedPostForRules = (
  loaded: LoadedPost,
  posts: LoadedPost["posts"],
  items: ReadonlyArray<StoredItem>
): { readonly post: NormalizedPost | null; readonly media: ReadonlyMap<string, MediaForRules> } => {
  const media = new Map<string, MediaForRules>()
  const entries: Array<PostEntry> = posts.flatMap((p) => {
    const [first, ...rest] = items
      .filter((i) => i.postId === p.id)
      .map((i) => ({
        content: i.content,
        delay: i.position === 0 ? 0 : i.delayMinutes,
        media: decodeStoredMedia(i.media).map((m): MediaRef => {
          if (m.id !== "")
            media.set(m.id, { id: m.id, type: m.type === "video" ? "video" : "image", mime: m.mime, name: m.name, facts: m.facts ?? null })
          return { id: m.id === "" ? null : m.id, path: m.url, alt: m.alt }
        })
      }))
    return first === undefined ? [] : [{ channelId: p.channelId, groupId: p.groupId, items: [first, ...rest], settings: decodeSettings(p.settings) }]
  })
  const [head, ...tail] = entries
  if (head === undefined) return { post: null, media }
  return {
    post: {
      type: "schedule",
      date: loaded.group.publishAt,
      dateGiven: true,
      groupId: loaded.group.id,
      entries: [head, ...tail],
      tags: [],
      shortLink: loaded.group.shortLink,
      repeatDays: loaded.group.repeatDays,
      creationMethod: null
    },
    media
  }
}

/** The post's settings over each channel's default settings (the post's own win). */
export const withChannelDefaults = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>): NormalizedPost => {
  const defaults = new Map(channels.map((c) => [c.id, c.defaultSettings ?? {}]))
  const fill = (e: PostEntry): PostEntry => {
    const d = defaults.get(e.channelId) ?? {}
    return Object.keys(d).length === 0 ? e : { ...e, settings: { ...d, ...e.settings } }
  }
  const [head, ...tail] = post.entries
  return { ...post, entries: [fill(head), ...tail.map(fill)] }
}
