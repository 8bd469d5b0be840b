import http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { Duplex } from "node:stream"

/**
 * The network simulator's core: one loopback HTTP server that serves each simulated
 * network under its own path prefix (`/mastodon`, `/bluesky`, `/x`, `/linkedin`,
 * `/telegram`, `/discord`), records every post it takes, and can be told to fail.
 * Each network's module (./mastodon.ts …) speaks that network's documented endpoints.
 */

/** A request as a network module sees it: the path after the network's prefix. */
export interface SimRequest {
  readonly method: string
  /** Path after the network prefix, without the query, e.g. `/api/v1/statuses`. */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

export interface SimResponse {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: unknown // JSON-encoded unless a Buffer or string
}

/** One post (or reply, or message) a simulated network took. */
export interface SimPost {
  readonly network: string
  readonly id: string
  /** Address of the post as the network gives it. */
  readonly url: string
  /** The account (or chat/channel) it was posted as / in. */
  readonly account: string
  readonly text: string
  /** The id of the post this one replies to, if any. */
  readonly replyTo: string | null
  /** Media attached: the network's media ids, and the uploaded files' sizes and types. */
  readonly media: ReadonlyArray<{ readonly id: string; readonly mime: string; readonly size: number; readonly alt?: string }>
  /** The network's duplicate guard sent with it (Idempotency-Key, nonce …), if any. */
  readonly dedupeKey: string | null
  readonly at: Date
  /** Extra fields the network received (visibility, settings …). */
  readonly extra: Readonly<Record<string, unknown>>
}

/**
 * What an operation of a network can be told to do instead of answering normally.
 * `op` names a group of routes: `publish` (posting and replying), `media` (uploads),
 * `search`, `token` (code exchange and refresh), `account` (who am I, verify), `connect` (a
 * WebSocket upgrade: `hang`, `reset`, `rate-limit` 429, anything else 503), `*` all.
 */
export type FaultMode =
  | "hang" // never answer, take nothing
  | "reset" // close the connection before doing anything
  | "accept-then-hang" // take the post, never answer
  | "accept-then-reset" // take the post, close the connection
  | "accept-then-5xx" // take the post, answer 502
  | "5xx" // answer 503, take nothing
  | "reject" // the network's own 4xx error body (module's rejectBody)
  | "rate-limit" // 429 with Retry-After: retryAfterSeconds
  | "expired-token" // the network's own 401 for an expired token
  | "garbage" // 200 with bytes that are not JSON
  | "html" // 200 text/html page
  | "no-id" // 200 JSON without the post's id
  | "huge" // 200 with a 50 MB body
  | "redirect-private" // 307 to a private address
  | "unavailable" // search only: 503 / the network's "search is off"

export interface FaultRule {
  readonly network: string
  readonly op: string
  readonly mode: FaultMode
  /** How many matching requests it applies to (default: until cleared). */
  readonly times?: number
  readonly retryAfterSeconds?: number
  /** For `reject`: which status (default 400 or the network's usual one). */
  readonly status?: number
}

interface ActiveRule extends FaultRule {
  left: number
}

export interface NetworkModule {
  readonly network: string
  /** Answers a request under this network's prefix; `undefined` = 404. */
  readonly handle: (request: SimRequest, core: SimCore) => Promise<SimResponse | undefined> | SimResponse | undefined
  /** The op (`publish`, `media`, `search`, `token`, `account`) of a request, for fault rules. */
  readonly opOf: (request: SimRequest) => string
  /** The network's own error body for a rejected post (status and JSON). */
  readonly rejectBody: (status: number | undefined) => SimResponse
  /** The network's own answer to an expired or revoked token. */
  readonly expiredTokenBody: () => SimResponse
  /** The network's "search is off" answer (default 503). */
  readonly searchUnavailableBody?: () => SimResponse
  /** Makes an account (POST /_sim/accounts/<network>) and answers the admin CLI's `--credentials` JSON for it. */
  readonly seed?: (core: SimCore, input: Readonly<Record<string, unknown>>) => Promise<unknown> | unknown
  /** The service's environment that points this network's adapter at the simulator (`base` = its prefix's address). */
  readonly env?: (base: string) => Record<string, string>
  /**
   * Takes a WebSocket upgrade under this network's prefix (Nostr relays); the module owns the
   * socket from then on. A fault rule for op `connect` is applied by the core before it.
   */
  readonly upgrade?: (incoming: http.IncomingMessage, socket: Duplex, head: Buffer, link: SocketLink) => void
}

/** What a module that took a socket uses: the core, and `take(op)` for each message it gets. */
export interface SocketLink {
  readonly core: SimCore
  /** The path after the network's prefix, without the query (`/relay-a`). */
  readonly path: string
  /** Records a message of `op` (as a request of the network) and answers the fault rule that applies to it, if any. */
  readonly take: (op: string) => FaultRule | undefined
}

/** State and helpers a network module gets. */
export interface SimCore {
  readonly origin: string
  /** `origin + "/" + network`: the base address an adapter is pointed at. */
  readonly baseOf: (network: string) => string
  readonly posts: Array<SimPost>
  readonly record: (post: Omit<SimPost, "at" | "network"> & { readonly network: string }) => SimPost
  /** Posts of an account that a search may see (`visibleAfterMs` hides new ones for a while). */
  readonly visiblePosts: (network: string, account: string) => ReadonlyArray<SimPost>
  readonly newId: () => string
  /** Tokens each module issues and checks: value → account, with an expiry. */
  readonly tokens: Map<
    string,
    { readonly network: string; readonly account: string; readonly expiresAt: number | null; readonly kind: "access" | "refresh" }
  >
  readonly issueToken: (network: string, account: string, kind: "access" | "refresh", ttlMs: number | null) => string
  /** The account of a valid access token, or null (unknown or expired). */
  readonly accountOf: (network: string, token: string | undefined) => string | null
  /**
   * Fetches a file from the address a post gave (Instagram, Threads, Facebook, Pinterest …
   * pull media themselves): a real HTTP GET with a 10 s limit and no redirects followed,
   * as the network would; a failure says why, as the network's error would.
   */
  readonly fetchMedia: (url: string) => Promise<FetchedMedia>
  /** How long a container or an upload takes to process on the simulated networks (POST /_sim/processing {ms}); default 0. */
  readonly processingMs: () => number
  /** Serves `bytes` at `${origin}/_sim/files/<id>` (a public file host for tests): its address. */
  readonly hostFile: (bytes: Buffer, mime: string) => string
}

export type FetchedMedia = { readonly ok: true; readonly bytes: Buffer; readonly mime: string } | { readonly ok: false; readonly reason: string }

export interface Simulator extends SimCore {
  /** Every request any network received, in order. */
  readonly requests: Array<{ readonly network: string; readonly method: string; readonly path: string; readonly op: string; readonly at: Date }>
  readonly port: number
  readonly fail: (rule: FaultRule) => void
  readonly clearFaults: () => void
  /** Connections are refused (the listener is closed) for `ms`, then taken again. */
  readonly refuseConnections: (ms: number) => Promise<void>
  /** New posts stay invisible to search for `ms` after they arrive (0: at once). */
  readonly setSearchDelay: (ms: number) => void
  /** Containers and uploads take `ms` to process on every simulated network (0: at once). */
  readonly setProcessingDelay: (ms: number) => void
  readonly postsOf: (network: string) => ReadonlyArray<SimPost>
  readonly close: () => Promise<void>
}

const jsonResponse = (res: http.ServerResponse, answer: SimResponse) => {
  const isRaw = Buffer.isBuffer(answer.body) || typeof answer.body === "string"
  const headers = { ...(isRaw ? {} : { "content-type": "application/json" }), ...(answer.headers ?? {}) }
  res.writeHead(answer.status, headers)
  if (answer.body === undefined) return res.end()
  res.end(isRaw ? (answer.body as Buffer | string) : JSON.stringify(answer.body))
}

const HUGE_BYTES = 50 * 1024 * 1024

/** Starts the simulator on 127.0.0.1 (port 0: any free port) with the given network modules. */
export const startSimulatorCore = async (modules: ReadonlyArray<NetworkModule>, options: { readonly port?: number } = {}): Promise<Simulator> => {
  const byNetwork = new Map(modules.map((m) => [m.network, m]))
  const rules: Array<ActiveRule> = []
  const posts: Array<SimPost> = []
  const requests: Simulator["requests"] = []
  const sockets = new Set<Socket>()
  let searchDelayMs = 0
  let processingDelayMs = 0
  const hosted = new Map<string, { readonly bytes: Buffer; readonly mime: string }>()
  let counter = 0
  const newId = () => `${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}${Math.floor(Math.random() * 1e6).toString(36)}`

  const tokens: SimCore["tokens"] = new Map()
  const core: SimCore = {
    origin: "",
    baseOf: (network) => `${core.origin}/${network}`,
    posts,
    newId,
    record: (post) => {
      const saved: SimPost = { ...post, at: new Date() }
      posts.push(saved)
      return saved
    },
    visiblePosts: (network, account) =>
      posts.filter((p) => p.network === network && p.account === account && Date.now() - p.at.getTime() >= searchDelayMs),
    tokens,
    issueToken: (network, account, kind, ttlMs) => {
      const value = `${network}-${kind}-${newId()}${newId()}`
      tokens.set(value, { network, account, kind, expiresAt: ttlMs === null ? null : Date.now() + ttlMs })
      return value
    },
    accountOf: (network, token) => {
      if (token === undefined) return null
      const found = tokens.get(token)
      if (found === undefined || found.network !== network || found.kind !== "access") return null
      if (found.expiresAt !== null && found.expiresAt < Date.now()) return null
      return found.account
    },
    fetchMedia: async (url) => {
      try {
        const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(10_000) })
        if (res.status !== 200) return { ok: false, reason: `the media address answered HTTP ${res.status}` }
        return { ok: true, bytes: Buffer.from(await res.arrayBuffer()), mime: res.headers.get("content-type") ?? "application/octet-stream" }
      } catch (e) {
        return { ok: false, reason: `the media address could not be fetched (${e instanceof Error ? e.message : String(e)})` }
      }
    },
    processingMs: () => processingDelayMs,
    hostFile: (bytes, mime) => {
      const id = newId()
      hosted.set(id, { bytes, mime })
      return `${core.origin}/_sim/files/${id}`
    }
  }

  const takeRule = (network: string, op: string): ActiveRule | undefined => {
    const rule = rules.find((r) => r.network === network && (r.op === op || r.op === "*") && r.left > 0)
    if (rule !== undefined) rule.left--
    return rule
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const url = new URL(req.url ?? "/", "http://simulator")
    const file = /^\/_sim\/files\/([A-Za-z0-9]+)$/.exec(url.pathname)
    if (file !== null) {
      const found = hosted.get(file[1] ?? "")
      return jsonResponse(
        res,
        found === undefined ? { status: 404, body: "" } : { status: 200, headers: { "content-type": found.mime }, body: found.bytes }
      )
    }
    if (url.pathname.startsWith("/_sim/")) return jsonResponse(res, await control(req.method ?? "GET", url, body))
    const [, network = "", ...rest] = url.pathname.split("/")
    const module = byNetwork.get(network)
    if (module === undefined) return jsonResponse(res, { status: 404, body: { error: `no simulated network ${network}` } })
    const request: SimRequest = { method: req.method ?? "GET", path: `/${rest.join("/")}`, query: url.searchParams, headers: req.headers, body }
    const op = module.opOf(request)
    requests.push({ network, method: request.method, path: request.path, op, at: new Date() })
    const rule = takeRule(network, op)
    const answer = async () => (await module.handle(request, core)) ?? { status: 404, body: { error: "Not found" } }
    if (rule === undefined) return jsonResponse(res, await answer())
    switch (rule.mode) {
      case "hang":
        return // the socket stays open; close() ends it
      case "reset":
        return req.socket.destroy()
      case "accept-then-hang":
        await answer()
        return
      case "accept-then-reset":
        await answer()
        return req.socket.destroy()
      case "accept-then-5xx":
        await answer()
        return jsonResponse(res, { status: 502, headers: { "content-type": "text/html" }, body: "<html><body>502 Bad Gateway</body></html>" })
      case "5xx":
        return jsonResponse(res, { status: 503, body: { error: "Service Unavailable" } })
      case "reject":
        return jsonResponse(res, module.rejectBody(rule.status))
      case "rate-limit":
        return jsonResponse(res, {
          status: 429,
          headers: { "retry-after": String(rule.retryAfterSeconds ?? 2) },
          body: { error: "Too Many Requests" }
        })
      case "expired-token":
        return jsonResponse(res, module.expiredTokenBody())
      case "garbage":
        return jsonResponse(res, { status: 200, headers: { "content-type": "application/json" }, body: "\u0000\u0001{not json" })
      case "html":
        return jsonResponse(res, { status: 200, headers: { "content-type": "text/html" }, body: "<!doctype html><html><body>Welcome</body></html>" })
      case "no-id":
        return jsonResponse(res, { status: 200, body: {} })
      case "huge": {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(HUGE_BYTES) })
        const chunk = Buffer.alloc(1024 * 1024, 0x20)
        let sent = 0
        const pump = () => {
          while (sent < HUGE_BYTES) {
            sent += chunk.length
            if (!res.write(chunk)) return res.once("drain", pump)
          }
          res.end()
        }
        res.on("error", () => {})
        return pump()
      }
      case "redirect-private":
        return jsonResponse(res, { status: 307, headers: { location: "http://10.0.0.1/internal" }, body: "" })
      case "unavailable":
        return jsonResponse(res, module.searchUnavailableBody?.() ?? { status: 503, body: { error: "Search is unavailable" } })
    }
  }

  /**
   * The control API (`npm run simulate` prints it): what arrived, faults, accounts.
   * GET /_sim/posts[?network=], GET /_sim/requests, POST /_sim/faults (a FaultRule),
   * DELETE /_sim/faults, POST /_sim/search-delay {ms}, POST /_sim/refuse {ms},
   * POST /_sim/processing {ms} (how long containers and uploads take to process),
   * POST /_sim/accounts/<network> (the module's seed input) → the `--credentials` JSON.
   */
  const control = async (method: string, url: URL, body: Buffer): Promise<SimResponse> => {
    const input = (() => {
      try {
        return body.length === 0 ? {} : (JSON.parse(body.toString("utf8")) as unknown)
      } catch {
        return undefined
      }
    })()
    const object = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : undefined
    const route = `${method} ${url.pathname}`
    if (route === "GET /_sim/posts") {
      const network = url.searchParams.get("network")
      return { status: 200, body: network === null ? posts : posts.filter((p) => p.network === network) }
    }
    if (route === "GET /_sim/requests") return { status: 200, body: requests }
    if (route === "DELETE /_sim/faults") {
      rules.length = 0
      return { status: 204 }
    }
    if (route === "POST /_sim/faults" && object !== undefined && typeof object["network"] === "string" && typeof object["mode"] === "string") {
      rules.unshift({
        ...(object as unknown as FaultRule),
        op: typeof object["op"] === "string" ? object["op"] : "publish",
        left: typeof object["times"] === "number" ? object["times"] : Number.POSITIVE_INFINITY
      })
      return { status: 201, body: { ok: true } }
    }
    if (route === "POST /_sim/search-delay" && typeof object?.["ms"] === "number") {
      searchDelayMs = object["ms"]
      return { status: 200, body: { ok: true } }
    }
    if (route === "POST /_sim/processing" && typeof object?.["ms"] === "number") {
      processingDelayMs = object["ms"]
      return { status: 200, body: { ok: true } }
    }
    if (route === "POST /_sim/refuse" && typeof object?.["ms"] === "number") {
      void refuse(object["ms"])
      return { status: 200, body: { ok: true } }
    }
    const seedMatch = /^POST \/_sim\/accounts\/([a-z-]+)$/.exec(route)
    const module = seedMatch?.[1] === undefined ? undefined : byNetwork.get(seedMatch[1])
    if (module?.seed !== undefined) return { status: 201, body: await module.seed(core, object ?? {}) }
    return { status: 404, body: { error: "unknown control route" } }
  }

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks)).catch((e: unknown) => {
        if (!res.headersSent) jsonResponse(res, { status: 500, body: { error: String(e) } })
      })
    })
  })
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://simulator")
    const [, network = "", ...rest] = url.pathname.split("/")
    const module = byNetwork.get(network)
    const path = `/${rest.join("/")}`
    const take = (op: string) => {
      requests.push({ network, method: req.method ?? "GET", path, op, at: new Date() })
      return takeRule(network, op)
    }
    socket.on("error", () => {})
    if (module?.upgrade === undefined) return socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
    const rule = take("connect")
    if (rule?.mode === "hang") return
    if (rule !== undefined) {
      if (rule.mode === "reset") return socket.destroy()
      const status = rule.mode === "rate-limit" ? "429 Too Many Requests" : "503 Service Unavailable"
      const retry = rule.mode === "rate-limit" ? `retry-after: ${rule.retryAfterSeconds ?? 2}\r\n` : ""
      return socket.end(`HTTP/1.1 ${status}\r\n${retry}connection: close\r\ncontent-length: 0\r\n\r\n`)
    }
    module.upgrade(req, socket, head, { core, path, take })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as AddressInfo).port)
      })
    })
  const port = await listen(options.port ?? 0)
  Object.assign(core, { origin: `http://127.0.0.1:${port}` })

  const closeListener = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
  const refuse = async (ms: number) => {
    await closeListener()
    setTimeout(() => void listen(port).catch(() => {}), ms)
  }
  return Object.assign(core, {
    requests,
    port,
    fail: (rule: FaultRule) => {
      rules.unshift({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY })
    },
    clearFaults: () => {
      rules.length = 0
    },
    refuseConnections: refuse,
    setSearchDelay: (ms: number) => {
      searchDelayMs = ms
    },
    setProcessingDelay: (ms: number) => {
      processingDelayMs = ms
    },
    postsOf: (network: string) => posts.filter((p) => p.network === network),
    close: async () => {
      for (const s of sockets) s.destroy()
      if (server.listening) await closeListener()
    }
  })
}

/** Parses a multipart/form-data body: fields and files (enough for the networks' uploads). */
export const parseMultipart = (
  headers: http.IncomingHttpHeaders,
  body: Buffer
): {
  readonly fields: Record<string, string>
  readonly files: Array<{ readonly field: string; readonly filename: string; readonly mime: string; readonly bytes: Buffer }>
} => {
  const type = headers["content-type"] ?? ""
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1]
  const fields: Record<string, string> = {}
  const files: Array<{ field: string; filename: string; mime: string; bytes: Buffer }> = []
  if (boundary === undefined) return { fields, files }
  const delimiter = Buffer.from(`--${boundary}`)
  let start = body.indexOf(delimiter)
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length)
    if (next === -1) break
    const part = body.subarray(start + delimiter.length + 2, next - 2) // skip CRLF after delimiter, before next
    const headerEnd = part.indexOf("\r\n\r\n")
    if (headerEnd !== -1) {
      const head = part.subarray(0, headerEnd).toString("utf8")
      const content = part.subarray(headerEnd + 4)
      const name = /name="([^"]*)"/.exec(head)?.[1] ?? ""
      const filename = /filename="([^"]*)"/.exec(head)?.[1]
      const mime = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? "application/octet-stream"
      if (filename !== undefined) files.push({ field: name, filename, mime, bytes: Buffer.from(content) })
      else fields[name] = content.toString("utf8")
    }
    start = next
  }
  return { fields, files }
}

/** The bearer token of a request, if any. */
export const bearerOf = (request: SimRequest): string | undefined => {
  const header = request.headers["authorization"]
  const match = typeof header === "string" ? /^Bearer\s+(.+)$/i.exec(header) : null
  return match?.[1]
}

/** A JSON body, or undefined when it is not JSON. */
export const jsonBody = (request: SimRequest): unknown => {
  try {
    return JSON.parse(request.body.toString("utf8"))
  } catch {
    return undefined
  }
}

/** An application/x-www-form-urlencoded body. */
export const formBody = (request: SimRequest): URLSearchParams => new URLSearchParams(request.body.toString("utf8"))

/** A network module's own state for one simulator (modules keep it in WeakMaps keyed by the core). */
export const stateOf = <K, V>(map: WeakMap<SimCore, Map<K, V>>, core: SimCore): Map<K, V> => {
  let found = map.get(core)
  if (found === undefined) {
    found = new Map()
    map.set(core, found)
  }
  return found
}
