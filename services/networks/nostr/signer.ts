import { Data, Effect, Either, Option, Schema } from "effect"
import { type EventTemplate, finalizeEvent, getPublicKey, nip44ConversationKey, nip44Decrypt, nip44Encrypt } from "./nostrCrypto.js"
import type { OutboundHttpShape } from "../../platform/outbound/outboundHttp.js"
import { recordedExchange } from "../networkCalls.js"
import { type NostrEvent, plainEvent, verifiedEvent } from "./nostrEvent.js"
import { session } from "./relayClient.js"

/**
 * Who signs a channel's events: its own key held by this server (sealed with SECRET_KEY), or
 * a NIP-46 remote signer ("bunker") asked over its relays, the key never leaving it.
 */
export interface Signer {
  readonly publicKey: string
  readonly sign: (template: EventTemplate) => Effect.Effect<NostrEvent, SignFailed>
}

/** The signer refused (`refused`) or did not answer. */
export class SignFailed extends Data.TaggedError("SignFailed")<{ readonly reason: string; readonly refused: boolean }> {}

export const localSigner = (secretKey: Uint8Array): Signer => ({
  publicKey: getPublicKey(secretKey),
  sign: (template) => Effect.sync(() => plainEvent(finalizeEvent(template, secretKey)))
})

/** A NIP-46 connection: the remote signer's key, the relays it listens on, this server's own client key (hex). */
export interface BunkerLink {
  readonly remotePubkey: string
  readonly relays: ReadonlyArray<string>
  readonly clientKey: string
}

/** `bunker://<remote-signer-pubkey>?relay=wss://…&relay=…&secret=…` (NIP-46). */
export const parseBunkerUrl = (
  text: string
): Option.Option<{ readonly remotePubkey: string; readonly relays: ReadonlyArray<string>; readonly secret: string | null }> =>
  Option.flatMap(Either.getRight(Either.try(() => new URL(text.trim()))), (url) => {
    const remotePubkey = url.hostname || url.pathname.replace(/^\/+/, "")
    const relays = url.searchParams.getAll("relay")
    return url.protocol === "bunker:" && /^[0-9a-f]{64}$/.test(remotePubkey) && relays.length > 0
      ? Option.some({ remotePubkey, relays, secret: url.searchParams.get("secret") })
      : Option.none()
  })

const Response = Schema.parseJson(Schema.Struct({ id: Schema.String, result: Schema.optional(Schema.String), error: Schema.optional(Schema.String) }))

/** One NIP-46 request on one relay: a kind 24133 event encrypted to the signer (NIP-44), its answer read from a subscription. */
const requestOn = (
  outbound: OutboundHttpShape,
  relay: string,
  link: BunkerLink,
  method: string,
  params: ReadonlyArray<string>,
  timeoutMs: number
): Effect.Effect<Either.Either<string, SignFailed>> => {
  const clientSecret = Uint8Array.from(Buffer.from(link.clientKey, "hex"))
  const clientPubkey = getPublicKey(clientSecret)
  const conversation = nip44ConversationKey(clientSecret, link.remotePubkey)
  const id = crypto.randomUUID()
  const subscription = `s${id.slice(0, 8)}`
  const request = finalizeEvent(
    {
      kind: 24133,
      created_at: Math.floor(Date.now() / 1000),
      content: nip44Encrypt(JSON.stringify({ id, method, params }), conversation),
      tags: [["p", link.remotePubkey]]
    },
    clientSecret
  )
  const failed = (reason: string, refused = false) => Either.left(new SignFailed({ reason, refused }))
  return session<Either.Either<string, SignFailed>>(outbound, relay, timeoutMs, {
    onOpen: (s) => {
      s.send(["REQ", subscription, { kinds: [24133], authors: [link.remotePubkey], "#p": [clientPubkey], since: request.created_at - 10 }])
      s.send(["EVENT", request])
    },
    onMessage: (message, settle) => {
      if (message[0] !== "EVENT" || message[1] !== subscription) return
      const answer = Option.flatMap(
        Option.filter(verifiedEvent(message[2]), (e) => e.pubkey === link.remotePubkey),
        (e) => Option.flatMap(Either.getRight(Either.try(() => nip44Decrypt(e.content, conversation))), Schema.decodeUnknownOption(Response))
      )
      if (Option.isNone(answer) || answer.value.id !== id) return
      const { error, result } = answer.value
      settle(error !== undefined && error !== "" ? failed(`the remote signer refused: ${error}`, true) : Either.right(result ?? ""))
    },
    onEnd: (_sent, reason) => failed(`the remote signer did not answer on ${relay} (${reason})`),
    notReached: (reason) => failed(`the remote signer's relay ${relay} could not be reached (${reason})`)
  })
}

/** A NIP-46 request, tried on the signer's relays in turn until one answers. */
export const bunkerRequest = (
  outbound: OutboundHttpShape,
  link: BunkerLink,
  method: string,
  params: ReadonlyArray<string>,
  timeoutMs: number
): Effect.Effect<string, SignFailed> =>
  Effect.gen(function* () {
    let last = new SignFailed({ reason: "the remote signer has no relays", refused: false })
    for (const relay of link.relays) {
      // in the attempt's call log as the NIP-46 method on the signer's relay
      const answer = yield* recordedExchange(method, relay, requestOn(outbound, relay, link, method, params, timeoutMs), (result) => ({
        status: null,
        error: Either.isLeft(result) ? result.left.reason : null
      }))
      if (Either.isRight(answer)) return answer.right
      if (answer.left.refused) return yield* answer.left
      last = answer.left
    }
    return yield* last
  })

/** Events signed by the remote signer: checked to be the user's, signed, and the template it was given. */
export const remoteSigner = (outbound: OutboundHttpShape, link: BunkerLink, publicKey: string, timeoutMs: number): Signer => ({
  publicKey,
  sign: (template) =>
    Effect.flatMap(bunkerRequest(outbound, link, "sign_event", [JSON.stringify(template)], timeoutMs), (result) => {
      const event = Option.filter(
        Option.flatMap(Either.getRight(Either.try(() => JSON.parse(result) as unknown)), verifiedEvent),
        (e) => e.pubkey === publicKey && e.kind === template.kind && e.content === template.content && e.created_at === template.created_at
      )
      return Option.match(event, {
        onNone: () => Effect.fail(new SignFailed({ reason: "the remote signer answered an event that is not the one asked for", refused: true })),
        onSome: Effect.succeed
      })
    })
})
