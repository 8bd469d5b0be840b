import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { Data, Effect } from "effect"

const require = createRequire(import.meta.url)

/** The FFmpeg binary of @ffmpeg-installer/ffmpeg (a 2018 static build; docs/media-preparation.md). */
export const ffmpegPath: string = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path
/** The FFprobe binary of @ffprobe-installer/ffprobe (a 2023 static build). */
export const ffprobePath: string = (require("@ffprobe-installer/ffprobe") as { path: string }).path

/** A tool run ended badly: it could not start, exited non-zero, or ran past its time. */
export class ToolFailed extends Data.TaggedError("ToolFailed")<{
  readonly tool: string
  readonly reason: "spawn" | "exit" | "timeout" | "output"
  readonly exitCode: number | null
  /** The end of what it wrote to stderr (FFmpeg says why there). */
  readonly stderr: string
}> {}

export interface ToolRun {
  readonly stdout: Buffer
  readonly stderr: string
}

const STDERR_TAIL = 4_000

/**
 * Runs `binary args…` with an empty environment (no proxy variables, no inherited
 * secrets), no stdin, and a time limit after which the process is killed (SIGKILL).
 * Interrupting the effect (a pool's time limit, a shutdown) kills it too, so a transcode
 * never outlives the fiber that wanted it.
 */
export const runTool = (
  binary: string,
  args: ReadonlyArray<string>,
  options: { readonly timeoutMs: number; readonly maxStdoutBytes?: number }
): Effect.Effect<ToolRun, ToolFailed> =>
  Effect.async<ToolRun, ToolFailed>((resume) => {
    const tool = binary.split("/").pop() ?? binary
    const maxStdout = options.maxStdoutBytes ?? 16 * 1024 * 1024
    const child = spawn(binary, args, { env: {}, stdio: ["ignore", "pipe", "pipe"], windowsHide: true })
    const stdout: Array<Buffer> = []
    let stdoutBytes = 0
    let stderr = ""
    let settled = false
    const finish = (result: Effect.Effect<ToolRun, ToolFailed>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(result)
    }
    const fail = (reason: ToolFailed["reason"], exitCode: number | null) =>
      finish(Effect.fail(new ToolFailed({ tool, reason, exitCode, stderr: stderr.slice(-STDERR_TAIL) })))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      fail("timeout", null)
    }, options.timeoutMs)
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length
      if (stdoutBytes > maxStdout) {
        child.kill("SIGKILL")
        fail("output", null)
        return
      }
      stdout.push(chunk)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)
    })
    child.on("error", () => fail("spawn", null))
    child.on("close", (code) => {
      if (code === 0) finish(Effect.succeed({ stdout: Buffer.concat(stdout), stderr }))
      else fail("exit", code)
    })
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      child.kill("SIGKILL")
    })
  })
