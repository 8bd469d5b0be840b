import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import net from "node:net"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createWorld, type TestWorld } from "../support/system.js"

/**
 * `npm start` is the one command (build, then node dist/services/main.js), and SIGTERM
 * or Ctrl-C to the npm process stops every service: npm passes the signal on to its
 * child, which is the service itself (`exec node …`), and the service stops cleanly.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
let world: TestWorld

beforeAll(async () => {
  world = await createWorld("npmstart")
})
afterAll(async () => {
  await world?.drop()
})

const childrenOf = (pid: number): Array<number> => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

describe("npm start", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s to the npm process stops every service: the node process exits and the port closes",
    async (signal) => {
      const npm = spawn("npm", ["start"], {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", ...world.env, SEED_DEMO: "false", HEALTH_PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
      const up = new Promise<void>((resolve, reject) => {
        const check = () => (/all services up/.test(output) ? resolve() : undefined)
        npm.stdout.on("data", (c: Buffer) => {
          output += c.toString("utf8")
          check()
        })
        npm.stderr.on("data", (c: Buffer) => {
          output += c.toString("utf8")
          check()
        })
        void exited.then(() => reject(new Error(`npm start ended before all services were up:\n${output}`)))
      })
      await up
      const port = Number(output.match(/gateway listening on port (\d+)/)?.[1])
      expect(await portAnswers(port)).toBe(true)
      const services = childrenOf(npm.pid ?? -1)
      expect(services.length).toBeGreaterThan(0)

      npm.kill(signal)
      await exited
      // the services' process is gone (npm waited for it) and nothing listens any more
      for (const pid of services) expect(isRunning(pid)).toBe(false)
      expect(await portAnswers(port)).toBe(false)
      expect(output).toMatch(/handed its shards over/)
    },
    // the first run compiles the whole service (tsc) before it starts: minutes on a loaded 2-core machine
    300_000
  )
})
