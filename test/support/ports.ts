import net from "node:net"

/** A port nothing listens on: bound once by the system, then closed again. */
export const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Whether something accepts TCP connections on 127.0.0.1:`port` (true), else undefined: a waitFor probe. */
export const acceptsConnections = (port: number) =>
  new Promise<true | undefined>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => {
      socket.destroy()
      resolve(undefined)
    })
  })
