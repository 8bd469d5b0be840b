import { chacha20 } from "@noble/ciphers/chacha.js"
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js"
import { expand, extract } from "@noble/hashes/hkdf.js"
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, concatBytes, hexToBytes, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { bech32 } from "@scure/base"

/**
 * The Nostr cryptography the adapter needs, on the audited noble and scure libraries:
 * NIP-01 event ids and Schnorr signatures, NIP-19 bech32 names and NIP-44 v2 encryption
 * (for the NIP-46 remote signer). Written here rather than taken from nostr-tools, whose
 * optional peer dependency on typescript would put the compiler into the production
 * install; the tests check every function against nostr-tools.
 */

/** A NIP-01 event before it is signed. */
export interface EventTemplate {
  readonly kind: number
  readonly created_at: number
  readonly tags: ReadonlyArray<ReadonlyArray<string>>
  readonly content: string
}

/** A signed NIP-01 event. */
export interface SignedEvent extends EventTemplate {
  readonly id: string
  readonly pubkey: string
  readonly sig: string
}

export const generateSecretKey = (): Uint8Array => schnorr.utils.randomSecretKey()

/** The x-only public key (hex) of a secret key; throws for zero or a number past the curve's order. */
export const getPublicKey = (secretKey: Uint8Array): string => bytesToHex(schnorr.getPublicKey(secretKey))

/** NIP-01: the id is the SHA-256 of `[0, pubkey, created_at, kind, tags, content]` serialized as JSON. */
export const getEventHash = (event: EventTemplate & { readonly pubkey: string }): string =>
  bytesToHex(sha256(utf8ToBytes(JSON.stringify([0, event.pubkey, event.created_at, event.kind, event.tags, event.content]))))

export const finalizeEvent = (template: EventTemplate, secretKey: Uint8Array): SignedEvent => {
  const pubkey = getPublicKey(secretKey)
  const id = getEventHash({ ...template, pubkey })
  return { ...template, pubkey, id, sig: bytesToHex(schnorr.sign(hexToBytes(id), secretKey)) }
}

/** Whether the event's id is its hash and its signature its author's. */
export const verifyEvent = (event: SignedEvent): boolean => {
  try {
    return getEventHash(event) === event.id && schnorr.verify(hexToBytes(event.sig), hexToBytes(event.id), hexToBytes(event.pubkey))
  } catch {
    return false
  }
}

/** NIP-19 names: bech32 with a length limit above the 90 characters of BIP-173 (TLV names are longer). */
const BECH32_LIMIT = 5000

const encodeBytes = (prefix: string, bytes: Uint8Array) => bech32.encode(prefix, bech32.toWords(bytes), BECH32_LIMIT)

export const npubEncode = (publicKeyHex: string) => encodeBytes("npub", hexToBytes(publicKeyHex))

/** `nsec1…` → the secret key; throws when the text is not one. */
export const nsecDecode = (text: string): Uint8Array => {
  const { prefix, words } = bech32.decode(text as `${string}1${string}`, BECH32_LIMIT)
  if (prefix !== "nsec") throw new Error(`not an nsec: ${prefix}`)
  const bytes = bech32.fromWords(words)
  if (bytes.length !== 32) throw new Error("an nsec holds 32 bytes")
  return bytes
}

const tlv = (type: number, value: Uint8Array) => concatBytes(Uint8Array.of(type, value.length), value)

/** NIP-19 `nevent1…`: the event's id, relays where it may be found, its author and kind (TLV 0, 1, 2, 3). */
export const neventEncode = (input: {
  readonly id: string
  readonly relays: ReadonlyArray<string>
  readonly author: string
  readonly kind: number
}): string => {
  const kind = new Uint8Array(4)
  new DataView(kind.buffer).setUint32(0, input.kind, false)
  return encodeBytes(
    "nevent",
    concatBytes(tlv(0, hexToBytes(input.id)), ...input.relays.map((r) => tlv(1, utf8ToBytes(r))), tlv(2, hexToBytes(input.author)), tlv(3, kind))
  )
}

/** NIP-44 v2: the conversation key of two parties (ECDH's shared x, HKDF-extract with salt `nip44-v2`). */
export const nip44ConversationKey = (secretKey: Uint8Array, publicKeyHex: string): Uint8Array =>
  extract(sha256, secp256k1.getSharedSecret(secretKey, hexToBytes(`02${publicKeyHex}`)).subarray(1, 33), utf8ToBytes("nip44-v2"))

const paddedLength = (length: number) => {
  if (length <= 32) return 32
  const nextPower = 1 << (Math.floor(Math.log2(length - 1)) + 1)
  const chunk = nextPower <= 256 ? 32 : nextPower / 8
  return chunk * (Math.floor((length - 1) / chunk) + 1)
}

const messageKeys = (conversationKey: Uint8Array, nonce: Uint8Array) => {
  const keys = expand(sha256, conversationKey, nonce, 76)
  return { chachaKey: keys.subarray(0, 32), chachaNonce: keys.subarray(32, 44), hmacKey: keys.subarray(44, 76) }
}

export const nip44Encrypt = (plaintext: string, conversationKey: Uint8Array, nonce: Uint8Array = randomBytes(32)): string => {
  const text = utf8ToBytes(plaintext)
  if (text.length < 1 || text.length > 65535) throw new Error("NIP-44 takes 1 to 65535 bytes")
  const padded = new Uint8Array(2 + paddedLength(text.length))
  new DataView(padded.buffer).setUint16(0, text.length, false)
  padded.set(text, 2)
  const { chachaKey, chachaNonce, hmacKey } = messageKeys(conversationKey, nonce)
  const ciphertext = chacha20(chachaKey, chachaNonce, padded)
  const mac = hmac(sha256, hmacKey, concatBytes(nonce, ciphertext))
  return Buffer.from(concatBytes(Uint8Array.of(2), nonce, ciphertext, mac)).toString("base64")
}

/** Throws when the payload is not NIP-44 v2, its MAC does not match, or its padding is wrong. */
export const nip44Decrypt = (payload: string, conversationKey: Uint8Array): string => {
  const data = Uint8Array.from(Buffer.from(payload, "base64"))
  if (data.length < 99 || data[0] !== 2) throw new Error("not a NIP-44 v2 payload")
  const nonce = data.subarray(1, 33)
  const ciphertext = data.subarray(33, data.length - 32)
  const mac = data.subarray(data.length - 32)
  const { chachaKey, chachaNonce, hmacKey } = messageKeys(conversationKey, nonce)
  const expected = hmac(sha256, hmacKey, concatBytes(nonce, ciphertext))
  if (bytesToHex(expected) !== bytesToHex(mac)) throw new Error("NIP-44 MAC mismatch")
  const padded = chacha20(chachaKey, chachaNonce, ciphertext)
  const length = new DataView(padded.buffer, padded.byteOffset).getUint16(0, false)
  if (length < 1 || padded.length !== 2 + paddedLength(length)) throw new Error("NIP-44 padding is wrong")
  return new TextDecoder().decode(padded.subarray(2, 2 + length))
}
