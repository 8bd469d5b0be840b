import { Effect, Option, Schema } from "effect"
import { type NetworkAnswer, PublishAnswer, type Progress, type PublishRequest, SearchAnswer } from "./adapter.js"
import { graphErrorOf, isCapReached, nothingPublished } from "./metaGraph.js"
import type { PublicMediaShape } from "./networkDeps.js"

/**
 * A publish through Meta containers (Instagram's `/media` + `/media_publish`, Threads'
 * `/threads` + `/threads_publish`), one step per call (docs/publishing.md, "Publishes in
 * several steps"): make the item containers (carousel children first, then their parent),
 * look at the container's status, and publish it once it is FINISHED. Each step that must
 * wait answers `Pending` with the containers made so far, and the next call goes on from
 * them: a container in the progress is never made again, unless the network says it
 * EXPIRED (nothing was published from it).
 */

/** How long to wait before looking at a container still being processed. */
export const PROCESSING_WAIT_MS = 5_000
/** How long to wait when the account's publishing cap is full. */
export const CAP_WAIT_MS = 15 * 60_000

export const ContainerProgress = Schema.Struct({
  phase: Schema.Literal("children", "container"),
  containerId: Schema.optional(Schema.String),
  childIds: Schema.optional(Schema.Array(Schema.String))
})
export type ContainerProgress = typeof ContainerProgress.Type

export type ContainerCode = "FINISHED" | "IN_PROGRESS" | "ERROR" | "EXPIRED" | "PUBLISHED"
export interface ContainerStatus {
  readonly code: ContainerCode
  /** The network's own words for an ERROR. */
  readonly reason: string
}

/** A file as the network fetches it: its public address and whether it is a video. */
export interface PublicFile {
  readonly url: string
  readonly video: boolean
  /** The file's description for people using screen readers ("" when none). */
  readonly alt: string
}

/** The item's files as signed public addresses the network fetches (publicMedia.addressOf). */
export const publicFilesOf = (publicMedia: PublicMediaShape, request: PublishRequest): Effect.Effect<ReadonlyArray<PublicFile>, PublishAnswer> =>
  Effect.forEach(request.media, (m) =>
    publicMedia.addressOf(m).pipe(
      Effect.map((url): PublicFile => ({ url, video: m.type === "video" || m.mime.startsWith("video/"), alt: m.alt })),
      Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
    )
  )

/** How one network makes, inspects and publishes containers. */
export interface ContainerNetwork {
  readonly name: string
  readonly create: (fields: Readonly<Record<string, string>>) => Effect.Effect<NetworkAnswer>
  /** The container's status, None when the network gave no readable answer (with that answer). */
  readonly status: (containerId: string) => Effect.Effect<readonly [Option.Option<ContainerStatus>, NetworkAnswer]>
  readonly publish: (containerId: string) => Effect.Effect<NetworkAnswer>
  /** The publish call's answer (an id → Published). */
  readonly classify: (answer: NetworkAnswer) => PublishAnswer
  /** The published post's address, asked after its id came (a fallback when the network does not say). */
  readonly permalink: (id: string) => Effect.Effect<string>
  /** Before publishing: what the item waits for when the account's cap is full, None when there is room. */
  readonly capFull: Effect.Effect<Option.Option<string>>
  /** A container the network says is PUBLISHED: its post among the recent ones. */
  readonly findPublished: Effect.Effect<SearchAnswer>
}

/** The fields of the containers one item needs. */
export interface ContainerPlan {
  /** The files, read (public addresses made) only when containers are made. */
  readonly files: Effect.Effect<ReadonlyArray<PublicFile>, PublishAnswer>
  /** The one container of a text, a photo, a video or a story. */
  readonly single: (file: PublicFile | null) => Readonly<Record<string, string>>
  readonly child: (file: PublicFile) => Readonly<Record<string, string>>
  readonly parent: (childIds: ReadonlyArray<string>) => Readonly<Record<string, string>>
}

const pending = (
  progress: ContainerProgress,
  waitingFor: string,
  kind: "processing" | "network-limit" = "processing",
  retryAfterMs = PROCESSING_WAIT_MS
) => PublishAnswer.Pending({ progress: progress as Progress, kind, waitingFor, retryAfterMs })

/** The progress an earlier step answered, None for a first step (or a progress of another shape). */
export const containerProgressOf = (progress: Progress | null): Option.Option<ContainerProgress> =>
  progress === null ? Option.none() : Schema.decodeUnknownOption(ContainerProgress)(progress)

export const publishInSteps = (net: ContainerNetwork, plan: ContainerPlan, progress: Progress | null): Effect.Effect<PublishAnswer> => {
  const made = (answer: NetworkAnswer, what: string) =>
    Effect.gen(function* () {
      const result = net.classify(answer)
      if (result._tag !== "Published") return yield* Effect.fail(nothingPublished(result, what))
      return result.releaseId
    })

  /** A status that could not be read: look again later with the same containers (nothing is lost). */
  const unreadable = (p: ContainerProgress, answer: NetworkAnswer): Effect.Effect<PublishAnswer, PublishAnswer> => {
    const said = net.classify(answer)
    if (said._tag === "Rejected") return Effect.fail(said)
    const wait = said._tag === "RateLimited" ? said.retryAfterMs : PROCESSING_WAIT_MS
    return Effect.succeed(pending(p, `${net.name} did not say how its container stands; looking again`, "processing", wait))
  }

  // what a call makes is fresh: it is never made again in the same call (`restarted`)
  const start = (): Effect.Effect<PublishAnswer, PublishAnswer> =>
    Effect.gen(function* () {
      const files = yield* plan.files
      if (files.length > 1) {
        const childIds: Array<string> = []
        for (const file of files) childIds.push(yield* made(yield* net.create(plan.child(file)), "making a carousel item"))
        return yield* children(childIds, true)
      }
      const id = yield* made(yield* net.create(plan.single(files[0] ?? null)), "making the container")
      return yield* container({ phase: "container", containerId: id }, true)
    })

  const children = (childIds: ReadonlyArray<string>, restarted: boolean): Effect.Effect<PublishAnswer, PublishAnswer> =>
    Effect.gen(function* () {
      const p: ContainerProgress = { phase: "children", childIds }
      for (const id of childIds) {
        const [status, answer] = yield* net.status(id)
        if (Option.isNone(status)) return yield* unreadable(p, answer)
        switch (status.value.code) {
          case "ERROR":
            return yield* Effect.fail(rejectedFor(status.value.reason))
          case "EXPIRED":
          case "PUBLISHED": // a carousel item is never published on its own: make them again
            return restarted ? pending({ phase: "children", childIds: [] }, `${net.name}'s containers expired`) : yield* start()
          case "IN_PROGRESS":
            return pending(p, `${net.name} is processing the carousel's files`)
          case "FINISHED":
            break
        }
      }
      // the items are ready: a carousel that cannot be made now is made from them later, never from new items
      const parent = yield* made(yield* net.create(plan.parent(childIds)), "making the carousel").pipe(
        Effect.catchAll((why) =>
          why._tag === "FailedBeforeSending" || why._tag === "RateLimited"
            ? Effect.fail(
                pending(
                  p,
                  `${net.name} did not make the carousel yet; trying again`,
                  "processing",
                  why._tag === "RateLimited" ? why.retryAfterMs : PROCESSING_WAIT_MS
                )
              )
            : Effect.fail(why)
        )
      )
      return yield* container({ phase: "container", containerId: parent, childIds }, restarted)
    })

  const container = (p: ContainerProgress & { readonly containerId: string }, restarted: boolean): Effect.Effect<PublishAnswer, PublishAnswer> =>
    Effect.gen(function* () {
      const [status, answer] = yield* net.status(p.containerId)
      if (Option.isNone(status)) return yield* unreadable(p, answer)
      switch (status.value.code) {
        case "ERROR":
          return yield* Effect.fail(rejectedFor(status.value.reason))
        case "EXPIRED":
          // nothing was published from it: a new container is safe (once per call)
          return restarted ? pending(p, `${net.name}'s container expired`) : yield* start()
        case "IN_PROGRESS":
          return pending(p, `${net.name} is processing the post's container`)
        case "PUBLISHED": {
          const found = yield* net.findPublished
          return found._tag === "Found"
            ? PublishAnswer.Published({ releaseId: found.releaseId, releaseUrl: found.releaseUrl })
            : PublishAnswer.NoAnswer({ reason: `${net.name} says the container is published, but its post is not among the recent ones yet` })
        }
        case "FINISHED": {
          const full = yield* net.capFull
          if (Option.isSome(full)) return pending(p, full.value, "network-limit", CAP_WAIT_MS)
          const answer = yield* net.publish(p.containerId)
          // the cap filled between the look and the publish (or is not read first): the same container waits
          if (answer._tag === "Response" && answer.response.status < 500 && Option.exists(graphErrorOf(answer.response), isCapReached)) {
            return pending(p, `${net.name}'s cap on posts per 24 hours is full; the post goes out when it frees`, "network-limit", CAP_WAIT_MS)
          }
          const result = net.classify(answer)
          if (result._tag !== "Published") return result
          return PublishAnswer.Published({ releaseId: result.releaseId, releaseUrl: yield* net.permalink(result.releaseId) })
        }
      }
    })

  const rejectedFor = (reason: string) =>
    PublishAnswer.Rejected({
      message: `${net.name} could not use the post's media: ${reason}`,
      fix: "Check that the files are a JPEG/PNG photo or an MP4 video the network takes, then retry."
    })

  const step = Option.match(containerProgressOf(progress), {
    onNone: start,
    onSome: (p) =>
      p.phase === "container" && p.containerId !== undefined
        ? container({ ...p, containerId: p.containerId }, false)
        : p.childIds !== undefined && p.childIds.length > 0
          ? children(p.childIds, false)
          : start()
  })
  return Effect.catchAll(step, Effect.succeed)
}

/**
 * A search with progress: ask the container first. Not PUBLISHED → Unfinished (the network
 * says for sure it is not live: go on from it); PUBLISHED → its post among the recent ones.
 */
export const searchWithContainer = (
  net: ContainerNetwork,
  progress: Progress | null,
  listed: Effect.Effect<SearchAnswer>
): Effect.Effect<SearchAnswer> =>
  Effect.gen(function* () {
    const p = containerProgressOf(progress)
    if (Option.isNone(p) || p.value.containerId === undefined) return yield* listed
    const [status] = yield* net.status(p.value.containerId)
    if (Option.isNone(status)) return yield* listed
    if (status.value.code === "PUBLISHED") {
      const found = yield* listed
      return found._tag === "NotFound"
        ? SearchAnswer.CannotTell({ reason: `${net.name} says the container is published; its post is not listed yet` })
        : found
    }
    return SearchAnswer.Unfinished({ progress: p.value as Progress })
  })
