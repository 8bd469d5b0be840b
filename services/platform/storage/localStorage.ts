import { createReadStream, createWriteStream } from "node:fs"
import fs from "node:fs/promises"
import path from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect, Option } from "effect"
import { StorageError, type MediaStorageShape } from "./mediaStorage.js"

/**
 * Files under `<root>` (DATA_DIR/media), served by the gateway at `<publicUrl>/media/<key>`.
 * Fits one gateway, or several that share the directory.
 */
export const makeLocalStorage = (options: { readonly root: string; readonly publicUrl: string }): MediaStorageShape => {
  const root = path.resolve(options.root)
  const fileOf = (key: string) => path.join(root, ...key.split("/"))
  const attempt = <A>(operation: string, key: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new StorageError({ operation, key, cause }) })

  /** Rename when the temp file is on the same disk; else copy (streamed) then rename, so readers never see half a file. */
  const moveInto = async (source: string, target: string) => {
    await fs.mkdir(path.dirname(target), { recursive: true })
    try {
      await fs.rename(source, target)
      return
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e
    }
    const partial = `${target}.${process.pid}.partial`
    try {
      await pipeline(createReadStream(source), createWriteStream(partial))
      await fs.rename(partial, target)
    } catch (e) {
      await fs.rm(partial, { force: true })
      throw e
    }
  }

  return {
    backend: "local",
    put: ({ file, key }) => attempt("put", key, () => moveInto(file, fileOf(key))),
    stat: (key) =>
      attempt("stat", key, () =>
        fs.stat(fileOf(key)).then(
          (s) => (s.isFile() ? Option.some({ size: s.size }) : Option.none()),
          (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? Option.none() : Promise.reject(e))
        )
      ),
    read: (key, range) =>
      Effect.try({
        try: () => createReadStream(fileOf(key), range === undefined ? {} : { start: range.start, end: range.end }),
        catch: (cause) => new StorageError({ operation: "read", key, cause })
      }),
    remove: (key) => attempt("remove", key, () => fs.rm(fileOf(key), { force: true })),
    publicUrl: (key) => `${options.publicUrl}/media/${key}`
  }
}
