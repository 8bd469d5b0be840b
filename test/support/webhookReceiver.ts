import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { verify } from "@octokit/webhooks-methods"
import { Webhook } from "standardwebhooks"

/** One request a receiver got. */
export interface Received {
  readonly path: string
  readonly method: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** When it arrived (ms since epoch). */
  readonly at: number
}

/** What a path answers: a status (with headers), or no answer at all. */
export type Answer = { readonly status: number; readonly headers?: Record<string, string> } | "hang"

/**
 * A webhook receiver on loopback (reached through OUTBOUND_ALLOW): records every request
 * and answers per path (default 200); `verifies` checks a request as a receiver would,
 * with @octokit/webhooks-methods and standardwebhooks.
 */
export const startReceiver = async () => {
  const received: Array<Received> = []
  const answers = new Map<string, (count: number) => Answer>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/"
      received.push({ path, method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() })
      const count = received.filter((r) => r.path === path).length
      const answer = answers.get(path)?.(count) ?? { status: 200 }
      if (answer === "hang") return
      res.writeHead(answer.status, answer.headers).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    origin: `127.0.0.1:${port}`,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    answer: (path: string, answer: (count: number) => Answer) => answers.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Both verifiers of a receiver, with the secret it knows: true when both accept the request. */
export const verifies = async (secret: string, r: Received): Promise<boolean> => {
  const signature = r.headers["x-service-signature"]
  if (typeof signature !== "string" || !(await verify(secret, r.body, signature))) return false
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}
