import { Effect, Schema } from "effect"
import { planMedia, type FileToPlan } from "../../domain/media/mediaPlan.js"
import { targetKey, type RenditionTarget } from "../../domain/media/preparation.js"
import { mediaRulesOf } from "../../domain/networks/mediaRules.js"
import { PrepareJobJson } from "../../protocol/jobs.js"
import { Nats } from "../platform/nats.js"
import type { StoredMedia } from "../posts/rows.js"
import { RenditionsRepo, type RenditionRow } from "./renditionsRepo.js"

/**
 * Renditions as the rest of the service asks for them: the files of a post's item planned
 * against its channel's network (domain/media/mediaPlan.ts), each needed rendition recorded
 * once (media_renditions) and its preparation job put on PREPARE; and, when all are ready,
 * the item's files with each replaced by its rendition for the network adapter.
 */

const encodeJob = Schema.encodeSync(PrepareJobJson)

/**
 * A file of a post replaced by its rendition: the adapter reads `renditionKey` from storage,
 * and a video's cover frame (made when its network takes one) from `coverKey`
 * (services/networks/networkDeps.ts, `media.readCover`, `publicMedia.coverAddressOf`).
 */
export type MediaToSend = StoredMedia & { readonly renditionKey?: string; readonly coverKey?: string }

export interface WantedRendition {
  readonly mediaId: string
  readonly target: RenditionTarget
}

/**
 * Records the renditions (pending unless they exist) and puts a job on PREPARE for each
 * pending one no job holds. The message id is the rendition's, so the stream drops a
 * repeat of the same request within its duplicate window; a job that finds the rendition ready or held leaves it.
 */
export const requestRenditions = (wanted: ReadonlyArray<WantedRendition>) =>
  Effect.gen(function* () {
    const repo = yield* RenditionsRepo
    const nats = yield* Nats
    const unique = [...new Map(wanted.map((w) => [`${w.mediaId} ${targetKey(w.target)}`, w])).values()]
    const rows = yield* repo.ensure(unique.map((w) => ({ mediaId: w.mediaId, targetKey: targetKey(w.target), target: w.target })))
    const toStart = rows.filter((r) => r.status === "pending" && r.leaseLeftMs === 0)
    yield* Effect.forEach(
      toStart,
      (r) =>
        Effect.tryPromise(() =>
          nats.jetstream.publish(nats.names.prepareSubject(r.mediaId), encodeJob({ mediaId: r.mediaId, targetKey: r.targetKey }), {
            // a rendition made pending again (after a failure) has a new change time, so its new job is not taken for a repeat
            msgID: `${r.mediaId}:${r.targetKey}:${r.changedAt}`
          })
        ).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`preparation job ${r.mediaId}:${r.targetKey} not enqueued; asked again later`, cause))
        ),
      { concurrency: 8, discard: true }
    )
    return rows
  })

/** What an item's files are for its network right now. */
export type ItemMedia =
  | { readonly _tag: "Ready"; readonly media: ReadonlyArray<MediaToSend> }
  | { readonly _tag: "Waiting" }
  | { readonly _tag: "Failed"; readonly message: string; readonly fix: string }

const extensionOf = (mime: string) =>
  mime === "image/jpeg" ? "jpg" : mime === "image/png" ? "png" : mime === "video/mp4" ? "mp4" : (mime.split("/")[1] ?? "bin")

/** "IMG_1.heic" with a JPEG rendition → "IMG_1.jpg" (networks that keep file names show it). */
const renamed = (name: string, mime: string) => `${name.replace(/\.[^./\\]+$/, "")}.${extensionOf(mime)}`

/** The item's files planned for its network: what to prepare, and which file each plan is for. */
const planFor = (network: string, settings: Readonly<Record<string, unknown>>, media: ReadonlyArray<StoredMedia>) =>
  Effect.gen(function* () {
    const rules = mediaRulesOf(network, settings)
    if (rules === null || media.length === 0) return null
    const repo = yield* RenditionsRepo
    const known = new Map((yield* repo.factsOf(media.map((m) => m.id))).map((r) => [r.id, r]))
    // files outside the library, or stored before facts were kept, go as they are
    const indexed = media.flatMap((m, index) => {
      const row = known.get(m.id)
      return row === undefined || row.facts === null ? [] : [{ index, file: { name: row.name, facts: row.facts } satisfies FileToPlan }]
    })
    if (indexed.length === 0) return null
    return {
      indexed,
      plan: planMedia(
        indexed.map((i) => i.file),
        rules
      )
    }
  })

/**
 * Asks for the renditions an item's files need on its network and answers where they
 * stand: all ready (the files to send, each replaced by its rendition), some still being
 * made, or one that failed (its reason and fix become the item's error). Files that need
 * no rendition are sent as they are.
 */
export const itemMedia = (item: {
  readonly network: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly media: ReadonlyArray<StoredMedia>
}) =>
  Effect.gen(function* () {
    const planned = yield* planFor(item.network, item.settings, item.media)
    if (planned === null) return { _tag: "Ready", media: item.media } satisfies ItemMedia
    const { indexed, plan } = planned
    if (plan._tag === "Refused") {
      // the rules changed since the post was saved (its settings, or this service's rules)
      return {
        _tag: "Failed",
        message: `The files cannot go to this network: ${plan.problems.join(" ")}`,
        fix: "Change the files of the post (or its settings), then retry it."
      } satisfies ItemMedia
    }
    const wanted = plan.files.flatMap((f, i) => (f._tag === "Prepare" ? [{ index: indexed[i]!.index, target: f.target }] : []))
    if (wanted.length === 0) return { _tag: "Ready", media: item.media } satisfies ItemMedia
    const rows = yield* requestRenditions(wanted.map((w) => ({ mediaId: item.media[w.index]!.id, target: w.target })))
    const rowFor = (w: (typeof wanted)[number]): RenditionRow | undefined =>
      rows.find((r) => r.mediaId === item.media[w.index]!.id && r.targetKey === targetKey(w.target))
    const failed = wanted.map(rowFor).find((r) => r?.status === "failed")
    if (failed !== undefined) {
      return {
        _tag: "Failed",
        message: failed.error?.message ?? "A file could not be prepared.",
        fix: failed.error?.fix ?? "Upload the file again, then retry the post."
      } satisfies ItemMedia
    }
    if (wanted.some((w) => rowFor(w)?.status !== "ready")) return { _tag: "Waiting" } satisfies ItemMedia
    const media = item.media.map((m, index): MediaToSend => {
      const w = wanted.find((x) => x.index === index)
      const row = w === undefined ? undefined : rowFor(w)
      if (row === undefined || row.storageKey === null || row.mime === null) return m
      return {
        ...m,
        mime: row.mime,
        name: renamed(m.name, row.mime),
        size: row.bytes ?? m.size,
        renditionKey: row.storageKey,
        ...(row.coverKey === null ? {} : { coverKey: row.coverKey })
      }
    })
    return { _tag: "Ready", media } satisfies ItemMedia
  })

/** The renditions an item's files need on its network (none when its files go as they are or cannot go). */
const wantedBy = (item: {
  readonly network: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly media: ReadonlyArray<StoredMedia>
}) =>
  Effect.map(planFor(item.network, item.settings, item.media), (planned): ReadonlyArray<WantedRendition> => {
    if (planned === null || planned.plan._tag === "Refused") return []
    const { indexed, plan } = planned
    return plan.files.flatMap((f, i) => (f._tag === "Prepare" ? [{ mediaId: item.media[indexed[i]!.index]!.id, target: f.target }] : []))
  })

/**
 * A post retried, or re-queued by an edit: the renditions its items need that failed are
 * made pending again (run in the change's transaction, so the publisher never sees the old
 * failure once the item is queued); prepareAhead then starts their jobs. Ready ones are reused.
 */
export const retryFailedRenditions = (
  entries: ReadonlyArray<{
    readonly network: string
    readonly settings: Readonly<Record<string, unknown>>
    readonly media: ReadonlyArray<StoredMedia>
  }>
) =>
  Effect.gen(function* () {
    const repo = yield* RenditionsRepo
    const wanted = (yield* Effect.forEach(entries, wantedBy)).flat()
    yield* repo.resetFailed(wanted.map((w) => ({ mediaId: w.mediaId, targetKey: targetKey(w.target) })))
  })

/**
 * When a post is saved: the renditions its channels will need are asked for now, so a
 * long transcode is done before the post falls due. Best effort: the publisher asks again
 * when the item falls due.
 */
export const prepareAhead = (
  entries: ReadonlyArray<{
    readonly network: string
    readonly settings: Readonly<Record<string, unknown>>
    readonly media: ReadonlyArray<StoredMedia>
  }>
) =>
  Effect.forEach(entries, (entry) => itemMedia(entry), { discard: true }).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("renditions not asked for at save; the publisher asks when the post falls due", cause))
  )
