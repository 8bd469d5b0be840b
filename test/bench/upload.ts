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
import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { gatewayAndDemoKey, rssOf, uploadStreaming } from "./support/streamingUpload.js"

const MB = 1024 * 1024
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const useS3 = process.argv.includes("--s3")
const sizesMb = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0)
const sizes = (sizesMb.length > 0 ? sizesMb : [50, 500]).map((n) => n * MB)

const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withAdmin = async <A>(f: (c: pg.Client) => Promise<A>) => {
  const c = new pg.Client({ connectionString: adminUrl })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

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
      PUBLIC_URL: "http://127.0.0.1",
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
    const { port, apiKey } = await gatewayAndDemoKey(
      () => output,
      dataDir,
      () => child.exitCode !== null
    )
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
