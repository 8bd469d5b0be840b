import fs from "node:fs/promises"
import type { AddressInfo } from "node:net"
import os from "node:os"
import path from "node:path"
import { GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3"
// @ts-expect-error s3rver ships no types
import S3rver from "s3rver"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerOf } from "../support/answers.js"
import { answerFrom, decoded } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { realMp4, realWebm } from "../support/realMedia.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

// MEDIA_STORAGE=s3 against s3rver, an S3-compatible server running in this process: two
// gateway replicas share the bucket, so a file uploaded through one is served by the other.

const BUCKET = "media-test"
const ACCESS = "S3RVER" // s3rver's built-in credentials
let world: TestWorld
let store: { run: () => Promise<AddressInfo>; close: () => Promise<void> }
let storeDir: string
let dataDir: string
let endpoint: string
let replicaA: RunningServices
let replicaB: RunningServices
let publicBucket: RunningServices
let apiKey: string
let s3: S3Client

const s3Env = () => ({
  DATA_DIR: dataDir,
  MEDIA_STORAGE: "s3",
  S3_ENDPOINT: endpoint,
  S3_BUCKET: BUCKET,
  S3_REGION: "us-east-1",
  S3_ACCESS_KEY_ID: ACCESS,
  S3_SECRET_ACCESS_KEY: ACCESS
})

beforeAll(async () => {
  world = await createWorld("medias3")
  storeDir = await fs.mkdtemp(path.join(os.tmpdir(), "s3rver-"))
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "media-s3-data-"))
  store = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: storeDir, configureBuckets: [{ name: BUCKET, configs: [] }] })
  const address = await store.run()
  endpoint = `http://127.0.0.1:${address.port}`
  replicaA = await startServices(world, ["gateway"], s3Env())
  replicaB = await startServices(world, ["gateway"], s3Env())
  publicBucket = await startServices(world, ["gateway"], { ...s3Env(), S3_PUBLIC_URL: `${endpoint}/${BUCKET}/` })
  ;({ apiKey } = await replicaA.admin.createWorkspace())
  s3 = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS, secretAccessKey: ACCESS }
  })
})
afterAll(async () => {
  s3?.destroy()
  await publicBucket?.stop()
  await replicaB?.stop()
  await replicaA?.stop()
  await store?.close()
  await world?.drop()
  await fs.rm(storeDir, { recursive: true, force: true })
  await fs.rm(dataDir, { recursive: true, force: true })
})

const upload = async (baseUrl: string, bytes: Uint8Array, name: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes]), name)
  const res = await fetch(`${baseUrl}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  return answerFrom(res)
}

const keyOf = (mediaPath: string) => new URL(mediaPath).pathname.replace(/^.*?\/(?=[0-9a-f-]{36}\/)/, "")

describe("S3-compatible storage", () => {
  it("an upload lands in the bucket with its type, and any replica serves it", async () => {
    const bytes = png(40, 30)
    const res = await upload(replicaA.url, bytes, "shared.png")
    expect(res.status).toBe(200)
    const { path: mediaPath } = decoded(res, answerOf("media", "upload"))
    const key = keyOf(mediaPath)
    expect(mediaPath).toBe(`http://127.0.0.1/media/${key}`)

    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))
    expect(head.ContentType).toBe("image/png")
    expect(head.ContentLength).toBe(bytes.length)
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(bytes)).toBe(true)

    const served = await fetch(`${replicaB.url}/media/${key}`)
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
    expect(await fs.readdir(dataDir)).toEqual([]) // nothing on the gateway's disk
  })

  it("a larger video streams up and back, with ranges", async () => {
    const bytes = realMp4({ padBytes: 8 * 1024 * 1024 })
    const res = await upload(replicaB.url, bytes, "long.mp4")
    expect(res.status).toBe(200)
    const key = keyOf(decoded(res, answerOf("media", "upload")).path)
    const whole = await fetch(`${replicaA.url}/media/${key}`)
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true)
    const part = await fetch(`${replicaA.url}/media/${key}`, { headers: { range: "bytes=-100" } })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes ${bytes.length - 100}-${bytes.length - 1}/${bytes.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(bytes.length - 100))).toBe(true)
  })

  it("the list shows what any replica uploaded", async () => {
    await upload(replicaA.url, realWebm(), "from-a.webm")
    const list = await fetch(`${replicaB.url}/public/v1/media?search=from-a`, { headers: { authorization: apiKey } })
    expect(decoded(await answerFrom(list), answerOf("media", "listMedia")).map((m) => m.name)).toEqual(["from-a.webm"])
  })

  it("an unknown key answers 404", async () => {
    const res = await fetch(`${replicaA.url}/media/${crypto.randomUUID()}/${crypto.randomUUID()}.png`)
    expect(res.status).toBe(404)
  })

  it("with S3_PUBLIC_URL, path points at the bucket itself", async () => {
    const bytes = png(8, 8)
    const res = await upload(publicBucket.url, bytes, "direct.png")
    expect(res.status).toBe(200)
    const { path: mediaPath } = decoded(res, answerOf("media", "upload"))
    expect(mediaPath).toMatch(new RegExp(`^${endpoint}/${BUCKET}/[0-9a-f-]{36}/[0-9a-f-]{36}\\.png$`))
    const direct = await fetch(mediaPath)
    expect(direct.status).toBe(200)
    expect(Buffer.from(await direct.arrayBuffer()).equals(bytes)).toBe(true)
  })
})
