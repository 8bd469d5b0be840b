import { createHash } from "node:crypto"
import { Option, Schema } from "effect"
import * as nip19 from "nostr-tools/nip19"
import * as nip44 from "nostr-tools/nip44"
import { type Event, finalizeEvent, generateSecretKey, getEventHash, getPublicKey, verifyEvent } from "nostr-tools/pure"
import { WebSocketServer, type WebSocket } from "ws"
import {
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  type SocketLink,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Nostr relays and a Blossom media server, from the protocol documents (not from the adapter):
 *
 * - relays (NIP-01) over WebSocket at `<base>/relay-<name>` (ws://), each with its own store:
 *   `["EVENT", e]` is checked (id = hash of the serialized event, Schnorr signature) and
 *   answered `["OK", id, true, ""]`, or `["OK", id, true, "duplicate: …"]` for an event it
 *   holds (kept once), or `["OK", id, false, "invalid: …"]`; `["REQ", sub, filters…]` answers
 *   the stored events that match (ids, authors, kinds, #e, #p, since, until, limit), then
 *   `["EOSE", sub]`; `["CLOSE", sub]`; anything else a `["NOTICE", …]`.
 * - Blossom (BUD-01/02) at `<base>/blossom`: `PUT /upload` with a kind 24242 `upload`
 *   authorization naming the blob's sha256 (`x`) and an `expiration`, answered with a blob
 *   descriptor; `GET /<sha256>[.ext]`. Refusals carry `X-Reason`.
 *
 * Faults: op `connect` (the upgrade: 503, 429, reset, hang), `publish` (an EVENT: `hang` a
 * slow relay, `reset` dropped before storing, `accept-then-reset`/`accept-then-hang` stored
 * without OK, `reject` OK false `blocked:`, `rate-limit` OK false `rate-limited:`, `garbage`),
 * `search` (a REQ), `media` (the upload, HTTP faults of the core).
 * Each note a relay stores the first time is a SimPost (`extra.relay` names the relay).
 */

const NETWORK = "nostr"

/** Each relay's events by id (relay name → id → event). */
const stores = new WeakMap<SimCore, Map<string, Map<string, Event>>>()
const blobs = new WeakMap<SimCore, Map<string, { readonly bytes: Buffer; readonly mime: string; readonly owner: string }>>()
const servers = new WeakMap<SimCore, WebSocketServer>()

const relayStore = (core: SimCore, relay: string) => {
  const all = stateOf(stores, core)
  const found = all.get(relay) ?? new Map<string, Event>()
  all.set(relay, found)
  return found
}

const wsBase = (core: SimCore) => core.baseOf(NETWORK).replace(/^http/, "ws")

/** An event as NIP-01 describes it: the fields and their types (checked before its hash and signature). */
const EventShape = Schema.Struct({
  id: Schema.String,
  pubkey: Schema.String,
  created_at: Schema.Number,
  kind: Schema.Number,
  tags: Schema.Array(Schema.Array(Schema.String)),
  content: Schema.String,
  sig: Schema.String
})

const asEvent = (input: unknown): Event | null =>
  Option.match(Schema.decodeUnknownOption(EventShape)(input), {
    onNone: () => null,
    onSome: (e) => ({ ...e, tags: e.tags.map((t) => [...t]) })
  })

/** NIP-01: the id must be the hash of the serialized event, the signature the author's. */
const invalidReason = (event: Event): string | null => {
  if (getEventHash(event) !== event.id) return "invalid: event id does not match"
  try {
    return verifyEvent({ ...event }) ? null : "invalid: signature verification failed"
  } catch {
    return "invalid: signature verification failed"
  }
}

const matches = (event: Event, filter: Record<string, unknown>): boolean => {
  const list = (key: string) => (Array.isArray(filter[key]) ? (filter[key] as Array<unknown>) : undefined)
  const ids = list("ids")
  const authors = list("authors")
  const kinds = list("kinds")
  if (ids !== undefined && !ids.includes(event.id)) return false
  if (authors !== undefined && !authors.includes(event.pubkey)) return false
  if (kinds !== undefined && !kinds.includes(event.kind)) return false
  if (typeof filter["since"] === "number" && event.created_at < filter["since"]) return false
  if (typeof filter["until"] === "number" && event.created_at > filter["until"]) return false
  for (const [key, values] of Object.entries(filter)) {
    if (!key.startsWith("#") || !Array.isArray(values)) continue
    if (!event.tags.some((t) => t[0] === key.slice(1) && values.includes(t[1]))) return false
  }
  return true
}

/** The note a stored event answers (NIP-10: the `reply` marker, else the `root`). */
const replyOf = (event: Event) =>
  event.tags.find((t) => t[0] === "e" && t[3] === "reply")?.[1] ?? event.tags.find((t) => t[0] === "e" && t[3] === "root")?.[1] ?? null

const imetaOf = (event: Event) =>
  event.tags
    .filter((t) => t[0] === "imeta")
    .map((t) => {
      const field = (name: string) => t.find((v) => v.startsWith(`${name} `))?.slice(name.length + 1)
      const alt = field("alt")
      return { id: field("x") ?? "", mime: field("m") ?? "", size: Number(field("size") ?? 0), ...(alt === undefined ? {} : { alt }) }
    })

/** A connection's open subscriptions: each gets the events stored (or passed on) after its EOSE. */
interface Listener {
  readonly subscriptions: Map<string, ReadonlyArray<Record<string, unknown>>>
  readonly send: (message: unknown) => void
}
const listeners = new WeakMap<SimCore, Map<string, Set<Listener>>>()
const listenersOf = (core: SimCore, relay: string) => {
  const all = stateOf(listeners, core)
  const found = all.get(relay) ?? new Set<Listener>()
  all.set(relay, found)
  return found
}

/** NIP-01: kinds 20000–29999 are ephemeral, passed on to subscribers and not kept. */
const isEphemeral = (kind: number) => kind >= 20000 && kind < 30000

const store = (core: SimCore, relay: string, event: Event): "new" | "duplicate" => {
  const events = relayStore(core, relay)
  if (events.has(event.id)) return "duplicate"
  if (!isEphemeral(event.kind)) events.set(event.id, event)
  if (event.kind === 1) {
    core.record({
      network: NETWORK,
      id: event.id,
      url: `${wsBase(core)}/${relay}`,
      account: event.pubkey,
      text: event.content,
      replyTo: replyOf(event),
      media: imetaOf(event),
      dedupeKey: null,
      extra: { relay, tags: event.tags, createdAt: event.created_at }
    })
  }
  for (const listener of listenersOf(core, relay)) {
    for (const [id, filters] of listener.subscriptions) if (filters.some((f) => matches(event, f))) listener.send(["EVENT", id, event])
  }
  if (event.kind === 24133) answerAsBunker(core, relay, event)
  return "new"
}

/**
 * NIP-46 remote signers listening on the relays: a request (kind 24133, NIP-44 encrypted to
 * the signer's key) is answered on the same relay, encrypted to the client: `connect` with
 * the bunker address's secret, then `get_public_key`, `sign_event` (with the user's key),
 * `ping`; anything else, or a client that has not connected, an error.
 */
interface Bunker {
  readonly remoteSecret: Uint8Array
  readonly userSecret: Uint8Array
  readonly secret: string
  /** Answers every sign_event with an error, as a person who declines would. */
  readonly refuses: boolean
  readonly clients: Set<string>
}
const bunkers = new WeakMap<SimCore, Map<string, Bunker>>()
const BunkerRequest = Schema.parseJson(Schema.Struct({ id: Schema.String, method: Schema.String, params: Schema.Array(Schema.String) }))
const Template = Schema.parseJson(
  Schema.Struct({ kind: Schema.Number, content: Schema.String, tags: Schema.Array(Schema.Array(Schema.String)), created_at: Schema.Number })
)

const answerAsBunker = (core: SimCore, relay: string, event: Event) => {
  const remotePubkey = event.tags.find((t) => t[0] === "p")?.[1] ?? ""
  const bunker = stateOf(bunkers, core).get(remotePubkey)
  if (bunker === undefined) return
  const conversation = nip44.v2.utils.getConversationKey(bunker.remoteSecret, event.pubkey)
  let plain: string
  try {
    plain = nip44.v2.decrypt(event.content, conversation)
  } catch {
    return
  }
  const request = Schema.decodeUnknownOption(BunkerRequest)(plain)
  if (Option.isNone(request)) return
  const { id, method, params } = request.value
  const answer = ((): { readonly result?: string; readonly error?: string } => {
    if (method === "connect") {
      if (params[0] !== remotePubkey || params[1] !== bunker.secret) return { error: "invalid secret" }
      bunker.clients.add(event.pubkey)
      return { result: "ack" }
    }
    if (!bunker.clients.has(event.pubkey)) return { error: "unauthorized: connect first" }
    if (method === "ping") return { result: "pong" }
    if (method === "get_public_key") return { result: getPublicKey(bunker.userSecret) }
    if (method === "sign_event") {
      if (bunker.refuses) return { error: "user rejected the request" }
      const template = Schema.decodeUnknownOption(Template)(params[0] ?? "")
      if (Option.isNone(template)) return { error: "invalid event template" }
      const t = template.value
      return { result: JSON.stringify(finalizeEvent({ ...t, tags: t.tags.map((tag) => [...tag]) }, bunker.userSecret)) }
    }
    return { error: `unknown method ${method}` }
  })()
  const response = finalizeEvent(
    {
      kind: 24133,
      created_at: Math.floor(Date.now() / 1000),
      content: nip44.v2.encrypt(JSON.stringify({ id, result: answer.result ?? "", ...answer }), conversation),
      tags: [["p", event.pubkey]]
    },
    bunker.remoteSecret
  )
  store(core, relay, response)
}

const relayConnection = (socket: WebSocket, relay: string, link: SocketLink) => {
  const { core } = link
  const send = (message: unknown) => socket.send(JSON.stringify(message))
  const listener: Listener = { subscriptions: new Map(), send }
  listenersOf(core, relay).add(listener)
  socket.on("close", () => listenersOf(core, relay).delete(listener))
  socket.on("message", (data) => {
    let message: unknown
    try {
      message = JSON.parse(data.toString())
    } catch {
      return send(["NOTICE", "error: could not parse message"])
    }
    if (!Array.isArray(message)) return send(["NOTICE", "error: messages are JSON arrays"])
    if (message[0] === "EVENT") {
      const event = asEvent(message[1])
      if (event === null) return send(["NOTICE", "invalid: malformed event"])
      const rule = link.take(event.kind === 0 ? "account" : "publish")
      switch (rule?.mode) {
        case "hang":
          return
        case "reset":
          return socket.terminate()
        case "accept-then-hang":
          if (invalidReason(event) === null) store(core, relay, event)
          return
        case "accept-then-reset":
          if (invalidReason(event) === null) store(core, relay, event)
          return socket.terminate()
        case "reject":
          return send(["OK", event.id, false, "blocked: this pubkey is not admitted on this relay"])
        case "rate-limit":
          return send(["OK", event.id, false, "rate-limited: slow down there chief"])
        case "5xx":
          return socket.close(1011, "internal error")
        case "garbage":
          return socket.send("\u0000{not json")
        default:
      }
      const invalid = invalidReason(event)
      if (invalid !== null) return send(["OK", event.id, false, invalid])
      const result = store(core, relay, event)
      return send(["OK", event.id, true, result === "duplicate" ? "duplicate: already have this event" : ""])
    }
    if (message[0] === "REQ") {
      const [, id, ...filters] = message
      if (typeof id !== "string" || id === "" || id.length > 64) return send(["NOTICE", "invalid: subscription id"])
      const objects = filters.filter((f): f is Record<string, unknown> => typeof f === "object" && f !== null && !Array.isArray(f))
      const rule = link.take(objects.some((f) => Array.isArray(f["kinds"]) && f["kinds"].includes(0)) ? "account" : "search")
      switch (rule?.mode) {
        case "hang":
          return
        case "reset":
          return socket.terminate()
        case "unavailable":
        case "5xx":
          return send(["CLOSED", id, "error: could not run the query"])
        case "garbage":
          return socket.send("\u0000{not json")
        default:
      }
      // notes the core's search delay still hides are not seen yet
      const hidden = (e: Event) => e.kind === 1 && !core.visiblePosts(NETWORK, e.pubkey).some((p) => p.id === e.id)
      // each filter's newest `limit` events (NIP-01: the limit is per filter), each event once
      const stored = [...relayStore(core, relay).values()].filter((e) => !hidden(e)).sort((a, b) => b.created_at - a.created_at)
      const answered = new Map<string, Event>()
      for (const filter of objects) {
        const limit = typeof filter["limit"] === "number" ? filter["limit"] : 500
        for (const event of stored.filter((e) => matches(e, filter)).slice(0, limit)) answered.set(event.id, event)
      }
      for (const event of answered.values()) send(["EVENT", id, event])
      send(["EOSE", id])
      listener.subscriptions.set(id, objects)
      return
    }
    if (message[0] === "CLOSE") {
      if (typeof message[1] === "string") listener.subscriptions.delete(message[1])
      return
    }
    return send(["NOTICE", `error: unknown message type ${String(message[0])}`])
  })
}

const upgrade: NonNullable<NetworkModule["upgrade"]> = (incoming, socket, head, link) => {
  const relay = /^\/(relay-[a-z0-9-]+)$/.exec(link.path)?.[1]
  if (relay === undefined) return socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
  let server = servers.get(link.core)
  if (server === undefined) {
    server = new WebSocketServer({ noServer: true, maxPayload: 512 * 1024 })
    servers.set(link.core, server)
  }
  server.handleUpgrade(incoming, socket, head, (ws) => relayConnection(ws, relay, link))
}

/** BUD-01 authorization: `Nostr <base64 event>`, kind 24242, `t` = verb, not expired, signed. */
const authorization = (request: SimRequest, verb: string): { readonly pubkey: string; readonly tags: Array<Array<string>> } | string => {
  const header = request.headers["authorization"]
  const encoded = typeof header === "string" ? /^Nostr\s+(.+)$/.exec(header)?.[1] : undefined
  if (encoded === undefined) return "Missing Nostr authorization"
  let event: Event | null
  try {
    event = asEvent(JSON.parse(Buffer.from(encoded, "base64").toString("utf8")))
  } catch {
    event = null
  }
  if (event === null || invalidReason(event) !== null) return "Invalid authorization event"
  if (event.kind !== 24242) return "Authorization event must be kind 24242"
  const now = Math.floor(Date.now() / 1000)
  if (event.created_at > now + 60) return "Authorization event created_at is in the future"
  const expiration = Number(event.tags.find((t) => t[0] === "expiration")?.[1] ?? Number.NaN)
  if (!(expiration > now)) return "Authorization event expired"
  if (!event.tags.some((t) => t[0] === "t" && t[1] === verb)) return `Authorization event is not for ${verb}`
  return { pubkey: event.pubkey, tags: event.tags }
}

const refuse = (status: number, reason: string): SimResponse => ({ status, headers: { "x-reason": reason }, body: { message: reason } })

const extensionOf = (mime: string) => ({ "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "video/mp4": ".mp4" })[mime] ?? ""

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  if (request.method === "PUT" && request.path === "/blossom/upload") {
    const auth = authorization(request, "upload")
    if (typeof auth === "string") return refuse(401, auth)
    if (request.body.length === 0) return refuse(400, "Empty body")
    const sha256 = createHash("sha256").update(request.body).digest("hex")
    if (!auth.tags.some((t) => t[0] === "x" && t[1] === sha256)) return refuse(403, "Authorization x tag does not match the blob's sha256")
    const mime = (request.headers["content-type"] ?? "application/octet-stream").split(";")[0]!.trim()
    stateOf(blobs, core).set(sha256, { bytes: request.body, mime, owner: auth.pubkey })
    return {
      status: 200,
      body: {
        url: `${core.baseOf(NETWORK)}/blossom/${sha256}${extensionOf(mime)}`,
        sha256,
        size: request.body.length,
        type: mime,
        uploaded: Math.floor(Date.now() / 1000)
      }
    }
  }
  const blob = /^\/blossom\/([0-9a-f]{64})(\.[a-z0-9]+)?$/.exec(request.path)
  if ((request.method === "GET" || request.method === "HEAD") && blob !== null) {
    const found = stateOf(blobs, core).get(blob[1]!)
    return found === undefined ? refuse(404, "Blob not found") : { status: 200, headers: { "content-type": found.mime }, body: found.bytes }
  }
  return undefined
}

/**
 * An account: a fresh key, its profile (kind 0) on the first relay, two relays and the
 * media server, answered as the `--credentials` JSON (the key as nsec, NIP-19).
 */
export const seedNostrAccount = (core: SimCore, input: { readonly name?: string } = {}) => {
  const secretKey = generateSecretKey()
  const publicKey = getPublicKey(secretKey)
  const name = input.name ?? `nostrich${stateOf(stores, core).size + 1}`
  const profile = finalizeEvent(
    {
      kind: 0,
      created_at: Math.floor(Date.now() / 1000),
      tags: [],
      content: JSON.stringify({ name, picture: `${core.baseOf(NETWORK)}/blossom/avatar.png` })
    },
    secretKey
  )
  store(core, "relay-a", profile)
  return {
    privateKey: nip19.nsecEncode(secretKey),
    relays: [`${wsBase(core)}/relay-a`, `${wsBase(core)}/relay-b`],
    mediaServer: `${core.baseOf(NETWORK)}/blossom`,
    publicKey
  }
}

/**
 * An account whose key is held by a simulated NIP-46 remote signer on relay-a: answered as
 * `--credentials` with its `bunker://` address (and its secret) in place of the key.
 */
export const seedNostrBunkerAccount = (core: SimCore, input: { readonly name?: string; readonly refuses?: boolean } = {}) => {
  const { privateKey, ...account } = seedNostrAccount(core, input)
  const userKey = nip19.decode(privateKey)
  if (userKey.type !== "nsec") throw new Error("the seed makes nsec keys")
  const remoteSecret = generateSecretKey()
  const remotePubkey = getPublicKey(remoteSecret)
  const secret = core.newId()
  stateOf(bunkers, core).set(remotePubkey, { remoteSecret, userSecret: userKey.data, secret, refuses: input.refuses === true, clients: new Set() })
  const relay = encodeURIComponent(`${wsBase(core)}/relay-a`)
  return { ...account, bunker: `bunker://${remotePubkey}?relay=${relay}&secret=${secret}` }
}

/** The events a relay holds (tests: each note once per relay). */
export const relayEvents = (core: SimCore, relay: string): ReadonlyArray<Event> => [...relayStore(core, relay).values()]

export const nostrModule: NetworkModule = {
  network: NETWORK,
  handle,
  upgrade,
  opOf: ({ method, path }) => (method === "PUT" && path === "/blossom/upload" ? "media" : "account"),
  rejectBody: (status) => refuse(status ?? 400, "Blob rejected"),
  expiredTokenBody: () => refuse(401, "Authorization event expired"),
  seed: (core, input) => {
    const name = typeof input["name"] === "string" ? { name: input["name"] } : {}
    return input["bunker"] === true ? seedNostrBunkerAccount(core, name) : seedNostrAccount(core, name)
  }
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [nostrModule]
