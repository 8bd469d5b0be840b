import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { wholePost } from "../support/answers.js"

/**
 * Spec (Versioning): scripts built for the reference public API work after changing only
 * the base address and key. This drives the reference's own CLI (npm package `postiz`)
 * against this service, as its users would: POSTIZ_API_URL and POSTIZ_API_KEY only.
 */
const run = promisify(execFile)
const cli = "node_modules/postiz/dist/index.js"

let world: TestWorld
let sys: RunningServices
let channelId: string
let env: NodeJS.ProcessEnv

const postiz = async (...args: Array<string>) => {
  const { stdout } = await run(process.execPath, [cli, ...args], { env, timeout: 30_000 })
  return stdout
}
/** The CLI prints a line of text, then the answer as JSON. */
const jsonOf = (stdout: string) => JSON.parse(stdout.slice(stdout.search(/[[{]/)))

beforeAll(async () => {
  world = await createWorld("refcli")
  sys = await startServices(world)
  const ws = await sys.admin.createWorkspace()
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "CLI channel", customerId: null, postingTimes: [] })
  ).channelId
  env = { ...process.env, POSTIZ_API_URL: sys.url, POSTIZ_API_KEY: ws.apiKey, HOME: tmpdir() }
}, 60_000)
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("the reference public API's CLI works with only the address and key changed", () => {
  const date = () => new Date(Date.now() + 3 * 3600_000).toISOString()

  it("integrations:list, integrations:settings, integrations:trigger", async () => {
    expect(jsonOf(await postiz("integrations:list"))).toEqual([expect.objectContaining({ id: channelId, identifier: "test", name: "CLI channel" })])
    expect(jsonOf(await postiz("integrations:settings", channelId)).output).toMatchObject({ maxLength: 500, comments: true })
    expect(jsonOf(await postiz("integrations:trigger", channelId, "echo", "-d", JSON.stringify({ text: "hi" })))).toEqual({ output: { text: "hi" } })
  })

  it("posts:create with comments, posts:list, posts:delete", async () => {
    const created = jsonOf(await postiz("posts:create", "-c", "From the reference CLI", "-c", "a comment", "-d", "5", "-s", date(), "-i", channelId))
    expect(created).toEqual([expect.objectContaining({ integration: channelId, status: "queued" })])
    const listed = jsonOf(await postiz("posts:list"))
    const row = listed.posts.find((p: { id: string }) => p.id === created[0].postId)
    expect(row).toMatchObject({ content: "From the reference CLI", state: "QUEUE", integration: { id: channelId, providerIdentifier: "test" } })
    const whole = await client(sys.url, env["POSTIZ_API_KEY"]).get(`/public/v1/posts/${created[0].group}`)
    expect(wholePost(whole).channels[0]?.thread).toEqual([expect.objectContaining({ content: "a comment", delay: 5 })])
    expect(await postiz("posts:delete", created[0].postId)).toContain("deleted")
    await expect(postiz("posts:delete", created[0].postId)).rejects.toThrow(/Post not found/)
  })

  it("upload, then a post with a remote image (the CLI's made-up id with a public path)", async () => {
    const file = join(tmpdir(), `refcli-${Date.now()}.png`)
    writeFileSync(file, png(40, 30))
    const media = jsonOf(await postiz("upload", file))
    expect(media).toMatchObject({ type: "image", status: "ready", alt: "" })
    expect(media.thumbnail).toBe(media.path)
    const created = jsonOf(await postiz("posts:create", "-c", "with an image", "-m", media.path, "-s", date(), "-i", channelId))
    expect(created[0].status).toBe("queued")
  })

  it("a draft", async () => {
    const created = jsonOf(await postiz("posts:create", "-c", "Draft from the CLI", "-t", "draft", "-s", date(), "-i", channelId))
    expect(created[0].status).toBe("draft")
  })
})
