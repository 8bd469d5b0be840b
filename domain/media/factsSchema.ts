import { Schema } from "effect"
import type { MediaFacts, RenditionTarget } from "./preparation.js"

/**
 * The facts and targets of domain/media/preparation.ts as Schemas: how they are read back
 * from the database (jsonb) and shown in answers (GET /media, the post's media).
 */

export const ImageFactsSchema = Schema.Struct({
  kind: Schema.Literal("image"),
  format: Schema.String,
  width: Schema.Number,
  height: Schema.Number,
  orientation: Schema.Number,
  animated: Schema.Boolean,
  frames: Schema.Number,
  colourSpace: Schema.String,
  bytes: Schema.Number
}).annotations({ identifier: "ImageFacts" })

export const VideoFactsSchema = Schema.Struct({
  kind: Schema.Literal("video"),
  container: Schema.String,
  videoCodec: Schema.String,
  audioCodec: Schema.NullOr(Schema.String),
  durationSeconds: Schema.Number,
  width: Schema.Number,
  height: Schema.Number,
  frameRate: Schema.Number,
  bitrateKbps: Schema.Number,
  bytes: Schema.Number
}).annotations({ identifier: "VideoFacts" })

export const MediaFactsSchema: Schema.Schema<MediaFacts> = Schema.Union(ImageFactsSchema, VideoFactsSchema).annotations({
  identifier: "MediaFacts",
  description:
    "What the file is, read from its content at upload: image format, size, EXIF orientation, animation, colour space; video container, codecs, duration, size, frame rate, bitrate"
})

export const RenditionTargetSchema: Schema.Schema<RenditionTarget> = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("image"),
    format: Schema.Literal("jpeg", "png"),
    maxWidth: Schema.Number,
    maxHeight: Schema.Number,
    maxBytes: Schema.Number
  }),
  Schema.Struct({
    kind: Schema.Literal("video"),
    maxWidth: Schema.Number,
    maxHeight: Schema.Number,
    maxBytes: Schema.Number,
    maxFrameRate: Schema.Number,
    maxVideoBitrateKbps: Schema.Number,
    cover: Schema.Boolean
  })
)
