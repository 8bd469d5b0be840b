import { readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import http from "node:http"
import path from "node:path"
import { realMp4Around } from "../../support/realMedia.js"

const MB = 1024 * 1024

/** A process's resident memory, from /proc (Linux). */
export const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024

/**
 * POST /public/v1/upload of a real MP4 padded to `size` bytes, streamed as multipart: the
 * client never holds more than one 1 MB chunk, so what grows is the gateway's memory only.
 */
export const uploadStreaming = (port: number, apiKey: string, size: number) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const boundary = `----bench${Math.random().toString(16).slice(2)}`
    const { head, tail } = realMp4Around(0)
    const mdatBytes = size - head.length - tail.length
    const file = realMp4Around(mdatBytes)
    const preamble = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.mp4"\r\nContent-Type: video/mp4\r\n\r\n`
    )
    const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`)
    const length = preamble.length + file.head.length + mdatBytes + file.tail.length + epilogue.length
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/public/v1/upload",
      headers: { authorization: apiKey, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": length }
    })
    request.on("response", (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
    })
    request.on("error", reject)
    const chunk = Buffer.alloc(MB, 0x5a)
    let left = mdatBytes
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length)
        left -= n
        if (!request.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void request.once("drain", pump)
      }
      request.end(Buffer.concat([file.tail, epilogue]))
    }
    request.write(Buffer.concat([preamble, file.head]))
    pump()
  })

/**
 * Waits for a gateway started by a benchmark (PORT=0) to listen, and reads the demo
 * workspace's key: printed on a terminal, else (JSON log lines) written to
 * DATA_DIR/demo-workspace.json.
 */
export const gatewayAndDemoKey = async (
  output: () => string,
  dataDir: string,
  exited: () => boolean
): Promise<{ readonly port: number; readonly apiKey: string }> => {
  const started = Date.now()
  const demoKey = async () => {
    const printed = /API key:\s+(svc_live_\S+)/.exec(output())?.[1]
    if (printed !== undefined) return printed
    const saved = await readFile(path.join(dataDir, "demo-workspace.json"), "utf8").catch(() => "")
    return /"apiKey":\s*"(svc_live_[^"]+)"/.exec(saved)?.[1]
  }
  for (;;) {
    const port = /gateway listening on port (\d+)/.exec(output())?.[1]
    const apiKey = port === undefined ? undefined : await demoKey()
    if (port !== undefined && apiKey !== undefined) return { port: Number(port), apiKey }
    if (Date.now() - started > 60_000 || exited()) throw new Error(`gateway did not start:\n${output()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
