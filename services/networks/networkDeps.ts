import { Context, Data, Effect, Layer, Option } from "effect"
import { MediaStorage } from "../platform/storage/mediaStorage.js"
import { AppConfig } from "../platform/config.js"
import { decryptSecret, encryptSecret } from "../platform/secrets.js"
import { isSignableKey, signedMediaUrl } from "../platform/storage/signedMediaUrls.js"
import { OutboundHttp, type OutboundHttpShape } from "../platform/outbound/outboundHttp.js"
import type { StoredMedia } from "./storedMedia.js"
import { makeMediaFilesRepo } from "./mediaFilesRepo.js"
import { makeNetworkAppsRepo } from "./networkAppsRepo.js"

/** A file of a post could not be read for upload to a network. */
export class MediaUnavailable extends Data.TaggedError("MediaUnavailable")<{ readonly message: string }> {}

export interface MediaFile {
  readonly bytes: Buffer
  readonly mime: string
  readonly name: string
}

/** Reads a post's files for upload: from this service's storage when they are ours, else over HTTP. */
export interface MediaFilesShape {
  readonly read: (media: StoredMedia) => Effect.Effect<MediaFile, MediaUnavailable>
  /**
   * The cover frame (JPEG) preparation made for a video whose network takes one
   * (domain/networks/mediaRules.ts `cover`); None when the file went as it is, without a cover.
   */
  readonly readCover: (media: StoredMedia) => Effect.Effect<Option.Option<MediaFile>, MediaUnavailable>
}

/** The storage key of a file's cover, when preparation made one (services/media/renditions.ts `MediaToSend`). */
export const coverKeyOf = (media: StoredMedia): Option.Option<string> =>
  "coverKey" in media && typeof media.coverKey === "string" && media.coverKey !== "" ? Option.some(media.coverKey) : Option.none()

/** The cover's file name: "clip.mp4" → "clip.cover.jpg". */
export const coverNameOf = (media: StoredMedia) => `${media.name.replace(/\.[^./\\]+$/, "")}.cover.jpg`

/**
 * Public addresses of a post's files, for the networks that fetch media themselves
 * (Instagram, Threads, Facebook, TikTok pull, Pinterest, Google Business Profile).
 */
export interface PublicMediaShape {
  /**
   * A signed, expiring `PUBLIC_URL/media-files/<token>` address of the file (its rendition
   * for this network when it has one), served by any gateway from local or S3 storage; it
   * opens that one file until it expires and nothing else. A file from elsewhere (not in
   * the media library) keeps its own address.
   */
  readonly addressOf: (media: StoredMedia, ttlSeconds?: number) => Effect.Effect<string, MediaUnavailable>
  /** A signed address of the file's cover frame, as addressOf; None when the file has no cover. */
  readonly coverAddressOf: (media: StoredMedia, ttlSeconds?: number) => Effect.Effect<Option.Option<string>, MediaUnavailable>
}

/**
 * What every adapter is built with: the SSRF-safe outbound client (OUTBOUND_ALLOW
 * included), the post's files (bytes, and public addresses for networks that fetch them)
 * and app registrations. Adapters read their own base addresses and keys from the
 * environment when they are built (docs/networks.md, "Configuration of the networks").
 */
export class NetworkDeps extends Context.Tag("networks/NetworkDeps")<
  NetworkDeps,
  {
    readonly outbound: OutboundHttpShape
    readonly media: MediaFilesShape
    readonly publicMedia: PublicMediaShape
    readonly apps: AppRegistrationsShape
  }
>() {}

/** How long a network may take to fetch a file from its signed address (containers are processed within hours). */
export const PUBLIC_MEDIA_TTL_SECONDS = 24 * 3600

/** This server's app on one server of a network (a Mastodon instance), for one callback address. */
export interface AppRegistration {
  readonly clientId: string
  readonly clientSecret: string
}

/**
 * Where app registrations are kept (table network_apps, the secret encrypted): an
 * adapter that registers itself per server (Mastodon) registers once and reuses it.
 */
export interface AppRegistrationsShape {
  readonly find: (key: {
    readonly network: string
    readonly instance: string
    readonly redirectUri: string
  }) => Effect.Effect<Option.Option<AppRegistration>>
  readonly save: (
    key: { readonly network: string; readonly instance: string; readonly redirectUri: string },
    app: AppRegistration
  ) => Effect.Effect<void>
}

/** Largest file sent to a network (the networks' own limits are lower). */
const MAX_MEDIA_BYTES = 512 * 1024 * 1024

/** Files of the media library are read from storage by id; anything else is downloaded. */
export const makeMediaFiles = Effect.gen(function* () {
  const repo = yield* makeMediaFilesRepo
  const storage = yield* MediaStorage
  const outbound = yield* OutboundHttp
  const unavailable = (media: StoredMedia, why: string) => new MediaUnavailable({ message: `The file ${media.name} could not be read (${why}).` })
  const fromStorage = (media: StoredMedia, key: string) =>
    storage.read(key).pipe(
      Effect.flatMap((stream) =>
        Effect.tryPromise(async () => {
          const chunks: Array<Buffer> = []
          let size = 0
          for await (const chunk of stream) {
            const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array)
            size += buffer.length
            if (size > MAX_MEDIA_BYTES) throw new Error("file too large")
            chunks.push(buffer)
          }
          return Buffer.concat(chunks)
        })
      ),
      Effect.mapError((e) => unavailable(media, String(e)))
    )
  const read = (media: StoredMedia): Effect.Effect<MediaFile, MediaUnavailable> =>
    Effect.gen(function* () {
      // a file the publisher replaced with its rendition for this network (services/media/renditions.ts)
      if ("renditionKey" in media && typeof media.renditionKey === "string") {
        return { bytes: yield* fromStorage(media, media.renditionKey), mime: media.mime, name: media.name }
      }
      const key = yield* repo.storageKeyOf(media).pipe(Effect.orElseSucceed(() => Option.none<string>()))
      const bytes = Option.isSome(key)
        ? yield* fromStorage(media, key.value)
        : yield* outbound.fetch({ url: media.url, maxBytes: MAX_MEDIA_BYTES, timeoutMs: 120_000 }).pipe(
            Effect.mapError((e) => unavailable(media, e._tag)),
            Effect.filterOrFail(
              (r) => r.status >= 200 && r.status < 300,
              (r) => unavailable(media, `HTTP ${r.status}`)
            ),
            Effect.map((r) => r.body)
          )
      return { bytes, mime: media.mime, name: media.name }
    })
  const readCover = (media: StoredMedia): Effect.Effect<Option.Option<MediaFile>, MediaUnavailable> =>
    Option.match(coverKeyOf(media), {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (key) => Effect.map(fromStorage(media, key), (bytes) => Option.some({ bytes, mime: "image/jpeg", name: coverNameOf(media) }))
    })
  return { read, readCover } satisfies MediaFilesShape
})

/** Signed addresses under PUBLIC_URL for library files and renditions; other files keep their own address. */
export const makePublicMedia = Effect.gen(function* () {
  const repo = yield* makeMediaFilesRepo
  const { publicUrl, secretKey } = yield* AppConfig
  const addressOf = (media: StoredMedia, ttlSeconds = PUBLIC_MEDIA_TTL_SECONDS): Effect.Effect<string, MediaUnavailable> =>
    Effect.gen(function* () {
      const rendition = "renditionKey" in media && typeof media.renditionKey === "string" ? Option.some(media.renditionKey) : Option.none<string>()
      const key = Option.isSome(rendition) ? rendition : yield* repo.storageKeyOf(media).pipe(Effect.orElseSucceed(() => Option.none<string>()))
      if (Option.isNone(key)) return media.url
      if (!isSignableKey(key.value)) return yield* new MediaUnavailable({ message: `The file ${media.name} cannot be given a public address.` })
      return signedMediaUrl({ secretKey, publicUrl }, key.value, ttlSeconds).url
    })
  const coverAddressOf = (media: StoredMedia, ttlSeconds = PUBLIC_MEDIA_TTL_SECONDS): Effect.Effect<Option.Option<string>, MediaUnavailable> =>
    Option.match(coverKeyOf(media), {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (key) =>
        isSignableKey(key)
          ? Effect.succeed(Option.some(signedMediaUrl({ secretKey, publicUrl }, key, ttlSeconds).url))
          : Effect.fail(new MediaUnavailable({ message: `The cover of ${media.name} cannot be given a public address.` }))
    })
  return { addressOf, coverAddressOf } satisfies PublicMediaShape
})

/** network_apps in Postgres, the client secret sealed with SECRET_KEY. */
export const makeAppRegistrations = Effect.gen(function* () {
  const repo = yield* makeNetworkAppsRepo
  const { secretKey } = yield* AppConfig
  const shape: AppRegistrationsShape = {
    find: (key) =>
      repo
        .find(key)
        .pipe(
          Effect.map(Option.map((row) => ({ clientId: row.clientId, clientSecret: decryptSecret(secretKey, Buffer.from(row.clientSecret)) }))),
          Effect.orDie
        ),
    save: (key, app) => repo.save(key, { clientId: app.clientId, sealedSecret: encryptSecret(secretKey, app.clientSecret) }).pipe(Effect.orDie)
  }
  return shape
})

/** The adapters' dependencies from the process's outbound client, database and media storage. */
export const NetworkDepsLive = Layer.effect(
  NetworkDeps,
  Effect.gen(function* () {
    const outbound = yield* OutboundHttp
    const media = yield* makeMediaFiles
    const publicMedia = yield* makePublicMedia
    const apps = yield* makeAppRegistrations
    return { outbound, media, publicMedia, apps }
  })
)
