import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { expecting } from "../../domain/fieldProblem.js"
import { MediaFactsSchema } from "../../domain/media/factsSchema.js"
import { MAX_URL_LENGTH } from "../../domain/requests.js"
import { optionalParam } from "./common.js"
import { InvalidJson, InvalidRequest, MediaRefused, PayloadTooLarge, Forbidden } from "./errors.js"
import { Authentication } from "./security.js"

/** Spec: Resources → Media item. */
export const MediaItem = Schema.Struct({
  id: Schema.String.annotations({ description: "Use in posts (image[].id, media)" }),
  name: Schema.String.annotations({ description: "For upload-from-url: the last part of the address" }),
  originalName: Schema.String,
  path: Schema.String.annotations({ description: "Public address of the file" }),
  thumbnail: Schema.NullOr(Schema.String).annotations({ description: "Same address as path for images; null for videos" }),
  alt: Schema.String.annotations({ description: "Empty string by default" }),
  type: Schema.String.annotations({ description: "`image` or `video`" }),
  status: Schema.String.annotations({ description: "`ready` when usable" }),
  facts: Schema.NullOr(MediaFactsSchema).annotations({
    description: "What the file is, read from its content at upload (null for files stored before facts were kept); the network rules check these"
  })
}).annotations({ identifier: "MediaItem" })

/** POST /upload: one file in the field `file`. */
export const UploadPayload = HttpApiSchema.Multipart(
  Schema.Struct({
    file: expecting(Multipart.SingleFileSchema, "one file (multipart form data, field file)").annotations({
      description: "JPG, PNG, GIF, WEBP, MP4, MOV or WEBM; the type is read from the content, not the name"
    })
  })
)

export const UploadFromUrlPayload = Schema.Struct({
  url: expecting(
    Schema.String.pipe(Schema.maxLength(MAX_URL_LENGTH)),
    `an http or https address of at most ${MAX_URL_LENGTH} characters`
  ).annotations({ description: `Public http or https address of the file itself (not a page); at most ${MAX_URL_LENGTH} characters.` })
})

export const MediaListParams = Schema.Struct({
  page: optionalParam(
    expecting(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000)), "a whole number from 1").annotations({
      description: "Starts at 1 (default 1); 40 items per page"
    })
  ),
  search: optionalParam(Schema.String.annotations({ description: "Files whose name or alt text contains this text" }))
})

export const MediaApi = HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/upload")
      .setPayload(UploadPayload)
      .addSuccess(MediaItem)
      .addError(InvalidRequest)
      .addError(MediaRefused)
      .addError(PayloadTooLarge)
      .annotate(OpenApi.Summary, "Upload a file")
      .annotate(
        OpenApi.Description,
        "multipart/form-data with one field `file`. Accepted: JPG, PNG, GIF, WEBP, MP4, MOV, WEBM, detected from the content. " +
          "An image over the image limit gets 400 with the limit in the message; a file over the largest upload size gets 413."
      )
  )
  .add(
    HttpApiEndpoint.post("uploadFromUrl", "/upload-from-url")
      .setPayload(UploadFromUrlPayload)
      .addSuccess(MediaItem)
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(MediaRefused)
      .annotate(OpenApi.Summary, "Import a file from a URL")
      .annotate(
        OpenApi.Description,
        "A public http or https address that opens the file itself, not a page about it. Addresses on private networks " +
          "are refused (400), also behind redirects. The file is checked like an upload."
      )
  )
  .add(
    HttpApiEndpoint.get("listMedia", "/media")
      .setUrlParams(MediaListParams)
      .addSuccess(Schema.Array(MediaItem))
      .addError(InvalidRequest)
      .annotate(OpenApi.Summary, "List media")
      .annotate(
        OpenApi.Description,
        "Newest first, 40 per page. There is no total count: a page with fewer than 40 items is the last page. Client members get an empty list."
      )
  )
  .annotate(OpenApi.Title, "Media")
  // every endpoint checks the caller's role (domain/policy.ts)
  .addError(Forbidden)
  .middleware(Authentication)
