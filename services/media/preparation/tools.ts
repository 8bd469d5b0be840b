import { spawn } from "node:child_process"
import ffmpeg from "@ffmpeg-installer/ffmpeg"
import ffprobe from "@ffprobe-installer/ffprobe"
import { Data, Effect } from "effect"

/** The FFmpeg binary of @ffmpeg-installer/ffmpeg (a 2018 static build; docs/media-preparation.md). */
export const ffmpegPath: string = ffmpeg.path
/** The FFprobe binary of @ffprobe-installer/ffprobe (a 2023 static build). */
export const ffprobePath: string = ffprobe.path

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
 * Interrupting the effect (a pool's time limit, a shutdown) kills it too and waits for its
 * exit, so a transcode never outlives the fiber that wanted it, nor writes after it.
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
    // answered once the process is gone, so nothing it writes outlives the answer
    let killed = false
    const killThen = (then: () => void) => {
      if (child.exitCode !== null || child.signalCode !== null) return then()
      child.once("exit", then)
      if (!killed) child.kill("SIGKILL")
      killed = true
    }
    const timer = setTimeout(() => killThen(() => fail("timeout", null)), options.timeoutMs)
    child.stdout.on("data", (chunk: Buffer) => {
      if (killed) return
      stdoutBytes += chunk.length
      if (stdoutBytes > maxStdout) {
        killThen(() => fail("output", null))
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
    // interrupted: the interruption completes once the process has exited
    return Effect.async<void>((exited) => {
      settled = true
      clearTimeout(timer)
      killThen(() => exited(Effect.void))
    })
  })
