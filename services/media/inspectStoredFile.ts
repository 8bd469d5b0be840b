import fs from "node:fs/promises"
import { Effect } from "effect"
import { inspectFile, type Inspection } from "../../domain/media/fileType.js"
import { withSpan } from "../platform/tracing.js"

const WINDOW = 64 * 1024

/**
 * Runs the pure inspector against a file on disk, reading only the ranges it asks for
 * through a 64 KB window (a video's boxes are found without reading the video).
 */
export const inspectStoredFile = (file: string, size: number): Effect.Effect<Inspection> =>
  Effect.promise(async () => {
    const handle = await fs.open(file, "r")
    try {
      let windowStart = 0
      let window = new Uint8Array(0)
      const readAt = async (offset: number, length: number): Promise<Uint8Array> => {
        const start = Math.min(offset, size)
        const end = Math.min(offset + length, size)
        if (start >= windowStart && end <= windowStart + window.length) {
          return window.subarray(start - windowStart, end - windowStart)
        }
        const buffer = Buffer.alloc(Math.min(Math.max(length, WINDOW), size - start))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start)
        windowStart = start
        window = buffer.subarray(0, bytesRead)
        return window.subarray(0, Math.min(end - start, bytesRead))
      }
      const inspector = inspectFile(size)
      let step = inspector.next()
      while (!step.done) step = inspector.next(await readAt(step.value.offset, step.value.length))
      return step.value
    } finally {
      await handle.close()
    }
  }).pipe(withSpan("media.inspectStoredFile"))

/** The first bytes of a file (at most `length`). */
export const readHead = (file: string, length: number): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const handle = await fs.open(file, "r")
    try {
      const buffer = Buffer.alloc(length)
      const { bytesRead } = await handle.read(buffer, 0, length, 0)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  })
