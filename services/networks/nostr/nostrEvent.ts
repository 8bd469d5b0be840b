import { Either, Option, Schema } from "effect"
import { type SignedEvent, verifyEvent } from "./nostrCrypto.js"

/** A NIP-01 event as relays send and take it. */
export const NostrEvent = Schema.Struct({
  id: Schema.String,
  pubkey: Schema.String,
  created_at: Schema.Number,
  kind: Schema.Number,
  tags: Schema.Array(Schema.Array(Schema.String)),
  content: Schema.String,
  sig: Schema.String
})
export type NostrEvent = typeof NostrEvent.Type

/** Outside data as an event whose id is its hash and whose signature is its author's (verifyEvent). */
export const verifiedEvent = (input: unknown): Option.Option<NostrEvent> =>
  Option.filter(Either.getRight(Schema.decodeUnknownEither(NostrEvent)(input)), (event) => {
    try {
      return verifyEvent(event)
    } catch {
      return false
    }
  })

/** A signed event as plain data (what is stored as progress and sent). */
export const plainEvent = (event: SignedEvent): NostrEvent => ({
  id: event.id,
  pubkey: event.pubkey,
  created_at: event.created_at,
  kind: event.kind,
  tags: event.tags.map((tag) => [...tag]),
  content: event.content,
  sig: event.sig
})
