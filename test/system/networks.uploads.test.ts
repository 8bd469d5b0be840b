import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WholePost } from "../../protocol/http/postResources.js"
import { ffmpegPath } from "../../services/media/preparation/tools.js"
import { answerOf, created as createdPost, present, wholePost } from "../support/answers.js"
import { answerFrom, client, decoded, errorOf } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import type { Simulator } from "../support/simulator/core.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"

/**
 * TikTok and YouTube end to end: channels made with the admin CLI's credentials from the
 * simulator, a post with a video through the public API, published by the real publisher
 * in steps (the upload session kept first, then the bytes, then the network's processing,
 * the item held `processing` meanwhile), arriving once; bad input refused with 400 and
 * nothing saved.
 */

let sim: Simulator & { readonly networks: ReadonlyArray<string> }
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("uploadnets")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { ...simulatorEnv(sim), PUBLISH_TIMEOUT_MS: "10000" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

/** A real H.264 MP4 of `seconds` (TikTok takes 3 s at least; the shared real videos last 1 s). */
const clip = (() => {
  const made = new Map<number, Buffer>()
  return (seconds: number) => {
    const cached = made.get(seconds)
    if (cached !== undefined) return cached
    const dir = mkdtempSync(path.join(tmpdir(), "upload-nets-"))
    try {
      const out = path.join(dir, "clip.mp4")
      const run = spawnSync(ffmpegPath, [
        ...["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"],
        ...["-i", `testsrc=size=360x640:rate=24:duration=${seconds}`],
        ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4", out]
      ])
      if (run.status !== 0) throw new Error(`ffmpeg: ${run.stderr.toString()}`)
      const bytes = readFileSync(out)
      made.set(seconds, bytes)
      return bytes
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
})()

const newWorkspace = async () => {
  const ws = await sys.admin.createWorkspace("Uploads", "ultimate")
  return { ...ws, api: client(sys.url, ws.apiKey) }
}

const upload = async (apiKey: string, bytes: Buffer, name: string, type: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type }), name)
  const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  expect(res.status).toBe(200)
  return decoded(await answerFrom(res), answerOf("media", "upload"))
}

const channelFor = async (workspaceId: string, network: string, input: Record<string, unknown> = {}) =>
  (
    await sys.admin.createChannel({
      workspaceId,
      network,
      name: `${network} channel`,
      customerId: null,
      postingTimes: [],
      credentials: await seedAccount(sim, network, input)
    })
  ).channelId

const settingsOf: Record<string, Record<string, unknown>> = {
  tiktok: { privacy_level: "SELF_ONLY", duet: false, stitch: false, comment: true },
  youtube: { title: "Launch video", type: "unlisted", tags: ["launch"], made_for_kids: false }
}

const firstChannel = (post: WholePost) => present(post.channels[0], "the post's first channel")
const rootOf = async (api: ReturnType<typeof client>, group: string) => firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`))).root

const postVideo = async (network: string, input: Record<string, unknown> = {}) => {
  const w = await newWorkspace()
  const channelId = await channelFor(w.workspaceId, network, input)
  const video = await upload(w.apiKey, clip(4), "launch.mp4", "video/mp4")
  const text = `Launch on ${network} ${crypto.randomUUID().slice(0, 8)}`
  const created = await w.api.post("/public/v1/posts", {
    type: "now",
    posts: [
      { integration: { id: channelId }, value: [{ content: text, image: [{ id: video.id, path: video.path }] }], settings: settingsOf[network] }
    ]
  })
  expect(created.status, created.text).toBe(200)
  return { w, text, group: createdPost(created).group }
}

describe("publishing a video to TikTok and YouTube", () => {
  it.each(["tiktok", "youtube"])(
    "%s: the video is uploaded in steps by the real publisher and arrives once",
    async (network) => {
      const { w, text, group } = await postVideo(network)
      const root = await waitFor(
        `${network}: published`,
        async () => {
          const r = await rootOf(w.api, group)
          return r.state === "published" || r.state === "error" ? r : undefined
        },
        40_000
      )
      expect(root.state, JSON.stringify(root.error)).toBe("published")
      const arrived = sim.postsOf(network).filter((p) => p.text === text)
      expect(arrived).toHaveLength(1)
      expect(arrived[0]!.media[0]!.size).toBeGreaterThan(1000)
      expect(root.releaseUrl).toMatch(/^https:\/\/www\.(tiktok|youtube)\.com\//)
      expect(root.held).toBeNull()
      if (network === "youtube") {
        expect(root.releaseId).toBe(arrived[0]!.id)
        expect(arrived[0]!.extra).toMatchObject({ title: "Launch video", tags: ["launch"], privacyStatus: "unlisted" })
      } else {
        // an app TikTok has not audited posts privately: the publish id stands for the post
        expect(arrived[0]!.extra).toMatchObject({ privacy_level: "SELF_ONLY", disable_comment: false, disable_duet: true })
        expect(root.releaseId).toMatch(/^v_pub_file/)
      }
    },
    60_000
  )

  it.each(["tiktok", "youtube"])(
    "%s: the last chunk's answer is lost; the publisher asks the upload (status/fetch, the session) and links the video, one copy",
    async (network) => {
      sim.fail({ network, op: "publish", mode: "accept-then-reset", times: 1 })
      try {
        const { w, text, group } = await postVideo(network)
        const root = await waitFor(
          `${network}: linked`,
          async () => {
            const r = await rootOf(w.api, group)
            return r.state === "published" || r.state === "error" ? r : undefined
          },
          40_000
        )
        expect(root.state, JSON.stringify(root.error)).toBe("published")
        const arrived = sim.postsOf(network).filter((p) => p.text === text)
        expect(arrived).toHaveLength(1)
        expect(sim.requests.filter((r) => r.network === network && r.op === "init").length).toBeGreaterThan(0)
      } finally {
        sim.clearFaults()
      }
    },
    60_000
  )

  it("while TikTok processes, the item shows held `processing` with what it waits for; no second copy is made", async () => {
    sim.setProcessingDelay(4000)
    try {
      const { w, text, group } = await postVideo("tiktok")
      const held = await waitFor(
        "held processing",
        async () => {
          const r = await rootOf(w.api, group)
          return r.held === "processing" && r.waitingFor !== null ? r : undefined
        },
        30_000
      )
      expect(held.waitingFor).toMatch(/TikTok/)
      const root = await waitFor(
        "published after processing",
        async () => {
          const r = await rootOf(w.api, group)
          return r.state === "published" || r.state === "error" ? r : undefined
        },
        40_000
      )
      expect(root.state, JSON.stringify(root.error)).toBe("published")
      expect(root.held).toBeNull()
      expect(sim.postsOf("tiktok").filter((p) => p.text === text)).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  }, 90_000)
})

describe("bad input is refused with 400 before saving", () => {
  it("a TikTok video longer than the creator's maximum; a YouTube post without a video", async () => {
    const w = await newWorkspace()
    const tiktok = await channelFor(w.workspaceId, "tiktok", { maxVideoSeconds: 3 })
    const youtube = await channelFor(w.workspaceId, "youtube")
    const video = await upload(w.apiKey, clip(4), "long.mp4", "video/mp4")
    const image = await upload(w.apiKey, png(64, 64), "still.png", "image/png")
    const tooLong = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: tiktok }, value: [{ content: "too long", image: [{ id: video.id, path: video.path }] }], settings: settingsOf["tiktok"] }
      ]
    })
    expect(tooLong.status).toBe(400)
    expect(errorOf(tooLong).errors?.[0]?.message).toMatch(/long\.mp4 is .*TikTok takes at most 0?:?0?3/)
    const noVideo = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: youtube },
          value: [{ content: "no video", image: [{ id: image.id, path: image.path }] }],
          settings: settingsOf["youtube"]
        }
      ]
    })
    expect(noVideo.status).toBe(400)
    expect(errorOf(noVideo).errors?.[0]?.message).toMatch(/video/i)
    expect(decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts).toEqual([])
  }, 60_000)
})
