import net from "node:net"

/** Where the tests find Postgres, NATS and Redis: the env, else localhost. */
export interface ServerUrls {
  readonly databaseUrl: string
  readonly natsUrl: string
  readonly redisUrl: string
}

export const urlsFromEnv = (): ServerUrls => ({
  databaseUrl: process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres",
  natsUrl: process.env["NATS_URL"] ?? "nats://127.0.0.1:4222",
  redisUrl: process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"
})

/** Whether something accepts TCP connections at the URL's host and port. */
export const reachable = (url: string, defaultPort: number, timeoutMs = 1500): Promise<boolean> =>
  new Promise((resolve) => {
    const u = new URL(url)
    const socket = net.connect({ host: u.hostname, port: Number(u.port || defaultPort) })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
