import { Effect, Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { VideoFacts } from "../../../domain/media/preparation.js"
import { itemMedia } from "../../../services/media/renditions.js"
import { type RenditionRow, RenditionsRepo } from "../../../services/media/renditionsRepo.js"
import { Nats, type NatsShape } from "../../../services/platform/nats.js"
import type { StoredMedia } from "../../../services/posts/rows.js"

/**
 * itemMedia hands a video's cover frame to the adapter: a ready rendition's `cover_key`
 * becomes the file's `coverKey` next to its `renditionKey` (Reddit's video poster,
 * Pinterest's video pin cover); a file that goes as it is carries neither.
 */

const facts: VideoFacts = {
  kind: "video",
  container: "mp4",
  videoCodec: "h264",
  audioCodec: "aac",
  durationSeconds: 30,
  width: 1280,
  height: 720,
  frameRate: 30,
  bitrateKbps: 4000,
  bytes: 15 * 1024 * 1024
}

const videoFile: StoredMedia = {
  id: crypto.randomUUID(),
  alt: "",
  url: "https://files.example/clip.mp4",
  mime: "video/mp4",
  name: "clip.mp4",
  size: facts.bytes,
  type: "video",
  width: 1280,
  height: 720
}

/** Renditions as the repo would answer them: every wanted one ready, with this cover key. */
const repoWith = (coverKey: string | null, withFacts: boolean) =>
  Layer.succeed(RenditionsRepo, {
    ofMedia: () => Effect.succeed([]),
    ensure: (wanted) =>
      Effect.succeed(
        wanted.map(
          (w): RenditionRow => ({
            mediaId: w.mediaId,
            targetKey: w.targetKey,
            status: "ready",
            storageKey: `ws/${w.mediaId}.${w.targetKey}.mp4`,
            bytes: 1000,
            mime: "video/mp4",
            coverKey,
            error: null,
            changedAt: 1,
            leaseLeftMs: 0
          })
        )
      ),
    resetFailed: () => Effect.void,
    forJob: () => Effect.succeed(Option.none()),
    claim: () => Effect.succeed(false),
    markReady: () => Effect.void,
    markFailed: () => Effect.void,
    factsOf: (ids) => Effect.succeed(withFacts ? ids.map((id) => ({ id, name: "clip.mp4", facts })) : []),
    holdItem: () => Effect.void,
    releaseItem: () => Effect.void
  })

// every rendition is ready, so no preparation job is put on NATS: an empty stand-in is enough
const noNats = Layer.succeed(Nats, {} as NatsShape)

const mediaFor = (network: string, coverKey: string | null, withFacts = true) =>
  Effect.runPromise(itemMedia({ network, settings: {}, media: [videoFile] }).pipe(Effect.provide(Layer.merge(repoWith(coverKey, withFacts), noNats))))

describe("itemMedia: covers for the adapters", () => {
  it("a video prepared for Reddit (whose rules take a cover) carries its rendition's cover_key as coverKey", async () => {
    const answer = await mediaFor("reddit", "ws/clip.video.cover.jpg")
    if (answer._tag !== "Ready") throw new Error(`expected Ready, got ${answer._tag}`)
    expect(answer.media[0]).toMatchObject({ renditionKey: expect.stringMatching(/^ws\//), coverKey: "ws/clip.video.cover.jpg" })
  })

  it("a rendition without a cover gives no coverKey; a file without facts goes as it is, with neither key", async () => {
    const bare = await mediaFor("reddit", null)
    if (bare._tag !== "Ready") throw new Error(`expected Ready, got ${bare._tag}`)
    expect(bare.media[0]).toHaveProperty("renditionKey")
    expect(bare.media[0]).not.toHaveProperty("coverKey")
    const asIs = await mediaFor("reddit", "ws/unused.cover.jpg", false)
    if (asIs._tag !== "Ready") throw new Error(`expected Ready, got ${asIs._tag}`)
    expect(asIs.media[0]).toEqual(videoFile)
  })
})
