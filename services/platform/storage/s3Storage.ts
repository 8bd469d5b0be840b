import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3"
import { Effect, Option, Redacted } from "effect"
import type { MediaConfig } from "../config.js"
import { StorageError, type MediaStorageShape } from "./mediaStorage.js"

/**
 * An S3-compatible object store (AWS S3, MinIO, Ceph, R2, …): what several gateway
 * replicas share. Files are streamed up from the upload's temp file and streamed back out.
 * `path` points at S3_PUBLIC_URL when the bucket is public (or behind a CDN); otherwise
 * at the gateway, which streams the object to the reader.
 */
export const makeS3Storage = (options: {
  readonly s3: MediaConfig["s3"]
  /** The gateway's PUBLIC_URL, used when S3_PUBLIC_URL is not set. */
  readonly publicUrl: string
}): MediaStorageShape => {
  const { s3 } = options
  const client = new S3Client({
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    ...(s3.endpoint !== undefined ? { endpoint: s3.endpoint } : {}),
    ...(s3.accessKeyId !== undefined && s3.secretAccessKey !== undefined
      ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: Redacted.value(s3.secretAccessKey) } }
      : {}),
    // The SDK's default CRC trailers (aws-chunked uploads) are not understood by every
    // S3-compatible server; the signature already protects the body.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED"
  })
  const Bucket = s3.bucket
  const attempt = <A>(operation: string, key: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new StorageError({ operation, key, cause }) })
  const notFound = (e: unknown) =>
    e instanceof S3ServiceException && (e.$metadata.httpStatusCode === 404 || e.name === "NotFound" || e.name === "NoSuchKey")

  return {
    backend: "s3",
    put: ({ file, key, mime, size }) =>
      attempt("put", key, () =>
        client.send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body: createReadStream(file),
            ContentLength: size,
            ContentType: mime,
            CacheControl: "public, max-age=31536000, immutable"
          })
        )
      ).pipe(Effect.asVoid),
    stat: (key) =>
      attempt("stat", key, () =>
        client.send(new HeadObjectCommand({ Bucket, Key: key })).then(
          (head) => Option.some({ size: head.ContentLength ?? 0 }),
          (e: unknown) => (notFound(e) ? Option.none() : Promise.reject(e))
        )
      ),
    read: (key, range) =>
      attempt("read", key, async () => {
        const answer = await client.send(
          new GetObjectCommand({ Bucket, Key: key, ...(range !== undefined ? { Range: `bytes=${range.start}-${range.end}` } : {}) })
        )
        if (answer.Body instanceof Readable) return answer.Body
        throw new Error("the object store answered without a body stream")
      }),
    remove: (key) => attempt("remove", key, () => client.send(new DeleteObjectCommand({ Bucket, Key: key }))).pipe(Effect.asVoid),
    publicUrl: (key) => (s3.publicUrl !== undefined ? `${s3.publicUrl}/${key}` : `${options.publicUrl}/media/${key}`)
  }
}
