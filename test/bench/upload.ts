/**
 * Upload memory benchmark: POST /upload of large video-like files (a valid MP4 container
 * around a big mdat) to a gateway running as its own process, sampling that process's
 * resident memory (VmRSS from /proc) while the file streams. If uploads stream to disk the
 * growth stays flat whatever the file size; if they were buffered it would follow the size.
 *
 *   npm run bench -- upload                    50 MB and 500 MB, local disk storage
 *   npm run bench -- upload 50 500 1000        the sizes given, in MB
 *   npm run bench -- upload --s3 50 500        MEDIA_STORAGE=s3 against s3rver (in this process)
 *
 * Needs PostgreSQL, NATS and Redis (DATABASE_URL, NATS_URL, REDIS_URL or localhost) and
 * ~2× the largest size free in the temp directory. Prints one row per size.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import fs from "node:fs/promises"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { realMp4Around as mp4Around } from "../support/realMedia.js"

const MB = 1024 * 1024
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const useS3 = process.argv.includes("--s3")
const sizesMb = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0)
const sizes = (sizesMb.length > 0 ? sizesMb : [50, 500]).map((n) => n * MB)

const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const rssOf = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  return Number(kb ?? 0) * 1024
}

const withAdmin = async <A>(f: (c: pg.Client) => Promise<A>) => {
  const c = new pg.Client({ connectionString: adminUrl })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

/** Streams a multipart body holding an MP4 of `size` bytes; never holds more than one chunk. */
const uploadStreaming = (port: number, apiKey: string, size: number) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const boundary = `----bench${Math.random().toString(16).slice(2)}`
    const { head, tail } = mp4Around(0)
    const mdatBytes = size - head.length - tail.length
    const file = mp4Around(mdatBytes)
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

const main = async () => {
  const name = `bench_upload_${Date.now()}`
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`))
  const dbUrl = new URL(adminUrl)
  dbUrl.pathname = `/${name}`
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "bench-upload-"))
  let storage: Record<string, string> = {}
  let closeStore = async () => {}
  if (useS3) {
    // @ts-expect-error s3rver ships no types
    const { default: S3rver } = await import("s3rver")
    const store = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: path.join(dataDir, "s3"),
      configureBuckets: [{ name: "bench", configs: [] }]
    })
    const address = (await store.run()) as { port: number }
    closeStore = () => store.close()
    storage = {
      MEDIA_STORAGE: "s3",
      S3_ENDPOINT: `http://127.0.0.1:${address.port}`,
      S3_BUCKET: "bench",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER"
    }
  }
  const child = spawn(process.execPath, ["--import", "tsx", "services/main.ts", "gateway"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      NAMESPACE: `bench${Date.now() % 100000}`,
      PORT: "0",
      DATA_DIR: dataDir,
      MAX_UPLOAD_BYTES: String(Math.max(...sizes) + MB),
      ...storage
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr.on("data", (d: Buffer) => (output += d.toString()))
  const stop = async () => {
    child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 500))
    child.kill("SIGKILL")
    await closeStore()
    await fs.rm(dataDir, { recursive: true, force: true })
    await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined)
  }
  try {
    const started = Date.now()
    while (!/gateway listening on port \d+/.test(output) || !/API key:\s+svc_live_/.test(output)) {
      if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error(`gateway did not start:\n${output}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const port = Number(/gateway listening on port (\d+)/.exec(output)![1])
    const apiKey = /API key:\s+(svc_live_\S+)/.exec(output)![1]!
    const pid = child.pid!

    // warm up: the first request loads code paths
    await uploadStreaming(port, apiKey, 2 * MB)
    console.log(`gateway pid ${pid}, storage ${useS3 ? `S3 (s3rver at ${storage["S3_ENDPOINT"]})` : `local disk (${dataDir})`}`)
    console.log("file size | RSS before | RSS peak | growth | time | throughput | answer")
    for (const size of sizes) {
      if (global.gc) global.gc()
      await new Promise((r) => setTimeout(r, 1000))
      const before = rssOf(pid)
      let peak = before
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 25)
      const t0 = Date.now()
      const answer = await uploadStreaming(port, apiKey, size)
      const seconds = (Date.now() - t0) / 1000
      clearInterval(sampler)
      peak = Math.max(peak, rssOf(pid))
      const item = answer.status === 200 ? (JSON.parse(answer.body) as { type: string }) : undefined
      const mb = (n: number) => `${(n / MB).toFixed(1)} MB`
      console.log(
        [
          mb(size),
          mb(before),
          mb(peak),
          `${mb(peak - before)} (${((100 * (peak - before)) / size).toFixed(2)}% of the file)`,
          `${seconds.toFixed(1)} s`,
          `${(size / MB / seconds).toFixed(0)} MB/s`,
          `${answer.status}${item !== undefined ? ` ${item.type}` : ` ${answer.body.slice(0, 120)}`}`
        ].join(" | ")
      )
    }
  } finally {
    await stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
