import { execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

/** The newest Postgres installed under /usr/lib/postgresql (initdb, pg_ctl). */
const postgresBin = () => {
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined) throw new Error("No Postgres binaries under /usr/lib/postgresql/*/bin")
  return path.join(root, versions[0], "bin")
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * A private Postgres cluster (initdb in a temp directory, trust authentication, a free
 * port), which a fault test may stop and start again; the shared server on 5432 is never
 * touched. Postgres refuses to run as root, so as root the cluster belongs to the
 * `postgres` user and its commands run through runuser.
 */
export const privatePostgres = async () => {
  const bin = postgresBin()
  const port = await freePort()
  const dir = mkdtempSync(path.join(os.tmpdir(), "pg-faults-"))
  const data = path.join(dir, "data")
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"])
    const { stdout: gid } = await run("id", ["-g", "postgres"])
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()))
    chmodSync(dir, 0o700)
  }
  const pgCommand = (tool: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), [...args])
  await pgCommand("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
  const start = () => pgCommand("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "60", "start"])
  /** A fast stop: sessions are ended (57P01), transactions in flight roll back, new connections are refused. */
  const stop = () => pgCommand("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
  await start()
  process.once("exit", () => {
    // a test run that ends early must not leave the cluster running (synchronous: the process is exiting)
    const stopArgs = ["-D", data, "-m", "immediate", "stop"]
    try {
      if (asRoot) execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, "pg_ctl"), ...stopArgs], { stdio: "ignore" })
      else execFileSync(path.join(bin, "pg_ctl"), stopArgs, { stdio: "ignore" })
    } catch {
      // already stopped
    }
  })
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    /** Stops the cluster and removes its files. */
    remove: async () => {
      await stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
