import { createHash } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import type { EventTemplate } from "./nostrCrypto.js"
import type { OutboundHttpShape } from "../../platform/outbound/outboundHttp.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { PublishAnswer } from "../adapter.js"
import type { MediaFile } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, trimBase } from "../networkHttp.js"
import type { NostrEvent } from "./nostrEvent.js"

/**
 * A file on a Blossom media server (BUD-01, BUD-02): `PUT /upload` with the bytes and an
 * `Authorization: Nostr <base64 kind 24242 event>` naming the file's sha256; the server
 * answers a blob descriptor whose `url` goes into the note. A blob is named by its hash, so
 * sending the same file again is the same blob.
 */

const BlobDescriptor = Schema.Struct({
  url: Schema.String,
  sha256: Schema.String,
  size: Schema.Number,
  type: Schema.optional(Schema.String)
})

export interface UploadedFile {
  readonly url: string
  readonly sha256: string
  readonly mime: string
  readonly size: number
}

/** How long the upload's authorization is valid. */
const AUTH_VALID_SECONDS = 300

/** The BUD-01 authorization event for uploading a blob with this hash (signed by the channel's signer). */
export const uploadAuthorization = (sha256: string, name: string, now = Math.floor(Date.now() / 1000)): EventTemplate => ({
  kind: 24242,
  created_at: now,
  content: `Upload ${name}`,
  tags: [
    ["t", "upload"],
    ["x", sha256],
    ["expiration", String(now + AUTH_VALID_SECONDS)]
  ]
})

/** The server's reason: BUD-01's X-Reason header (BUD-02 names Blossom-Upload-Message), else the body. */
const reasonOf = (response: OutboundResponse) => {
  const header = response.headers["x-reason"] ?? response.headers["blossom-upload-message"]
  const text = Array.isArray(header) ? header[0] : header
  return text !== undefined && text !== "" ? text : excerpt(response, 160) || `HTTP ${response.status}`
}

/** Uploads one file; a failure is the item's answer (nothing was posted: the note is not signed yet). */
export const uploadBlob = (
  outbound: OutboundHttpShape,
  server: string,
  sign: (template: EventTemplate) => Effect.Effect<NostrEvent, PublishAnswer>,
  file: MediaFile
): Effect.Effect<UploadedFile, PublishAnswer> =>
  Effect.gen(function* () {
    const sha256 = createHash("sha256").update(file.bytes).digest("hex")
    const auth = yield* sign(uploadAuthorization(sha256, file.name))
    const answer = yield* call(outbound, {
      url: `${trimBase(server)}/upload`,
      method: "PUT",
      headers: {
        authorization: `Nostr ${Buffer.from(JSON.stringify(auth)).toString("base64")}`,
        "content-type": file.mime || "application/octet-stream"
      },
      body: file.bytes,
      timeoutMs: 120_000
    })
    if (answer._tag === "Failed") {
      return yield* Effect.fail(PublishAnswer.FailedBeforeSending({ reason: `the media server could not be reached (${answer.error._tag})` }))
    }
    const { response } = answer
    const blob = isSuccess(response) ? decodeBody(BlobDescriptor, response) : Option.none()
    // the server must keep the bytes as sent (BUD-02): another hash is another file
    if (Option.isSome(blob) && blob.value.sha256 === sha256) {
      return { url: blob.value.url, sha256, mime: file.mime, size: file.bytes.length }
    }
    if (response.status === 429 || response.status >= 500 || isSuccess(response)) {
      return yield* Effect.fail(PublishAnswer.FailedBeforeSending({ reason: `the media server answered ${response.status}: ${reasonOf(response)}` }))
    }
    return yield* Effect.fail(
      PublishAnswer.Rejected({
        message: `The media server refused ${file.name} (${response.status}): ${reasonOf(response)}.`,
        fix:
          response.status === 401 || response.status === 403 || response.status === 402
            ? "Use a media server that accepts uploads from this key (some need an account or payment), reconnect the channel with it, then retry."
            : "Change the file as the message says, then retry."
      })
    )
  })
