import diagnostics from "node:diagnostics_channel"
import fs from "node:fs/promises"
import type http from "node:http"
import type net from "node:net"
import os from "node:os"
import path from "node:path"
import { HttpServer } from "@effect/platform"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatSize } from "../../domain/media/messages.js"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { GatewayLive } from "../../services/gateway/server.js"
import type { Resolver } from "../../services/platform/outbound/resolver.js"
import { OutboundHttpTest, startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"
import { answerOf } from "../support/answers.js"
import { client, decoded, errorOf } from "../support/http.js"
import { mp4, png } from "../support/mediaFiles.js"
import { realMp4 } from "../support/realMedia.js"
import { createWorld, infrastructure, type TestWorld } from "../support/system.js"

// POST /upload-from-url against a loopback origin that only this test's outbound client may
// reach. Every forbidden address is aimed at the port of a trap server (127.0.0.1, not
// allowed): the trap must never see a connection, and no client socket may even be opened
// towards that port.

const MAX_UPLOAD = 400 * 1024
const MAX_IMAGE = 100 * 1024
const TIMEOUT_MS = 1500

const image = png(24, 16)
const video = realMp4({ padBytes: 50_000 })

const routes: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? "/", "http://origin")
  const send = (type: string, body: Uint8Array) => res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body)
  if (url.pathname === "/redirect") {
    // header values are bytes: a non-ASCII host (fullwidth digits) travels percent-encoded
    const to = (url.searchParams.get("to") ?? "").replace(/[^\x20-\x7e]/g, (c) => encodeURIComponent(c))
    return void res.writeHead(Number(url.searchParams.get("code") ?? 302), { location: to }).end()
  }
  const hops = /^\/chain\/(\d+)$/.exec(url.pathname)?.[1]
  if (hops !== undefined) {
    const left = Number(hops)
    return void (left === 0 ? send("image/png", image) : res.writeHead(302, { location: `/chain/${left - 1}` }).end())
  }
  switch (url.pathname) {
    case "/files/photo.png":
    case "/files/My%20Holiday%20Photo.png":
    case "/files/":
      return send("image/png", image)
    case "/files/no-type":
      return void res.end(image) // no Content-Type, chunked
    case "/files/clip.mp4":
      return send("video/mp4", video)
    case "/files/truncated.mp4":
      return send("video/mp4", video.subarray(0, video.length / 2))
    case "/files/huge-image.png":
      return send("image/png", png(4, 4, MAX_IMAGE + 5000))
    case "/files/too-big.mp4": // announced
      return send("video/mp4", mp4({ frames: MAX_UPLOAD + 1000 }))
    case "/files/too-big-chunked.mp4": {
      // no Content-Length: only counting catches it
      res.writeHead(200, { "content-type": "video/mp4" })
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(MAX_UPLOAD / 10))
      return void res.end()
    }
    case "/files/drip.png": {
      res.writeHead(200, { "content-type": "image/png" })
      const timer = setInterval(() => res.write(Buffer.from([0])), 100)
      return void res.on("close", () => clearInterval(timer))
    }
    case "/page":
      return send("text/html; charset=utf-8", Buffer.from("<!doctype html><html><img src=/files/photo.png></html>"))
    case "/page-as-file":
      return send("application/octet-stream", Buffer.from("<!DOCTYPE html>\n<html><body>login</body></html>"))
    case "/text":
      return send("text/plain", Buffer.from("just text"))
    default:
      return void res.writeHead(404, { "content-type": "text/plain" }).end("not found")
  }
}

let world: TestWorld
let origin: LoopbackServer
let trap: LoopbackServer
let runtime: { readonly dispose: () => Promise<void> }
let baseUrl: string
let apiKey: string
let dataDir: string

/** Names of this test's made-up domains; the system resolver is never asked. */
const resolver: Resolver = async (hostname) => {
  const table: Record<string, ReadonlyArray<string>> = {
    "files.test": ["127.0.0.1"], // public for this test, but only on the origin's port
    "private.test": ["10.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "mixed-v6.test": ["127.0.0.1", "fd00::1"], // A allowed, AAAA private
    "mixed-v4.test": ["127.0.0.1", "192.168.1.10"] // several A records, one private
  }
  return (table[hostname.toLowerCase()] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

/** Every client socket's destination port, to prove no connection towards the trap was even tried. */
const attemptedPorts: Array<number> = []
const onClientSocket = ({ socket }: { socket: net.Socket }) => {
  const connect = socket.connect.bind(socket) as (...args: Array<unknown>) => net.Socket
  ;(socket as unknown as { connect: typeof connect }).connect = (...args) => {
    // net.connect passes its normalized arguments as one array: [options, callback]
    const first = Array.isArray(args[0]) ? (args[0] as Array<unknown>)[0] : args[0]
    const port = typeof first === "object" && first !== null && "port" in first ? (first as { port: unknown }).port : first
    attemptedPorts.push(Number(port))
    return connect(...args)
  }
}

beforeAll(async () => {
  world = await createWorld("mediaimport")
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "media-import-test-"))
  origin = await startLoopbackServer(routes)
  trap = await startLoopbackServer()
  const infra = infrastructure(world, {
    DATA_DIR: dataDir,
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    MAX_IMAGE_BYTES: String(MAX_IMAGE),
    MEDIA_IMPORT_TIMEOUT_MS: String(TIMEOUT_MS)
  })
  const outbound = OutboundHttpTest({ resolver, allow: [origin.origin] })
  // the gateway as startServices builds it, with the test outbound client in its context
  const gateway = ManagedRuntime.make(GatewayLive.pipe(Layer.provideMerge(Layer.merge(infra, outbound))))
  runtime = gateway
  const address = await gateway.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  baseUrl = `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`
  const admin = await gateway.runPromise(makeAdminOperations)
  ;({ apiKey } = await gateway.runPromise(admin.createWorkspace({ name: "Import", plan: "standard" })))
  diagnostics.subscribe("net.client.socket", onClientSocket as (message: unknown) => void)
})
afterAll(async () => {
  diagnostics.unsubscribe("net.client.socket", onClientSocket as (message: unknown) => void)
  await runtime?.dispose()
  await origin?.close()
  await trap?.close()
  await world?.drop()
  await fs.rm(dataDir, { recursive: true, force: true })
})

const importUrl = (url: string) => client(baseUrl, apiKey).post("/public/v1/upload-from-url", { url })
const at = (path: string) => origin.url(path)

const Imported = answerOf("media", "uploadFromUrl")

describe("POST /upload-from-url: files", () => {
  it("imports an image; name is the last part of the address", async () => {
    const res = await importUrl(at("/files/photo.png?size=large#top"))
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ name: "photo.png", originalName: "photo.png", type: "image", alt: "", status: "ready" })
    const item = decoded(res, Imported)
    expect(item.thumbnail).toBe(item.path)
    const served = await fetch(`${baseUrl}${new URL(item.path).pathname}`)
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true)
  })

  it("the name is decoded (My%20Holiday%20Photo.png → My Holiday Photo.png)", async () => {
    const res = await importUrl(at("/files/My%20Holiday%20Photo.png"))
    expect(decoded(res, Imported).name).toBe("My Holiday Photo.png")
  })

  it("an address ending in / is named after its last part (files)", async () => {
    const res = await importUrl(at("/files/"))
    expect(res.status).toBe(200)
    expect(decoded(res, Imported).name).toBe("files")
  })

  it("imports a video; the type comes from the content, not the Content-Type", async () => {
    const res = await importUrl(at("/files/clip.mp4"))
    expect(res.json).toMatchObject({ name: "clip.mp4", type: "video", thumbnail: null })
    const noType = await importUrl(at("/files/no-type"))
    expect(noType.status).toBe(200)
    expect(decoded(noType, Imported).type).toBe("image")
  })

  it("follows redirects between allowed addresses, also by name", async () => {
    const res = await importUrl(at(`/redirect?code=301&to=${encodeURIComponent(`http://files.test:${origin.origin.port}/files/photo.png`)}`))
    expect(res.status).toBe(200)
    expect(decoded(res, Imported).name).toBe("redirect") // the address given, not where it led
  })

  it("follows 5 redirects, not 6", async () => {
    expect((await importUrl(at("/chain/5"))).status).toBe(200)
    const six = await importUrl(at("/chain/6"))
    expect(six.status).toBe(400)
    expect(errorOf(six).error).toBe("The address redirected more than 5 times.")
  })

  it("a page (text/html) is refused with 400", async () => {
    const res = await importUrl(at("/page"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/opens a page \(text\/html\), not a file/)
  })

  it("a page sent as application/octet-stream is refused as a page", async () => {
    const res = await importUrl(at("/page-as-file"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/opens a page/)
  })

  it("a file of another type is refused", async () => {
    const res = await importUrl(at("/text"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/not accepted/)
  })

  it("a truncated video is refused", async () => {
    const res = await importUrl(at("/files/truncated.mp4"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/incomplete or damaged/)
  })

  it("a missing file (404) is refused with 400", async () => {
    const res = await importUrl(at("/files/nothing.png"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("The address answered with HTTP 404 instead of the file.")
  })

  it("an image over the image limit gets 400 with the limit", async () => {
    const res = await importUrl(at("/files/huge-image.png"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain(formatSize(MAX_IMAGE))
  })

  it.each(["/files/too-big.mp4", "/files/too-big-chunked.mp4"])("a file over the size cap is refused (%s)", async (p) => {
    const res = await importUrl(at(p))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain(formatSize(MAX_UPLOAD))
  })

  it("a slow drip runs into the total timeout", async () => {
    const res = await importUrl(at("/files/drip.png"))
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/could not be downloaded within 2 seconds/)
  })

  it("nothing is left behind in the library from refused imports", async () => {
    const list = await client(baseUrl, apiKey).get("/public/v1/media?search=too-big")
    expect(list.json).toEqual([])
  })
})

// The notes' SSRF list (shared/notes/security.md), each aimed at the trap's port.
const forbiddenHosts = [
  "127.0.0.1",
  "127.1",
  "0x7f.1",
  "0177.0.0.1",
  "2130706433",
  "0",
  "0.0.0.0",
  "10.0.0.1",
  "172.16.0.1",
  "192.168.0.1",
  "169.254.169.254",
  "0xA9FEA9FE",
  "2852039166",
  "100.64.0.1",
  "192.0.0.8",
  "198.18.0.1",
  "224.0.0.1",
  "240.0.0.1",
  "255.255.255.255",
  "[::1]",
  "[::]",
  "[::ffff:127.0.0.1]",
  "[::ffff:a9fe:a9fe]",
  "[::127.0.0.1]",
  "[64:ff9b::a9fe:a9fe]",
  "[2002:7f00:1::]",
  "[2001:0:1::1]",
  "[fc00::1]",
  "[fd00::1]",
  "[fe80::1]",
  "[fec0::1]",
  "[ff02::1]",
  "[100::1]",
  "localhost",
  "localhost.",
  "a.localhost",
  "metadata.google.internal",
  "private.test",
  "metadata.test",
  "mixed-v6.test",
  "mixed-v4.test",
  "１２７.０.０.１"
]

const forbiddenUrls = (port: number) => [
  ...forbiddenHosts.map((host) => `http://${host}:${port}/secret`),
  `https://127.0.0.1:${port}/secret`,
  `http://user@127.0.0.1:${port}/secret`,
  `http://files.test#@127.0.0.1:${port}/secret`,
  `http://127.0.0.1:${port}\\@files.test/secret`,
  `http:\\\\127.0.0.1:${port}\\secret`,
  `file:///etc/passwd`,
  `gopher://127.0.0.1:${port}/_secret`,
  `ftp://127.0.0.1:${port}/secret`,
  `data:image/png;base64,${image.toString("base64")}`,
  `javascript:alert(1)`,
  `ws://127.0.0.1:${port}/secret`,
  `not a url`,
  ``
]

describe("POST /upload-from-url: private and special addresses are refused (400), with no connection", () => {
  const expectRefused = async (url: string) => {
    const before = attemptedPorts.length
    const res = await importUrl(url)
    expect(res.status, url).toBe(400)
    expect(errorOf(res).error).toMatch(/^The address (is not public|cannot be imported)/)
    expect(
      attemptedPorts.slice(before).filter((p) => p === trap.origin.port),
      url
    ).toEqual([])
    expect(trap.connections()).toBe(0)
  }

  it.each(forbiddenUrls(0).map((_, i) => i))("direct address #%i", async (i) => {
    await expectRefused(forbiddenUrls(trap.origin.port)[i]!)
  })

  const codes = [301, 302, 303, 307, 308] as const
  it.each(forbiddenUrls(0).map((_, i) => i))("behind a redirect from the allowed origin, address #%i", async (i) => {
    const target = forbiddenUrls(trap.origin.port)[i]!
    if (target === "" || target === "not a url") return // as a Location these are relative: not forbidden
    const code = codes[i % codes.length]!
    await expectRefused(at(`/redirect?code=${code}&to=${encodeURIComponent(target)}`))
  })

  it.each(codes)("a %i redirect to a protocol-relative //127.0.0.1 address", async (code) => {
    await expectRefused(at(`/redirect?code=${code}&to=${encodeURIComponent(`//127.0.0.1:${trap.origin.port}/secret`)}`))
  })

  it("a redirect to a private address after an allowed hop", async () => {
    const second = at(`/redirect?code=302&to=${encodeURIComponent(`http://[::ffff:7f00:1]:${trap.origin.port}/`)}`)
    await expectRefused(at(`/redirect?code=307&to=${encodeURIComponent(second)}`))
  })

  it.each(["mixed-v6.test", "mixed-v4.test"])(
    "a name with one private address among allowed ones (%s) is refused, even on the allowed port",
    async (name) => {
      const direct = await importUrl(`http://${name}:${origin.origin.port}/secret`)
      expect(direct.status).toBe(400)
      const redirected = await importUrl(at(`/redirect?code=302&to=${encodeURIComponent(`http://${name}:${origin.origin.port}/secret`)}`))
      expect(redirected.status).toBe(400)
    }
  )

  it("the origin saw no request for a forbidden target", async () => {
    const asked = origin.requests.filter((r) => r.path === "/secret")
    expect(asked).toEqual([])
  })

  it("the trap never saw a connection", () => {
    expect(trap.connections()).toBe(0)
    expect(trap.requests).toEqual([])
  })
})
