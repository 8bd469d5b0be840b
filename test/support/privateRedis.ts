import { type ChildProcess, spawn } from "node:child_process"
import { acceptsConnections } from "./ports.js"
import { killAndWait } from "./processes.js"
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
  const kill = () => killAndWait(child)
  await start()
  process.once("exit", () => child?.kill("SIGKILL"))
  return { url: `redis://127.0.0.1:${port}`, kill, start, stop: kill }
}
