import path from "node:path"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.js"
import { makeLocalStorage } from "./localStorage.js"
import { makeS3Storage } from "./s3Storage.js"
import { MediaStorage } from "./mediaStorage.js"

/** MEDIA_STORAGE picks the backend: `local` (default) or `s3`. */
export const MediaStorageLive = Layer.effect(
  MediaStorage,
  Effect.map(AppConfig, (config) =>
    config.media.storage === "s3"
      ? makeS3Storage({ s3: config.media.s3, publicUrl: config.publicUrl })
      : makeLocalStorage({ root: path.join(config.dataDir, "media"), publicUrl: config.publicUrl })
  )
)
