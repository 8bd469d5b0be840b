import net from "node:net"

/**
 * One stable address in front of Postgres whose target can be moved, as an operator's
 * virtual IP, PgBouncer target or DNS name gives the services: a TCP proxy on a free port.
 * `switchTo` moves it and resets every connection it carries, as a virtual IP that moved
 * does (the host now behind it knows none of them); a connection made while the target
 * refuses is closed at once.
 */
export const switchableProxy = async (target: number) => {
  let port = target
  const pairs = new Set<{ readonly client: net.Socket; readonly upstream: net.Socket }>()
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port })
    const pair = { client, upstream }
    pairs.add(pair)
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  const ownPort = typeof address === "object" && address !== null ? address.port : 0
  const cut = () => {
    for (const { client, upstream } of [...pairs]) {
      // a reset, as the host now behind the address answers a connection it never had
      client.resetAndDestroy()
      upstream.destroy()
    }
    pairs.clear()
  }
  return {
    port: ownPort,
    url: `postgres://postgres@127.0.0.1:${ownPort}/postgres`,
    /** Connections from now on go to `next`; those open now are cut. */
    switchTo: (next: number) => {
      port = next
      cut()
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut()
        server.close(() => resolve())
      })
  }
}
