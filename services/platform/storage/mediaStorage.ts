import type { Readable } from "node:stream"
import { Context, Data, type Effect, type Option } from "effect"

/** A storage backend failed (disk full, object store unreachable or refusing). */
export class StorageError extends Data.TaggedError("StorageError")<{
  readonly operation: string
  readonly key: string
  readonly cause: unknown
}> {}

/** Inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

export interface StoredObject {
  readonly size: number
}

/**
 * Where media files live, behind one interface: the local disk (one gateway) or an
 * S3-compatible object store (several gateway replicas). Keys come from `storageKey`.
 * Files go in and out as streams, so no file is ever held whole in memory.
 */
export interface MediaStorageShape {
  readonly backend: "local" | "s3"
  /** Stores the file at `file` (a local path, e.g. the upload's temp file) under `key`. */
  readonly put: (input: {
    readonly key: string
    readonly file: string
    readonly size: number
    readonly mime: string
  }) => Effect.Effect<void, StorageError>
  readonly stat: (key: string) => Effect.Effect<Option.Option<StoredObject>, StorageError>
  /** The bytes of `key` (all of them, or `range`), as a stream the caller must consume or destroy. */
  readonly read: (key: string, range?: ByteRange) => Effect.Effect<Readable, StorageError>
  readonly remove: (key: string) => Effect.Effect<void, StorageError>
  /** The public address of `key` (the Media item's `path`). */
  readonly publicUrl: (key: string) => string
}

export class MediaStorage extends Context.Tag("media/MediaStorage")<MediaStorage, MediaStorageShape>() {}
