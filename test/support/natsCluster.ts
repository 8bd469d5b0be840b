import { type ChildProcess, spawn } from "node:child_process"
import { connect, Empty } from "nats"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { acceptsConnections } from "./ports.js"
import { killAndWait } from "./processes.js"
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
  const startNode = (port: number, i: number): ChildProcess =>
    spawn(
      "nats-server",
      [
        ...["-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPorts[i]), "-n", `n${i + 1}`, "-js", "-sd", path.join(storeDir, `n${i + 1}`)],
        ...["--cluster_name", "faults", "--cluster", `nats://127.0.0.1:${clusterPorts[i]}`, "--routes", routes]
      ],
      { stdio: "ignore" }
    )
  const children: Array<ChildProcess> = clientPorts.map(startNode)
  process.once("exit", () => children.forEach((c) => c.kill("SIGKILL")))
  const accepts = acceptsConnections
  for (const port of clientPorts) await waitFor(`cluster node on ${port} not accepting connections`, () => accepts(port), 20_000)
  const kill = killAndWait
  const url = clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(",")
  /** The node (n1, n2 or n3) leading the stream's copies, undefined during an election. */
  const leaderOf = async (stream: string) => {
    const nc = await connect({ servers: url.split(",") })
    try {
      const info = await (await nc.jetstreamManager()).streams.info(stream).catch(() => undefined)
      return info?.cluster?.leader
    } finally {
      await nc.close()
    }
  }
  return {
    url,
    leaderOf,
    /**
     * Asks the stream's leader to step down until the node named `to` leads it (a 2.9 server
     * picks the next leader itself: a few tries). The leader it ends with.
     */
    moveLeader: async (stream: string, to: string) => {
      for (let tries = 0; tries < 12; tries++) {
        const before = await waitFor(`no leader of ${stream}`, () => leaderOf(stream), 20_000)
        if (before === to) return before
        const nc = await connect({ servers: url.split(",") })
        await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, Empty, { timeout: 5_000 }).finally(() => nc.close())
        await waitFor(`${stream} without a new leader`, async () => ((await leaderOf(stream)) ?? before) !== before || undefined, 20_000)
      }
      return leaderOf(stream)
    },
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
    /**
     * Starts the node named `name` again (killed first if it runs) with the same ports and
     * store, and waits until its /healthz says its JetStream copies have caught up: the
     * cluster has three nodes again, so a later test may kill one.
     */
    restartNode: async (name: string) => {
      const i = Number(name.slice(1)) - 1
      await kill(children[i])
      children[i] = startNode(clientPorts[i] ?? 0, i)
      await waitFor(`cluster node ${name} not accepting connections`, () => accepts(clientPorts[i] ?? 0), 20_000)
      await waitFor(
        `cluster node ${name} not healthy`,
        () =>
          fetch(`http://127.0.0.1:${monitorPorts[i]}/healthz`)
            .then((r) => (r.ok ? true : undefined))
            .catch(() => undefined),
        60_000
      )
    },
    stop: async () => {
      await Promise.all(children.map(kill))
      rmSync(storeDir, { recursive: true, force: true })
    }
  }
}
