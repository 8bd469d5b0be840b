import http from "node:http"

/**
 * Asks a process's health paths every 50 ms, each on a connection of its own, from before it
 * listens until it has exited, and keeps what each request met: refused (no TCP connection),
 * an answer (status, body, how long after sending), or a connection that ended without one.
 */

export interface HammerRequest {
  readonly port: number
  readonly path: string
  readonly sentAt: number
  /** A TCP connection was made. */
  connected: boolean
  answer?: { readonly status: number; readonly body: string; readonly at: number }
  /** The connection ended (or was given up) without an answer, and when. */
  failedAt?: number
  failure?: string
}

/**
 * Past this, a request that got a connection counts as hanging. The goal is an answer within
 * a second (about 250 ms at worst, measured alone); the bound is wider so that a loaded CI
 * machine's slow turn is not taken for a hang (outcomes here, never timings).
 */
export const ANSWER_WITHIN_MS = 5000

export const hammerHealth = (targets: ReadonlyArray<{ readonly port: number; readonly path: string }>, everyMs = 50) => {
  const requests: Array<HammerRequest> = []
  const pending = new Set<Promise<void>>()
  const ask = (port: number, path: string) => {
    const record: HammerRequest = { port, path, sentAt: Date.now(), connected: false }
    requests.push(record)
    const done = new Promise<void>((resolve) => {
      const req = http.get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("end", () => {
          record.answer = { status: res.statusCode ?? 0, body, at: Date.now() }
          resolve()
        })
        res.on("error", () => resolve())
      })
      req.on("socket", (socket) => socket.once("connect", () => (record.connected = true)))
      // well past the bound, so that a late answer is seen as late, not as none
      req.setTimeout(ANSWER_WITHIN_MS * 5, () => req.destroy(new Error("no answer")))
      req.on("error", (e) => {
        if (record.answer === undefined) {
          record.failedAt = Date.now()
          record.failure = e.message
        }
        resolve()
      })
    })
    pending.add(done)
    void done.then(() => pending.delete(done))
  }
  const timer = setInterval(() => {
    for (const { port, path } of targets) ask(port, path)
  }, everyMs)
  return {
    requests,
    /** Stops asking and waits for every request sent to settle. */
    stop: async () => {
      clearInterval(timer)
      await Promise.all([...pending])
      return requests
    }
  }
}

/** The body of an answer as JSON (the health paths answer JSON objects). */
export const answerJson = (r: HammerRequest): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(r.answer?.body ?? "null")
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${r.answer?.body}`)
  return Object.fromEntries(Object.entries(parsed))
}
