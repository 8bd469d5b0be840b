import { Effect, Layer, Option, Redacted } from "effect"
import type { Credentials, NetworkAdapter, PublishAnswer, PublishRequest } from "../../services/networks/adapter.js"
import { type AppRegistration, coverKeyOf, coverNameOf, MediaUnavailable, NetworkDeps } from "../../services/networks/networkDeps.js"
import { makeOutboundHttpForTests } from "../../services/platform/outbound/testing.js"
import type { StoredMedia } from "../../services/networks/storedMedia.js"
import type { ChannelRow } from "../../services/repos/channelsRepo.js"
import type { Simulator } from "./simulator/core.js"

/**
 * An adapter under test, built with the real outbound client (every address refused but
 * the simulator's port), files kept in memory by url, and app registrations in memory.
 */
export const adapterDeps = (sim: Simulator, files: ReadonlyMap<string, Buffer> = new Map()) => {
  const apps = new Map<string, AppRegistration>()
  return Layer.succeed(NetworkDeps, {
    outbound: makeOutboundHttpForTests({
      resolver: () => Promise.resolve([]),
      allow: [{ address: "127.0.0.1", port: sim.port }]
    }),
    media: {
      read: (m: StoredMedia) => {
        const bytes = files.get(m.url)
        return bytes === undefined
          ? Effect.fail(new MediaUnavailable({ message: `The file ${m.name} could not be read (gone).` }))
          : Effect.succeed({ bytes, mime: m.mime, name: m.name })
      },
      // a video's cover is kept in `files` under its coverKey (see videoWithCover)
      readCover: (m: StoredMedia) =>
        Option.match(coverKeyOf(m), {
          onNone: () => Effect.succeed(Option.none()),
          onSome: (key) => {
            const bytes = files.get(key)
            return bytes === undefined
              ? Effect.fail(new MediaUnavailable({ message: `The cover of ${m.name} could not be read (gone).` }))
              : Effect.succeed(Option.some({ bytes, mime: "image/jpeg", name: coverNameOf(m) }))
          }
        })
    },
    // networks that fetch media get the file from the simulator's own file host
    publicMedia: {
      addressOf: (m: StoredMedia) => {
        const bytes = files.get(m.url)
        return Effect.succeed(bytes === undefined ? m.url : sim.hostFile(bytes, m.mime))
      },
      coverAddressOf: (m: StoredMedia) =>
        Effect.succeed(
          Option.flatMap(coverKeyOf(m), (key) => Option.map(Option.fromNullable(files.get(key)), (bytes) => sim.hostFile(bytes, "image/jpeg")))
        )
    },
    apps: {
      find: (key) => Effect.succeed(Option.fromNullable(apps.get(`${key.network} ${key.instance} ${key.redirectUri}`))),
      save: (key, app) => Effect.sync(() => void apps.set(`${key.network} ${key.instance} ${key.redirectUri}`, app))
    }
  })
}

export const buildAdapter = <E>(make: Effect.Effect<NetworkAdapter, E, NetworkDeps>, deps: Layer.Layer<NetworkDeps>) =>
  Effect.runPromise(Effect.provide(make, deps))

/** A small PNG (1×1), enough for a network that checks the type. */
export const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")

export const imageMedia = (url = "http://files.test/cat.png", alt = "A cat"): StoredMedia => ({
  id: crypto.randomUUID(),
  alt,
  url,
  mime: "image/png",
  name: "cat.png",
  size: PNG.length,
  type: "image",
  width: 1,
  height: 1
})

/** A tiny JPEG header, enough for a network that checks a cover is an image. */
export const JPEG = Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex")

/**
 * A prepared video as the publisher hands it over (services/media/renditions.ts MediaToSend):
 * its cover under `coverKey`; put `[url, bytes]` and `[coverKey, JPEG]` in adapterDeps' files.
 */
export const videoWithCover = (url: string, coverKey: string | null): StoredMedia & { readonly coverKey?: string } => ({
  id: crypto.randomUUID(),
  alt: "",
  url,
  mime: "video/mp4",
  name: "clip.mp4",
  size: 1000,
  type: "video",
  width: 1280,
  height: 720,
  ...(coverKey === null ? {} : { coverKey })
})

/** A publish request for an item of a channel with these credentials. */
export const requestFor = (
  credentials: Credentials,
  input: {
    readonly content: string
    readonly itemId?: string
    readonly position?: number
    readonly media?: ReadonlyArray<StoredMedia>
    readonly settings?: Readonly<Record<string, unknown>>
    readonly previousReleaseId?: string | null
    readonly rootReleaseId?: string | null
    readonly progress?: Readonly<Record<string, unknown>> | null
  }
): PublishRequest => ({
  item: { id: input.itemId ?? crypto.randomUUID(), position: input.position ?? 0, content: input.content },
  media: input.media ?? [],
  channel: { id: crypto.randomUUID(), credentials: Redacted.make(credentials), settings: input.settings ?? {} },
  previousReleaseId: input.previousReleaseId ?? null,
  rootReleaseId: input.rootReleaseId ?? null,
  progress: input.progress ?? null
})

export const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** The published answer, or a test failure naming what came instead. */
export const published = (answer: PublishAnswer) => {
  if (answer._tag !== "Published") throw new Error(`expected Published, got ${JSON.stringify(answer)}`)
  return answer
}

/** A channel row for tool calls (the adapters read only the credentials given with it). */
export const channelRow = (network: string): ChannelRow => ({
  id: crypto.randomUUID(),
  workspaceId: crypto.randomUUID(),
  customerId: null,
  customerName: null,
  customerApproval: null,
  network,
  name: network,
  profile: network,
  picture: null,
  disabled: false,
  refreshNeeded: false,
  inBetweenSteps: false,
  postingTimes: []
})
