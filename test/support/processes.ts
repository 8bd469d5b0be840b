import { spawn, type ChildProcess } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"
import type { TestWorld } from "./system.js"

/**
 * Services as separate processes, for fault tests: start one against a test world,
 * wait until it says it started, kill it (SIGKILL: a crash; SIGTERM: a graceful
 * stop), and make sure none outlives the test file.
 *
 * The process is `node --import tsx services/main.ts <services…>`, i.e. what
 * `tsx services/main.ts` runs, but as ONE process: the `tsx` command is a wrapper that
 * runs the program in a child process, so SIGKILL of the wrapper would leave the real
 * service running (and holding its shards) as an orphan.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

export interface ProcessExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ServiceProcess {
  readonly label: string
  readonly pid: number
  /** The first capture group of the started line, e.g. the actor host's id. */
  readonly id: string
  /** Everything the process wrote so far (stdout and stderr). */
  readonly output: () => string
  readonly running: () => boolean
  /** Settles when the process has exited. */
  readonly exited: Promise<ProcessExit>
  /** Waits (up to `timeoutMs`) for a line matching `pattern` written after `since` characters of output. */
  readonly waitForOutput: (pattern: RegExp, timeoutMs?: number, since?: number) => Promise<RegExpMatchArray>
  /** Sends the signal and waits for the exit (SIGKILL after `timeoutMs` if it does not go). */
  readonly kill: (signal?: "SIGKILL" | "SIGTERM", timeoutMs?: number) => Promise<ProcessExit>
}

/** What each service writes once it is up; the first group (if any) becomes `id`. */
const startedLines: Record<string, RegExp> = {
  actors: /actor host ([0-9a-f-]{36}) started/,
  gateway: /gateway listening on (port \d+)/
}

const alive = new Set<ChildProcess>()
// last resort: a test run that dies must not leave services behind
process.once("exit", () => {
  for (const child of alive) child.kill("SIGKILL")
})

/** The world's environment (without the test runner's own), plus `env`, minus `unset`. */
const serviceEnv = (world: TestWorld, env: Record<string, string> = {}, unset: ReadonlyArray<string> = []) => {
  const all: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: process.env["HOME"] ?? "/tmp",
    ...world.env,
    ...env
  }
  for (const name of unset) delete all[name]
  return all
}

/** SIGKILLs a helper server (NATS, Redis, PgBouncer) and waits for its exit; nothing when it is not running. */
export const killAndWait = async (child: ChildProcess | undefined) => {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await exited
}

export interface FinishedProcess extends ProcessExit {
  /** Everything it wrote (stdout and stderr). */
  readonly output: string
}

/**
 * A service process expected to stop by itself, e.g. a start that is refused: runs it
 * to its end (SIGKILL after `timeoutMs`) and gives its exit and everything it wrote.
 * `unset` removes variables of the world's environment (e.g. SECRET_KEY).
 */
export const runToExit = (
  world: TestWorld,
  services: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly unset?: ReadonlyArray<string>; readonly timeoutMs?: number } = {}
): Promise<FinishedProcess> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "services/main.ts", ...services], {
      cwd: root,
      env: serviceEnv(world, options.env, options.unset),
      stdio: ["ignore", "pipe", "pipe"]
    })
    alive.add(child)
    let output = ""
    const append = (chunk: Buffer) => (output += chunk.toString("utf8"))
    child.stdout?.on("data", append)
    child.stderr?.on("data", append)
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000)
    // "close", not "exit": only then has everything it wrote arrived
    child.once("close", (code, signal) => {
      clearTimeout(timer)
      alive.delete(child)
      resolve({ code, signal, output })
    })
  })

export interface StartOptions {
  /** Environment on top of the world's (e.g. a different PORT). */
  readonly env?: Record<string, string>
  /** A line that says the process is ready; defaults to the first service's started line. */
  readonly ready?: RegExp
  readonly timeoutMs?: number
  readonly label?: string
  /** Another program than services/main.ts (relative to the repository), e.g. a test consumer. */
  readonly script?: string
  /** Node's arguments instead of `--import tsx <script> <services…>`, e.g. the built `dist/services/main.js`. */
  readonly nodeArgs?: ReadonlyArray<string>
  /** Options for node itself, before the program (e.g. --cpu-prof). */
  readonly nodeOptions?: ReadonlyArray<string>
}

/**
 * A group of service processes: `stopAll` (SIGKILL whatever still runs) belongs in
 * the test file's afterAll, and runs by itself when the test process exits.
 */
export const processGroup = () => {
  const members = new Set<ServiceProcess>()

  const start = async (world: TestWorld, services: ReadonlyArray<string>, options: StartOptions = {}): Promise<ServiceProcess> => {
    const label = options.label ?? services.join("+")
    const ready = options.ready ?? startedLines[services[0] ?? ""] ?? /starting/
    const args = options.nodeArgs ?? ["--import", "tsx", options.script ?? "services/main.ts", ...services]
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), ...args], {
      cwd: root,
      env: serviceEnv(world, options.env),
      stdio: ["ignore", "pipe", "pipe"]
    })
    alive.add(child)
    let output = ""
    const listeners = new Set<() => void>()
    const append = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.length > 1_000_000) output = output.slice(-500_000)
      for (const l of listeners) l()
    }
    child.stdout?.on("data", append)
    child.stderr?.on("data", append)
    let exitInfo: ProcessExit | undefined
    const exited = new Promise<ProcessExit>((resolve) => {
      child.once("exit", (code, signal) => {
        exitInfo = { code, signal }
        alive.delete(child)
        for (const l of listeners) l()
        resolve(exitInfo)
      })
    })

    const waitForOutput = (pattern: RegExp, timeoutMs = 30_000, since = 0) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const match = output.slice(since).match(pattern)
          if (match !== null) return done(() => resolve(match))
          if (exitInfo !== undefined) {
            return done(() => reject(new Error(`${label} exited (${exitInfo?.code ?? exitInfo?.signal}) before writing ${pattern}:\n${output}`)))
          }
        }
        const timer = setTimeout(
          () => done(() => reject(new Error(`${label} did not write ${pattern} within ${timeoutMs} ms:\n${output}`))),
          timeoutMs
        )
        const done = (settle: () => void) => {
          clearTimeout(timer)
          listeners.delete(check)
          settle()
        }
        listeners.add(check)
        check()
      })

    const kill = async (signal: "SIGKILL" | "SIGTERM" = "SIGKILL", timeoutMs = 20_000) => {
      if (exitInfo !== undefined) return exitInfo
      child.kill(signal)
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
      const result = await exited
      clearTimeout(timer)
      return result
    }

    const service: ServiceProcess = {
      label,
      pid: child.pid ?? -1,
      id: "",
      output: () => output,
      running: () => exitInfo === undefined,
      exited,
      waitForOutput,
      kill
    }
    members.add(service)
    try {
      // a loaded CI machine compiling TypeScript for two test files at once can take
      // well over 30 s to bring every service up; readiness is not what these tests time
      const match = await waitForOutput(ready, options.timeoutMs ?? 60_000)
      return { ...service, id: match[1] ?? "" }
    } catch (e) {
      await kill("SIGKILL")
      throw e
    }
  }

  const stopAll = async () => {
    await Promise.all([...members].map((m) => m.kill("SIGKILL")))
    members.clear()
  }

  return { start, stopAll }
}

export type ProcessGroup = ReturnType<typeof processGroup>
