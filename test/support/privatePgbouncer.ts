import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { acceptsConnections } from "./ports.js"
import { killAndWait } from "./processes.js"
import { freePort } from "./publishingProcesses.js"
import { waitFor } from "./wait.js"

/** Debian's pgbouncer package (`apt-get install pgbouncer`; .ci/run installs it when missing). */
const PGBOUNCER = "/usr/sbin/pgbouncer"

/**
 * A private PgBouncer on a free port in front of the Postgres at `target` (host:port), in
 * session mode (docs/operations.md, "PgBouncer"), which a test may restart: every client
 * connection is cut, as a PgBouncer upgrade or a failover of the bouncer itself would.
 * Run as the `postgres` user: PgBouncer refuses to run as root.
 */
export const privatePgbouncer = async (target: { readonly host: string; readonly port: number }) => {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer`)
  const port = await freePort()
  const dir = mkdtempSync(path.join(os.tmpdir(), "pgbouncer-"))
  chmodSync(dir, 0o777)
  const ini = path.join(dir, "pgbouncer.ini")
  writeFileSync(path.join(dir, "users.txt"), '"postgres" ""\n')
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${target.host} port=${target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = session",
      "max_client_conn = 1000",
      "default_pool_size = 200",
      // parameters node-postgres may send at start that PgBouncer does not track
      "ignore_startup_parameters = extra_float_digits,options,statement_timeout,idle_in_transaction_session_timeout",
      `logfile = ${path.join(dir, "pgbouncer.log")}`
    ].join("\n") + "\n"
  )
  let child: ChildProcess | undefined
  const accepts = () => acceptsConnections(port)
  const start = async () => {
    child = spawn(PGBOUNCER, ["-u", "postgres", ini], { stdio: "ignore" })
    await waitFor(`pgbouncer on ${port} not accepting connections`, accepts, 20_000)
  }
  const kill = () => killAndWait(child)
  await start()
  process.once("exit", () => child?.kill("SIGKILL"))
  return {
    /** A postgres:// URL of the bouncer, for `database` (the same name on the target). */
    url: (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    /** kill -9 and start again on the same port: every client connection is cut at once. */
    restart: async () => {
      await kill()
      await start()
    },
    stop: async () => {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
