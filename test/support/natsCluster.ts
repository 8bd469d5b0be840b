import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { freePort } from "./publishingProcesses.js"
import { waitFor } from "./wait.js"

/**
 * A private 3-node NATS cluster with JetStream on free ports, its stores in a temp
 * directory of its own (what deploy/nats-cluster.sh starts, for a test that kills a node;
 * the shared server on 4222 is never touched). Nodes are named n1, n2, n3.
 */
export const privateNatsCluster = async () => {
  const clientPorts = [await freePort(), await freePort(), await freePort()]
  const clusterPorts = [await freePort(), await freePort(), await freePort()]
  const monitorPorts = [await freePort(), await freePort(), await freePort()]
  const storeDir = mkdtempSync(path.join(os.tmpdir(), "nats-cluster-faults-"))
  const routes = clusterPorts.map((p) => `nats://127.0.0.1:${p}`).join(",")
  const children: Array<ChildProcess> = clientPorts.map((port, i) =>
    spawn(
      "nats-server",
      [
        ...["-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPorts[i]), "-n", `n${i + 1}`, "-js", "-sd", path.join(storeDir, `n${i + 1}`)],
        ...["--cluster_name", "faults", "--cluster", `nats://127.0.0.1:${clusterPorts[i]}`, "--routes", routes]
      ],
      { stdio: "ignore" }
    )
  )
  process.once("exit", () => children.forEach((c) => c.kill("SIGKILL")))
  const accepts = (port: number) =>
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
  for (const port of clientPorts) await waitFor(`cluster node on ${port} not accepting connections`, () => accepts(port), 20_000)
  const kill = async (child: ChildProcess | undefined) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGKILL")
    await exited
  }
  return {
    url: clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(","),
    /** The node (n1, n2 or n3) a client named `name` is connected to, from the nodes' /connz. */
    nodeOf: async (name: string) => {
      for (const [i, port] of monitorPorts.entries()) {
        const connz = await fetch(`http://127.0.0.1:${port}/connz?limit=1024`).then((r) => r.text())
        if (connz.includes(`"name": "${name}"`) || connz.includes(`"name":"${name}"`)) return `n${i + 1}`
      }
      return undefined
    },
    /** SIGSTOP of the node for `ms`, then SIGCONT: a frozen VM or a long pause. */
    pauseNode: async (name: string, ms: number) => {
      const child = children[Number(name.slice(1)) - 1]
      child?.kill("SIGSTOP")
      await new Promise((resolve) => setTimeout(resolve, ms))
      child?.kill("SIGCONT")
    },
    /** kill -9 of the node named `name` (n1, n2 or n3). */
    killNode: (name: string) => kill(children[Number(name.slice(1)) - 1]),
    stop: async () => {
      await Promise.all(children.map(kill))
      rmSync(storeDir, { recursive: true, force: true })
    }
  }
}
