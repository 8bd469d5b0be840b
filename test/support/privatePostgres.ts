import { execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
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

const asRoot = () => process.getuid?.() === 0

/** Runs a Postgres tool; Postgres refuses to run as root, so as root it runs as `postgres` through runuser. */
const pgCommand = (tool: string, args: ReadonlyArray<string>) => {
  const bin = postgresBin()
  return asRoot() ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), [...args])
}

/** A temp directory for a cluster, owned by `postgres` when running as root. */
const clusterDirectory = async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pg-faults-"))
  if (asRoot()) {
    const { stdout } = await run("id", ["-u", "postgres"])
    const { stdout: gid } = await run("id", ["-g", "postgres"])
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()))
    chmodSync(dir, 0o700)
  }
  return dir
}

/** A cluster whose files are in `dir`/data, served on `port`, with what a fault test does to it. */
const cluster = async (dir: string, port: number) => {
  const data = path.join(dir, "data")
  const log = path.join(dir, "log")
  const options = (extra: ReadonlyArray<string>) =>
    [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, ...extra.map((s) => `-c ${s}`)].join(" ")
  /** Starts the cluster; `settings` are extra `name=value` server settings for this start only. */
  const start = (settings: ReadonlyArray<string> = []) =>
    pgCommand("pg_ctl", ["-D", data, "-o", options(settings), "-l", log, "-w", "-t", "60", "start"])
  /** A fast stop: sessions are ended (57P01), transactions in flight roll back, new connections are refused. */
  const stop = () => pgCommand("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
  process.once("exit", () => {
    // a test run that ends early must not leave the cluster running (synchronous: the process is exiting)
    const stopArgs = ["-D", data, "-m", "immediate", "stop"]
    const pgCtl = path.join(postgresBin(), "pg_ctl")
    try {
      if (asRoot()) execFileSync("runuser", ["-u", "postgres", "--", pgCtl, ...stopArgs], { stdio: "ignore" })
      else execFileSync(pgCtl, stopArgs, { stdio: "ignore" })
    } catch {
      // already stopped
    }
  })
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    /** What the server logged so far (its errors name the statements they refused). */
    log: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    /** Ends recovery of a standby (pg_ctl promote, waiting until it takes writes): it is a primary from then on. */
    promote: () => pgCommand("pg_ctl", ["-D", data, "-w", "-t", "60", "promote"]),
    /** Stops the cluster and removes its files. */
    remove: async () => {
      await stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export type PrivateCluster = Awaited<ReturnType<typeof cluster>>

/**
 * A private Postgres cluster (initdb in a temp directory, trust authentication, a free
 * port), which a fault test may stop and start again; the shared server on 5432 is never
 * touched. initdb's defaults already allow a streaming standby (wal_level replica,
 * max_wal_senders 10, and with `-A trust` pg_hba.conf trusts replication connections from
 * 127.0.0.1), so `standbyOf` needs nothing more of it.
 */
export const privatePostgres = async () => {
  const dir = await clusterDirectory()
  await pgCommand("initdb", ["-D", path.join(dir, "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
  const pg = await cluster(dir, await freePort())
  await pg.start()
  return pg
}

/**
 * A hot standby of `primary` on its own port: a base backup (pg_basebackup -R, which
 * writes standby.signal and primary_conninfo) streaming from it. It answers reads and
 * refuses writes (25006) until `promote`.
 */
export const standbyOf = async (primary: PrivateCluster) => {
  const dir = await clusterDirectory()
  const source = ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"]
  // a fast checkpoint: the default spreads it over minutes
  await pgCommand("pg_basebackup", ["-R", "-D", path.join(dir, "data"), ...source, "--checkpoint=fast", "--no-sync"])
  const standby = await cluster(dir, await freePort())
  await standby.start()
  return standby
}
