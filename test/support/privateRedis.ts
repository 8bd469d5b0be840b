import { type ChildProcess, spawn } from "node:child_process"
import { acceptsConnections } from "./ports.js"
import { freePort } from "./publishingProcesses.js"
import { waitFor } from "./wait.js"

/**
 * A private redis-server on a free port, without persistence (as the service runs it), which
 * a test may kill -9 and start again empty. The shared server (6379) is never touched.
 */
export const privateRedis = async () => {
  const port = await freePort()
  let child: ChildProcess | undefined
  const accepting = () => acceptsConnections(port)
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" })
    await waitFor("private redis-server not accepting connections", accepting, 20_000)
  }
  const kill = async () => {
    const running = child
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once("exit", resolve))
    running.kill("SIGKILL")
    await exited
  }
  await start()
  process.once("exit", () => child?.kill("SIGKILL"))
  return { url: `redis://127.0.0.1:${port}`, kill, start, stop: kill }
}
