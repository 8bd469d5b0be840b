import fs from "node:fs/promises"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Messages } from "../../domain/errors.js"
import { answerOf } from "../support/answers.js"
import { decoded, errorOf } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"

/**
 * POST /upload with bodies a real client may send: cut off, malformed, abandoned, stalled.
 * Each is answered (400) or cut off, and every temporary file of the request is gone
 * afterwards, whatever happened. The request's multipart files land in the platform's
 * temp directory (os.tmpdir(), i.e. TMPDIR), which this file points at a directory of its own.
 */

const IDLE_MS = 1500
const HEADERS_MS = 1500
const MAX_UPLOAD = 300 * 1024

let world: TestWorld
let sys: RunningServices
let tmp: string
let dataDir: string
let apiKey: string
const savedTmpdir = process.env["TMPDIR"]

beforeAll(async () => {
  world = await createWorld("uploadbodies")
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "upload-bodies-data-"))
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "upload-bodies-tmp-"))
  process.env["TMPDIR"] = tmp
  sys = await startServices(world, ["gateway"], {
    DATA_DIR: dataDir,
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    REQUEST_IDLE_TIMEOUT_MS: String(IDLE_MS),
    HEADERS_TIMEOUT_MS: String(HEADERS_MS)
  })
  ;({ apiKey } = await sys.admin.createWorkspace())
})
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env["TMPDIR"]
  else process.env["TMPDIR"] = savedTmpdir
  await sys?.stop()
  await world?.drop()
  await fs.rm(dataDir, { recursive: true, force: true })
  await fs.rm(tmp, { recursive: true, force: true })
})

/** What the uploads left in the temp directory (files inside the request directories included). */
const leftovers = async (): Promise<Array<string>> => {
  for (;;) {
    try {
      return (await fs.readdir(tmp, { recursive: true })).map(String).sort()
    } catch (e) {
      // a request directory removed while it was being listed: list again
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
    }
  }
}

const noLeftovers = () => waitFor("temporary files removed", async () => ((await leftovers()).length === 0 ? true : undefined))

const BOUNDARY = "----upload-test-boundary"
const partHead = (name = "x.png") =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`)
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`)

interface RawExchange {
  readonly socket: net.Socket
  /** Settles when the connection closes: the answer, if one came. */
  readonly closed: Promise<{ readonly status: number | null; readonly body: string; readonly answered: boolean }>
}

/**
 * A request written by hand on a socket: `head` lines, then `body` (which may be shorter
 * than the declared length, or a malformed multipart body). The connection stays open
 * until the server closes it (or the test destroys the socket).
 */
const rawRequest = (
  body: Buffer,
  /** `chunked`: the whole body as one chunk, then the last chunk */
  options: { readonly contentLength?: number; readonly contentType?: string; readonly chunked?: boolean } = {}
): RawExchange => {
  const url = new URL(sys.url)
  const socket = net.connect({ host: url.hostname, port: Number(url.port) })
  const lines = [
    "POST /public/v1/upload HTTP/1.1",
    `Host: ${url.host}`,
    `Authorization: ${apiKey}`,
    `Content-Type: ${options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`}`,
    options.chunked === true ? "Transfer-Encoding: chunked" : `Content-Length: ${options.contentLength ?? body.length}`,
    "Connection: close"
  ]
  socket.write(`${lines.join("\r\n")}\r\n\r\n`)
  if (options.chunked === true) socket.write(Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]))
  else if (body.length > 0) socket.write(body)
  const closed = new Promise<{ status: number | null; body: string; answered: boolean }>((resolve) => {
    let received = ""
    socket.on("data", (chunk) => (received += chunk.toString("latin1")))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received)
      const split = received.indexOf("\r\n\r\n")
      resolve({ status: match === null ? null : Number(match[1]), body: split < 0 ? "" : received.slice(split + 4), answered: match !== null })
    })
  })
  return { socket, closed }
}

/** Sends a whole (possibly malformed) body and waits for the answer. */
const sendWhole = async (body: Buffer, options: Parameters<typeof rawRequest>[1] = {}) => {
  const exchange = rawRequest(body, options)
  const result = await exchange.closed
  const json: unknown = result.body === "" ? undefined : JSON.parse(result.body)
  // status 0: the connection closed before a status line
  return { ...result, status: result.status ?? 0, json, text: result.body }
}

describe("POST /upload: a malformed multipart body gets 400 at once", () => {
  const file = png(16, 16)
  it.each([
    ["the closing boundary is missing (the body ends inside the file)", Buffer.concat([partHead(), file])],
    ["the body ends inside the part's headers", Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-da`)],
    ["the body ends right after a boundary", Buffer.from(`--${BOUNDARY}\r\n`)],
    ["the body has no boundary at all", Buffer.from("just some text, no multipart here")],
    ["the body is empty", Buffer.alloc(0)]
  ])("%s", async (_, body) => {
    const res = await sendWhole(body)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(Messages.multipartUnreadable)
    await noLeftovers()
  })

  it("a multipart Content-Type without a boundary gets 400", async () => {
    const res = await sendWhole(Buffer.concat([partHead(), file, closing]), { contentType: "multipart/form-data" })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(Messages.multipartUnreadable)
    await noLeftovers()
  })

  it("the same body sent chunked (no Content-Length) gets 400 too", async () => {
    const res = await sendWhole(Buffer.concat([partHead(), file]), { chunked: true })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(Messages.multipartUnreadable)
    await noLeftovers()
  })

  it("a well-formed body still works, and leaves nothing behind", async () => {
    const res = await sendWhole(Buffer.concat([partHead(), file, closing]))
    expect(res.status).toBe(200)
    expect(decoded(res, answerOf("media", "upload")).type).toBe("image")
    await noLeftovers()
  })
})

describe("POST /upload: temporary files are removed on every path", () => {
  it("a refused file (400: not an accepted type)", async () => {
    const res = await sendWhole(Buffer.concat([partHead("a.png"), Buffer.from("not an image at all"), closing]))
    expect(res.status).toBe(400)
    await noLeftovers()
  })

  it("a file that passes the largest upload size while it streams (413)", async () => {
    const res = await sendWhole(Buffer.concat([partHead("big.png"), Buffer.alloc(MAX_UPLOAD + 30_000, 7), closing]))
    expect(res.status).toBe(413)
    await noLeftovers()
  })

  it("a client that disconnects in the middle of the body", async () => {
    const half = Buffer.concat([partHead("gone.png"), Buffer.alloc(100_000, 1)])
    const exchange = rawRequest(half, { contentLength: half.length + 100_000 })
    // the request's temp file exists: the server is writing the upload
    await waitFor("the upload's temp file", async () => ((await leftovers()).some((e) => e.endsWith("gone.png")) ? true : undefined))
    exchange.socket.destroy()
    await exchange.closed
    await noLeftovers()
  })
})

describe("the server cuts off clients that stop sending", () => {
  it("a client that sends half a body and stalls has its connection closed, and its temp files are gone", async () => {
    const half = Buffer.concat([partHead("stalled.png"), Buffer.alloc(100_000, 2)])
    const exchange = rawRequest(half, { contentLength: half.length + 100_000 })
    await waitFor("the upload's temp file", async () => ((await leftovers()).some((e) => e.endsWith("stalled.png")) ? true : undefined))
    // the test never closes this socket: only the server can
    const result = await exchange.closed
    expect(exchange.socket.destroyed).toBe(true)
    expect(result.status === null || result.status === 408).toBe(true)
    await noLeftovers()
  })

  it("a client that sends half its headers and stalls has its connection closed", async () => {
    const url = new URL(sys.url)
    const socket = net.connect({ host: url.hostname, port: Number(url.port) })
    socket.on("error", () => undefined)
    socket.write(`POST /public/v1/upload HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${apiKey}\r\n`)
    await new Promise<void>((resolve) => socket.once("close", () => resolve()))
    expect(socket.destroyed).toBe(true)
  })

  it("a slow upload that keeps sending (pauses shorter than the idle limit, longer in total) is taken", async () => {
    const file = png(64, 64, 40_000)
    const body = Buffer.concat([partHead("slow.png"), file, closing])
    const exchange = rawRequest(Buffer.alloc(0), { contentLength: body.length })
    const pieces = 6
    const size = Math.ceil(body.length / pieces)
    for (let i = 0; i < pieces; i++) {
      exchange.socket.write(body.subarray(i * size, (i + 1) * size))
      await new Promise((r) => setTimeout(r, IDLE_MS / 3))
    }
    const result = await exchange.closed
    expect(result.status).toBe(200)
    await noLeftovers()
  })
})
