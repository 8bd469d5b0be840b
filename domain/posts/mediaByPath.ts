import type { MediaRef, NormalizedPost, PostEntry, PostItem } from "./normalizedPost.js"
import { isWebAddress } from "./rules.js"

/**
 * A file given by `path` (what the reference CLI sends: a made-up id next to a public
 * address) is read as the spec says: the path names a file, so the service takes the file
 * itself. An address of the workspace's own library (an upload's `path`) is that library
 * item; any other http(s) address is imported into the library through the SSRF-safe
 * client, so the post keeps the file's real id, type, size and kind and the rules check
 * what it is, not what its name says. Pure: the caller finds and imports the files.
 */

/**
 * False when no object anywhere in the raw body has a `path` text: then no file is given by
 * path (a media object is the only place the body reads one), and nothing needs resolving
 * before the body is read in full. True also for `path` keys elsewhere (in settings): the
 * caller then reads the body to know.
 */
export const mayNameFileByPath = (body: unknown): boolean => {
  if (Array.isArray(body)) return body.some(mayNameFileByPath)
  if (typeof body !== "object" || body === null) return false
  for (const [key, value] of Object.entries(body)) {
    if (key === "path" ? typeof value === "string" : mayNameFileByPath(value)) return true
  }
  return false
}

const refs = (post: NormalizedPost): ReadonlyArray<MediaRef> => post.entries.flatMap((e) => e.items.flatMap((i) => i.media))

/** Every media id the body names (known or not). */
export const mediaIdsOf = (post: NormalizedPost): ReadonlyArray<string> => refs(post).flatMap((m) => (m.id === null ? [] : [m.id]))

/** The http(s) addresses of files the library does not know by id: each must be found or imported. */
export const pathsToResolve = (post: NormalizedPost, isKnownId: (id: string) => boolean): ReadonlyArray<string> => [
  ...new Set(refs(post).flatMap((m) => (m.path !== null && (m.id === null || !isKnownId(m.id)) && isWebAddress(m.path) ? [m.path] : [])))
]

/** The post with every file given by a resolved path pointing at its library item. */
export const withMediaByPath = (post: NormalizedPost, isKnownId: (id: string) => boolean, byPath: ReadonlyMap<string, string>): NormalizedPost => {
  if (byPath.size === 0) return post
  const ref = (m: MediaRef): MediaRef => {
    if (m.id !== null && isKnownId(m.id)) return m
    const id = m.path === null ? undefined : byPath.get(m.path)
    return id === undefined ? m : { ...m, id }
  }
  const item = (i: PostItem): PostItem => ({ ...i, media: i.media.map(ref) })
  const entry = (e: PostEntry): PostEntry => {
    const [first, ...rest] = e.items
    return { ...e, items: [item(first), ...rest.map(item)] }
  }
  const [head, ...tail] = post.entries
  return { ...post, entries: [entry(head), ...tail.map(entry)] }
}
