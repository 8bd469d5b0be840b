import * as nip19 from "nostr-tools/nip19"
import * as nip44 from "nostr-tools/nip44"
import * as pure from "nostr-tools/pure"
import { describe, expect, it } from "vitest"
import {
  finalizeEvent,
  generateSecretKey,
  getEventHash,
  getPublicKey,
  neventEncode,
  nip44ConversationKey,
  nip44Decrypt,
  nip44Encrypt,
  npubEncode,
  nsecDecode,
  verifyEvent
} from "./nostrCrypto.js"

/** The adapter's own Nostr cryptography agrees with nostr-tools, an independent implementation, on random keys. */

const template = (content: string) => ({
  kind: 1,
  created_at: 1_760_000_000,
  tags: [
    ["t", "launch"],
    ["p", "ab".repeat(32)]
  ],
  content
})

describe("Nostr cryptography agrees with nostr-tools", () => {
  it.each(Array.from({ length: 5 }, (_, i) => [i]))("keys, ids and signatures (round %i)", () => {
    const secret = generateSecretKey()
    expect(getPublicKey(secret)).toBe(pure.getPublicKey(secret))
    const ours = finalizeEvent(template("héllo 👋 nostr"), secret)
    expect(pure.verifyEvent({ ...ours, tags: ours.tags.map((t) => [...t]) })).toBe(true)
    expect(ours.id).toBe(pure.getEventHash({ ...ours, tags: ours.tags.map((t) => [...t]) }))
    const theirs = pure.finalizeEvent({ ...template("theirs"), tags: [["e", "cd".repeat(32)]] }, secret)
    expect(verifyEvent(theirs)).toBe(true)
    expect(getEventHash(theirs)).toBe(theirs.id)
  })

  it("a changed content or a wrong signature does not verify", () => {
    const signed = finalizeEvent(template("original"), generateSecretKey())
    expect(verifyEvent({ ...signed, content: "changed" })).toBe(false)
    expect(verifyEvent({ ...signed, sig: "00".repeat(64) })).toBe(false)
    expect(verifyEvent({ ...signed, sig: "not hex" })).toBe(false)
  })

  it("NIP-19: nsec, npub and nevent as nostr-tools writes and reads them", () => {
    const secret = generateSecretKey()
    expect(nsecDecode(nip19.nsecEncode(secret))).toEqual(secret)
    expect(() => nsecDecode(nip19.npubEncode(pure.getPublicKey(secret)))).toThrow()
    expect(() => nsecDecode("nsec1notvalid")).toThrow()
    const pubkey = getPublicKey(secret)
    expect(npubEncode(pubkey)).toBe(nip19.npubEncode(pubkey))
    const event = { id: "ef".repeat(32), relays: ["wss://relay.one", "wss://relay.two"], author: pubkey, kind: 1 }
    // the TLV's order is free (NIP-19): read back, both name the same event
    expect(nip19.decode(neventEncode(event))).toEqual(nip19.decode(nip19.neventEncode(event)))
    expect(nip19.decode(neventEncode(event))).toEqual({ type: "nevent", data: event })
  })

  it("NIP-44 v2: the same conversation key, the same payload for the same nonce, and each reads the other's", () => {
    const a = generateSecretKey()
    const b = generateSecretKey()
    const key = nip44ConversationKey(a, getPublicKey(b))
    expect(key).toEqual(nip44.v2.utils.getConversationKey(a, pure.getPublicKey(b)))
    expect(key).toEqual(nip44ConversationKey(b, getPublicKey(a)))
    const nonce = generateSecretKey()
    for (const text of ["x", "a".repeat(32), "b".repeat(33), "ü".repeat(300), JSON.stringify({ id: "1", method: "sign_event", params: ["{}"] })]) {
      expect(nip44Encrypt(text, key, nonce)).toBe(nip44.v2.encrypt(text, key, nonce))
      expect(nip44Decrypt(nip44.v2.encrypt(text, key), key)).toBe(text)
      expect(nip44.v2.decrypt(nip44Encrypt(text, key), key)).toBe(text)
    }
    const payload = nip44Encrypt("secret", key)
    const tampered = Buffer.from(payload, "base64")
    tampered[40] = (tampered[40] ?? 0) ^ 1
    expect(() => nip44Decrypt(tampered.toString("base64"), key)).toThrow(/MAC/)
  })
})
