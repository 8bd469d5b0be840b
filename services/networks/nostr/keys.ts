import { Either, Option, Schema } from "effect"
import { getPublicKey, nsecDecode } from "./nostrCrypto.js"

/** The `--credentials` of a Nostr channel (docs/networks.md, "Nostr"). */
export const GivenCredentials = Schema.Struct({
  privateKey: Schema.optional(Schema.String),
  /** Instead of privateKey: a NIP-46 remote signer's `bunker://` address. */
  bunker: Schema.optional(Schema.String),
  relays: Schema.Array(Schema.String),
  mediaServer: Schema.optional(Schema.String)
})

/** What is stored (sealed with SECRET_KEY like every channel's credentials): the key as hex, its public key. */
export const StoredCredentials = Schema.Struct({
  privateKey: Schema.optional(Schema.String),
  /** A NIP-46 remote signer in place of the key: its key, its relays and this server's client key (hex). */
  bunker: Schema.optional(Schema.Struct({ remotePubkey: Schema.String, relays: Schema.Array(Schema.String), clientKey: Schema.String })),
  publicKey: Schema.String,
  relays: Schema.Array(Schema.String),
  mediaServer: Schema.optional(Schema.String)
})
export type StoredCredentials = typeof StoredCredentials.Type

export interface Keys {
  readonly secretKey: Uint8Array
  readonly secretHex: string
  readonly publicKey: string
}

/** A secret key given as 64 hex digits or as NIP-19 `nsec1…`; None when it is neither or not a valid key. */
export const keysOf = (text: string): Option.Option<Keys> => {
  const trimmed = text.trim()
  const secret: Option.Option<Uint8Array> = /^[0-9a-f]{64}$/i.test(trimmed)
    ? Option.some(Uint8Array.from(Buffer.from(trimmed, "hex")))
    : trimmed.startsWith("nsec1")
      ? Either.getRight(Either.try(() => nsecDecode(trimmed)))
      : Option.none()
  // getPublicKey throws for zero or a number past the curve's order
  return Option.flatMap(secret, (secretKey) =>
    Option.map(Either.getRight(Either.try(() => getPublicKey(secretKey))), (publicKey) => ({
      secretKey,
      secretHex: Buffer.from(secretKey).toString("hex"),
      publicKey
    }))
  )
}

/** A relay address: ws:// or wss:// with a host. */
export const isRelayAddress = (text: string) => {
  try {
    const url = new URL(text)
    return (url.protocol === "wss:" || url.protocol === "ws:") && url.hostname !== ""
  } catch {
    return false
  }
}

/** A media server address: http(s) with a host. */
export const isHttpAddress = (text: string) => {
  try {
    const url = new URL(text)
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== ""
  } catch {
    return false
  }
}
