import type { EventTemplate } from "./nostrCrypto.js"
import type { StoredMedia } from "../storedMedia.js"
import type { UploadedFile } from "./blossom.js"

/**
 * The kind 1 text note of an item (NIP-01): its text, the files' addresses on their own
 * lines (clients show an image address inline) with an `imeta` tag each (NIP-92), and for a
 * follow-up the NIP-10 marked `e` tags (the thread's root, and the note it answers) with a
 * `p` tag for their author.
 */
export const noteTemplate = (input: {
  readonly content: string
  readonly files: ReadonlyArray<{ readonly uploaded: UploadedFile; readonly media: StoredMedia | undefined }>
  readonly author: string
  readonly relayHint: string
  readonly previousReleaseId: string | null
  readonly rootReleaseId: string | null
  readonly createdAt: number
}): EventTemplate => {
  const urls = input.files.map((f) => f.uploaded.url)
  const content = [input.content.trim(), ...urls].filter((part) => part !== "").join("\n\n")
  const imeta = input.files.map(({ media, uploaded }) => [
    "imeta",
    `url ${uploaded.url}`,
    `m ${uploaded.mime}`,
    `x ${uploaded.sha256}`,
    `size ${uploaded.size}`,
    ...(media?.width && media.height ? [`dim ${media.width}x${media.height}`] : []),
    ...(media?.alt ? [`alt ${media.alt}`] : [])
  ])
  const thread: Array<Array<string>> = []
  if (input.previousReleaseId !== null) {
    const root = input.rootReleaseId ?? input.previousReleaseId
    thread.push(["e", root, input.relayHint, "root", input.author])
    if (input.previousReleaseId !== root) thread.push(["e", input.previousReleaseId, input.relayHint, "reply", input.author])
    thread.push(["p", input.author])
  }
  return { kind: 1, created_at: input.createdAt, content, tags: [...thread, ...imeta] }
}
