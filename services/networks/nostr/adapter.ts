import { Config, Effect, Either, Option, Schema } from "effect"
import { type EventTemplate, generateSecretKey, neventEncode, npubEncode } from "./nostrCrypto.js"
import {
  ConnectFailed,
  type Connected,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, decodeForVerify, metricToday, readAllMedia, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { excerpt, sameText, statusAnswer, transportAnswer } from "../networkHttp.js"
import { uploadBlob } from "./blossom.js"
import { GivenCredentials, isHttpAddress, isRelayAddress, keysOf, StoredCredentials } from "./keys.js"
import { noteTemplate } from "./note.js"
import { NostrEvent, verifiedEvent } from "./nostrEvent.js"
import { type BunkerLink, bunkerRequest, localSigner, parseBunkerUrl, remoteSigner, type SignFailed, type Signer } from "./signer.js"
import { type Filter, queryRelay, type QueryResult, type RelayVerdict, sendEvent } from "./relayClient.js"

/**
 * Nostr (NIP-01): a kind 1 text note signed with the channel's key and sent to each of its
 * relays over WebSocket. The note is signed first and kept as the item's progress, and only
 * then sent: its id is the hash of its content, so a resend is the same event, which relays
 * keep once (never a second post). Files go to a Blossom media server (BUD-02) and their
 * addresses into the note with `imeta` tags; follow-ups answer with NIP-10 `e`/`p` tags.
 */
const NAME = "Nostr"
const MAX_RELAYS = 10

export interface NostrOptions {
  /** How long one relay may take to upgrade and answer (OK or EOSE). */
  readonly relayTimeoutMs: number
  /** NOSTR_VIEWER_URL: where a note is shown on the web (its NIP-19 `nevent` is appended). */
  readonly viewerUrl: string
}

/** The note as the item's progress: signed, not yet known to be on a relay. */
const Progress = Schema.Struct({ event: NostrEvent })

const Metadata = Schema.parseJson(
  Schema.Struct({
    name: Schema.optional(Schema.String),
    display_name: Schema.optional(Schema.String),
    picture: Schema.optional(Schema.String)
  })
)

/** Relays answer `prefix: message` (NIP-01); a refusal in plain words with what to do. */
const refusalFix = (reasons: ReadonlyArray<string>) => {
  if (reasons.some((r) => r.startsWith("invalid:"))) return "The relays found the note invalid; reconnect the channel with its key, then retry."
  if (reasons.some((r) => r.startsWith("auth-required:"))) {
    return "These relays want a signed-in connection (NIP-42), which this server does not make; reconnect the channel with other relays, then retry."
  }
  return "Reconnect the channel with relays that accept notes from this key (some need payment or an allow list), then retry."
}

/** Every relay's answer to one note → what the item's publish answers. */
export const verdictOf = (event: NostrEvent, verdicts: ReadonlyArray<RelayVerdict>, releaseUrl: string): PublishAnswer => {
  if (verdicts.some((v) => v._tag === "Accepted")) return PublishAnswer.Published({ releaseId: event.id, releaseUrl })
  const refused = verdicts.flatMap((v) => (v._tag === "Refused" ? [v] : []))
  const notReached = verdicts.flatMap((v) => (v._tag === "NotReached" ? [v] : []))
  const silent = verdicts.flatMap((v) => (v._tag === "Silent" ? [v] : []))
  const said = (list: ReadonlyArray<{ readonly relay: string; readonly reason: string }>) => list.map((v) => `${v.relay}: ${v.reason}`).join("; ")
  // a relay that took the note without answering may hold it: search, never a blind resend
  if (silent.length > 0) return PublishAnswer.NoAnswer({ reason: `no relay confirmed the note (${said([...silent, ...refused, ...notReached])})` })
  if (refused.length === verdicts.length && refused.length > 0) {
    if (refused.every((v) => v.reason.startsWith("rate-limited:"))) return PublishAnswer.RateLimited({ retryAfterMs: 60_000 })
    return PublishAnswer.Rejected({ message: `Every relay refused the note: ${said(refused)}.`, fix: refusalFix(refused.map((v) => v.reason)) })
  }
  if (notReached.length === verdicts.length && notReached.every((v) => v.forbidden)) {
    return PublishAnswer.Rejected({
      message: `The channel's relays are at addresses this server does not call: ${said(notReached)}.`,
      fix: "Ask the operator to list the relay's host:port in OUTBOUND_ALLOW, or reconnect the channel with public wss:// relays."
    })
  }
  const waits = notReached.flatMap((v) => (v.retryAfterMs === null ? [] : [v.retryAfterMs]))
  if (waits.length === verdicts.length) return PublishAnswer.RateLimited({ retryAfterMs: Math.max(...waits) })
  // refused here and not reached there: nothing is live; the same note may be sent again
  return PublishAnswer.FailedBeforeSending({ reason: `no relay took the note (${said([...refused, ...notReached])})` })
}

/** Relays answer over WebSocket; an HTTP answer (the media server's) is never a published note. */
export const classifyNostr = (answer: NetworkAnswer): PublishAnswer =>
  answer._tag === "Failed"
    ? transportAnswer(NAME, answer.error)
    : statusAnswer(NAME, answer.response, (response) => ({
        message: `Nostr refused the note (${response.status}): ${excerpt(response, 160)}.`,
        fix: "Change the post as the message says, then retry."
      }))

export const makeNostrAdapterWith = (options: NostrOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const credentialsOf = readCredentials(StoredCredentials, NAME)
    const allRelays = <A>(relays: ReadonlyArray<string>, each: (relay: string) => Effect.Effect<A>) =>
      Effect.forEach(relays, each, { concurrency: "unbounded" })
    const query = (relays: ReadonlyArray<string>, ...filters: ReadonlyArray<Filter>) =>
      allRelays(relays, (relay) => queryRelay(outbound, relay, filters, options.relayTimeoutMs))

    /** The events every relay that answered holds for `filters`, each once; None when no relay answered. */
    const eventsOn = (relays: ReadonlyArray<string>, ...filters: ReadonlyArray<Filter>) =>
      Effect.map(query(relays, ...filters), (results) => {
        const answered = results.flatMap((r) => (r._tag === "Events" ? [r.events] : []))
        return answered.length === 0 ? Option.none() : Option.some([...new Map(answered.flat().map((e) => [e.id, e])).values()])
      })

    /** Relays keep who reacts, reposts, replies and follows: counted from what they answer (at most 500 of each). */
    const statistics: NetworkAdapter["statistics"] = {
      channel: (credentials, days) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
          const { publicKey, relays } = c.value
          const since = Math.floor(Date.now() / 1000) - days * 24 * 3600
          const events = yield* eventsOn(
            relays,
            { kinds: [3], "#p": [publicKey], limit: 500 },
            { kinds: [1], authors: [publicKey], since, limit: 500 }
          )
          if (Option.isNone(events)) return Statistics.Missing({ message: "None of the channel's relays answered." })
          const followers = new Set(events.value.filter((e) => e.kind === 3).map((e) => e.pubkey)).size
          const notes = events.value.filter((e) => e.kind === 1 && e.pubkey === publicKey).length
          return Statistics.Metrics({
            metrics: [
              metricToday("Followers", followers, "Accounts whose contact list on these relays follows this one"),
              metricToday("Notes", notes, `Notes on these relays in the last ${days} days`)
            ]
          })
        }),
      post: (credentials, releaseId) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
          const events = yield* eventsOn(c.value.relays, { kinds: [1, 6, 7], "#e": [releaseId], limit: 500 })
          if (Option.isNone(events)) return Statistics.Missing({ message: "None of the channel's relays answered." })
          const count = (kind: number) => events.value.filter((e) => e.kind === kind && e.tags.some((t) => t[0] === "e" && t[1] === releaseId)).length
          return Statistics.Metrics({
            metrics: [metricToday("Reactions", count(7)), metricToday("Reposts", count(6)), metricToday("Replies", count(1))]
          })
        })
    }
    const releaseUrlOf = (event: NostrEvent, relays: ReadonlyArray<string>) =>
      `${options.viewerUrl.replace(/\/+$/, "")}/${neventEncode({ id: event.id, relays: relays.slice(0, 2), author: event.pubkey, kind: event.kind })}`

    /** The key given, or the NIP-46 remote signer connected (`connect`, then `get_public_key`): whose notes these are and what to store. */
    const signingOf = (given: typeof GivenCredentials.Type) =>
      Effect.gen(function* () {
        if (given.privateKey !== undefined) {
          const keys = keysOf(given.privateKey)
          if (Option.isNone(keys)) return yield* new ConnectFailed({ message: "Nostr privateKey must be 64 hex digits or an nsec1… key." })
          return { publicKey: keys.value.publicKey, stored: { privateKey: keys.value.secretHex } }
        }
        if (given.bunker === undefined) {
          return yield* new ConnectFailed({ message: "Nostr credentials need privateKey (hex or nsec…) or bunker (a NIP-46 bunker:// address)." })
        }
        const parsed = parseBunkerUrl(given.bunker)
        if (Option.isNone(parsed) || !parsed.value.relays.every(isRelayAddress)) {
          return yield* new ConnectFailed({ message: "Nostr bunker must be a bunker://<remote signer key>?relay=wss://… address (NIP-46)." })
        }
        const link: BunkerLink = {
          remotePubkey: parsed.value.remotePubkey,
          relays: parsed.value.relays,
          clientKey: Buffer.from(generateSecretKey()).toString("hex")
        }
        const failed = (e: SignFailed) => new ConnectFailed({ message: `The Nostr remote signer: ${e.reason}.` })
        yield* bunkerRequest(outbound, link, "connect", [link.remotePubkey, parsed.value.secret ?? ""], options.relayTimeoutMs).pipe(
          Effect.mapError(failed)
        )
        const publicKey = yield* bunkerRequest(outbound, link, "get_public_key", [], options.relayTimeoutMs).pipe(Effect.mapError(failed))
        if (!/^[0-9a-f]{64}$/.test(publicKey)) return yield* new ConnectFailed({ message: "The Nostr remote signer answered no public key." })
        return { publicKey, stored: { bunker: link } }
      })

    /** The channel's signer: its key, or its remote signer; None when the credentials hold neither as they should. */
    const signerOf = (credentials: StoredCredentials): Option.Option<Signer> => {
      if (credentials.bunker !== undefined)
        return Option.some(remoteSigner(outbound, credentials.bunker, credentials.publicKey, options.relayTimeoutMs))
      return Option.filter(
        Option.map(Option.flatMap(Option.fromNullable(credentials.privateKey), keysOf), (keys) => localSigner(keys.secretKey)),
        (signer) => signer.publicKey === credentials.publicKey
      )
    }

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(
          GivenCredentials,
          NAME,
          "privateKey (hex or nsec…) or bunker (a NIP-46 bunker:// address), relays (an array of wss:// addresses) and optionally mediaServer"
        )(input)
        const signing = yield* signingOf(given)
        const relays = [...new Set(given.relays.map((r) => r.trim()))]
        if (relays.length === 0 || relays.length > MAX_RELAYS) {
          return yield* new ConnectFailed({ message: `Nostr relays must list 1 to ${MAX_RELAYS} relay addresses.` })
        }
        const bad = relays.find((r) => !isRelayAddress(r))
        if (bad !== undefined) return yield* new ConnectFailed({ message: `Nostr relay ${bad} is not a ws:// or wss:// address.` })
        if (given.mediaServer !== undefined && !isHttpAddress(given.mediaServer)) {
          return yield* new ConnectFailed({ message: `Nostr mediaServer ${given.mediaServer} is not an http(s) address.` })
        }
        const { publicKey } = signing
        // the account's profile (kind 0) and Blossom server list (kind 10063, BUD-03) from its relays: proves at least one answers
        const results = yield* query(relays, { authors: [publicKey], kinds: [0], limit: 1 }, { authors: [publicKey], kinds: [10063], limit: 1 })
        const answered = results.flatMap((r) => (r._tag === "Events" ? [r] : []))
        if (answered.length === 0) {
          const reasons = results.map((r) => `${r.relay}: ${r._tag === "Failed" ? r.reason : ""}`).join("; ")
          return yield* new ConnectFailed({ message: `None of the Nostr relays answered (${reasons}).` })
        }
        const newestOf = (kind: number) =>
          answered
            .flatMap((r) => r.events)
            .filter((e) => e.pubkey === publicKey && e.kind === kind)
            .sort((a, b) => b.created_at - a.created_at)[0]
        const newest = newestOf(0)
        const metadata = newest === undefined ? Option.none() : Schema.decodeUnknownOption(Metadata)(newest.content)
        // without a mediaServer given, the account's own first Blossom server (NIP-B7)
        const listed = newestOf(10063)?.tags.find((t) => t[0] === "server" && t[1] !== undefined && isHttpAddress(t[1]))?.[1]
        const mediaServer = given.mediaServer ?? listed
        const npub = npubEncode(publicKey)
        const name = Option.match(metadata, { onNone: () => "", onSome: (m) => m.display_name || m.name || "" })
        const connected: Connected = {
          credentials: {
            ...signing.stored,
            publicKey,
            relays,
            ...(mediaServer === undefined ? {} : { mediaServer: mediaServer.replace(/\/+$/, "") })
          },
          profile: {
            accountId: publicKey,
            name: name || `${npub.slice(0, 12)}…`,
            profile: npub,
            picture: Option.match(metadata, { onNone: () => null, onSome: (m) => m.picture ?? null })
          }
        }
        return connected
      })

    /** First step: the files uploaded, the note signed; kept as progress before anything goes to a relay. */
    const sign = (request: PublishRequest, credentials: StoredCredentials) =>
      Effect.gen(function* () {
        const signer = signerOf(credentials)
        if (Option.isNone(signer)) {
          return yield* Effect.fail(
            PublishAnswer.Rejected({ message: "The channel's Nostr key cannot be read.", fix: "Reconnect the channel, then retry." })
          )
        }
        // nothing is on a relay before the note is signed: a signer that does not answer sent nothing
        const signWith = (template: EventTemplate) =>
          signer.value.sign(template).pipe(
            Effect.mapError((e) =>
              e.refused
                ? PublishAnswer.Rejected({
                    message: `The Nostr remote signer did not sign: ${e.reason}.`,
                    fix: "Allow this server to sign notes in the remote signer, or reconnect the channel, then retry."
                  })
                : PublishAnswer.FailedBeforeSending({ reason: e.reason })
            )
          )
        const files = yield* readAllMedia(media, request.media)
        const server = credentials.mediaServer
        if (files.length > 0 && server === undefined) {
          return yield* Effect.fail(
            PublishAnswer.Rejected({
              message: "This Nostr channel has no media server to put the files on.",
              fix: "Reconnect the channel with a mediaServer (a Blossom server), or send the post without files."
            })
          )
        }
        const uploaded = yield* Effect.forEach(files, (file, index) =>
          Effect.map(uploadBlob(outbound, server ?? "", signWith, file), (u) => ({ uploaded: u, media: request.media[index] }))
        )
        const template = noteTemplate({
          content: request.item.content,
          files: uploaded,
          author: credentials.publicKey,
          relayHint: credentials.relays[0] ?? "",
          previousReleaseId: request.previousReleaseId,
          rootReleaseId: request.rootReleaseId,
          createdAt: Math.floor(Date.now() / 1000)
        })
        const event = yield* signWith(template)
        return PublishAnswer.Pending({
          progress: { event },
          kind: "processing",
          waitingFor: "the signed note to be sent to the relays",
          retryAfterMs: 0
        })
      })

    /** The stored note, checked again: signed by this channel's key and unchanged. */
    const storedNote = (request: PublishRequest, credentials: StoredCredentials): Option.Option<NostrEvent> =>
      Option.flatMap(Option.fromNullable(request.progress), (progress) =>
        Option.flatMap(Either.getRight(Schema.decodeUnknownEither(Progress)(progress)), ({ event }) =>
          Option.filter(verifiedEvent(event), (e) => e.pubkey === credentials.publicKey)
        )
      )

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const credentials = yield* credentialsOf(request.channel.credentials)
          const note = storedNote(request, credentials)
          if (Option.isNone(note)) return yield* sign(request, credentials)
          const event = note.value
          const verdicts = yield* allRelays(credentials.relays, (relay) => sendEvent(outbound, relay, event, options.relayTimeoutMs))
          return verdictOf(event, verdicts, releaseUrlOf(event, credentials.relays))
        })
      )

    /** Whether the relays hold the note: by its id when it was signed, else the account's recent notes with its text. */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const credentials = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(credentials)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const { publicKey, relays } = credentials.value
        const note = storedNote(request, credentials.value)
        const filter: Filter = Option.match(note, {
          onSome: (event) => ({ ids: [event.id] }),
          onNone: () => ({ authors: [publicKey], kinds: [1], since: Math.floor(Date.now() / 1000) - 7 * 24 * 3600, limit: 100 })
        })
        const matches = (event: NostrEvent) =>
          Option.match(note, {
            onSome: (n) => event.id === n.id,
            onNone: () => event.pubkey === publicKey && sameText(event.content.slice(0, request.item.content.length), request.item.content)
          })
        const results: ReadonlyArray<QueryResult> = yield* query(relays, filter)
        const found = results.flatMap((r) => (r._tag === "Events" ? r.events : [])).find(matches)
        if (found !== undefined) return SearchAnswer.Found({ releaseId: found.id, releaseUrl: releaseUrlOf(found, relays) })
        const failed = results.flatMap((r) => (r._tag === "Failed" ? [r] : []))
        // a relay that did not answer may hold it
        if (failed.length > 0) return SearchAnswer.CannotTell({ reason: failed.map((r) => `${r.relay}: ${r.reason}`).join("; ") })
        return SearchAnswer.NotFound()
      })

    const adapter: NetworkAdapter = {
      identifier: "nostr",
      connect: { kind: "form" },
      verify,
      // a key does not expire
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search,
      statistics,
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyNostr
    }
    return adapter
  })

/** The adapter with NOSTR_VIEWER_URL (default https://njump.me). */
export const makeNostrAdapter = Effect.gen(function* () {
  const viewerUrl = yield* Config.string("NOSTR_VIEWER_URL").pipe(Config.withDefault("https://njump.me"), Effect.orDie)
  return yield* makeNostrAdapterWith({ relayTimeoutMs: 10_000, viewerUrl })
})
