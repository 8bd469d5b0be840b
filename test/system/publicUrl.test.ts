import { ConfigProvider, Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { publicUrlFromEnv } from "../../services/platform/config.js"
import { client } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { runToExit } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { created as createdPost, wholePost } from "../support/answers.js"

/**
 * Every address the service hands out (share and preview pages, media files) is built
 * from one setting, PUBLIC_URL, checked at start; never from the port a process happens
 * to listen on.
 */

const PROCESS_TEST_TIMEOUT_MS = 45_000
const PUBLIC_URL = "https://social.example.com/scheduler"

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("publicurl")
  // PORT=0 (the world's): the gateway listens on some free port, links name PUBLIC_URL only
  sys = await startServices(world, ["gateway", "actors"], { PUBLIC_URL: `${PUBLIC_URL}/` })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const check = (env: Record<string, string>, port: number) =>
  Effect.runSync(Effect.either(publicUrlFromEnv(port).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))

describe("PUBLIC_URL is checked at start", () => {
  it.each([
    ["https://api.example.com", "https://api.example.com"],
    ["https://api.example.com/", "https://api.example.com"],
    ["http://localhost:3000//", "http://localhost:3000"],
    ["https://example.com/base/path/", "https://example.com/base/path"]
  ])("%s is used as %s", (given, used) => {
    expect(check({ PUBLIC_URL: given }, 0)).toEqual(Either.right(used))
  })

  it("unset, with a port: http://localhost:<PORT>", () => {
    expect(check({}, 3000)).toEqual(Either.right("http://localhost:3000"))
  })

  it.each([
    ["not a URL", "api.example.com", /not an absolute URL/],
    ["another scheme", "ftp://example.com", /must start with http:\/\/ or https:\/\//],
    ["a query", "https://example.com/?x=1", /query or fragment/],
    ["a fragment", "https://example.com/#top", /query or fragment/],
    ["credentials", "https://user:pw@example.com", /user name or password/]
  ])("%s is refused", (_, given, message) => {
    const result = check({ PUBLIC_URL: given }, 3000)
    expect(Either.isLeft(result) && result.left._tag === "PublicUrlInvalid" && message.test(result.left.message)).toBe(true)
  })

  it("unset with PORT=0 is refused: no default can name the port", () => {
    const result = check({}, 0)
    expect(Either.isLeft(result) && result.left.message.startsWith("PUBLIC_URL is not set and PORT is 0")).toBe(true)
  })
})

describe("a process started with PORT=0 and no PUBLIC_URL", () => {
  const cannotStartLines = (output: string) => output.split("\n").filter((line) => line.startsWith("Cannot start:"))

  it.each([["gateway"], ["actors"]])(
    "%s: refuses to start with one line naming PUBLIC_URL, exit 1",
    async (service) => {
      const run = await runToExit(world, [service], { env: { PORT: "0", SEED_DEMO: "false" }, unset: ["PUBLIC_URL"] })
      expect(run.code, run.output).toBe(1)
      expect(cannotStartLines(run.output)).toHaveLength(1)
      expect(cannotStartLines(run.output)[0]).toMatch(/^Cannot start: PUBLIC_URL is not set and PORT is 0 \(any free port\)/)
      expect(run.output).not.toMatch(/listening|started/)
    },
    PROCESS_TEST_TIMEOUT_MS
  )

  it(
    "an invalid PUBLIC_URL: refused the same way",
    async () => {
      const run = await runToExit(world, ["gateway"], { env: { PUBLIC_URL: "https://example.com/?x=1", SEED_DEMO: "false" } })
      expect(run.code, run.output).toBe(1)
      expect(cannotStartLines(run.output)).toEqual([
        'Cannot start: PUBLIC_URL may not have a query or fragment ("https://example.com/?x=1"). ' +
          "Set it to the address clients reach the gateway at, for example PUBLIC_URL=https://api.example.com"
      ])
    },
    PROCESS_TEST_TIMEOUT_MS
  )
})

describe("addresses handed out start with PUBLIC_URL, whatever port the gateway listens on", () => {
  let apiKey: string
  let channelId: string

  beforeAll(async () => {
    const ws = await sys.admin.createWorkspace()
    apiKey = ws.apiKey
    channelId = (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Channel", customerId: null, postingTimes: [] }))
      .channelId
  })

  it("a post's previewUrl and shareUrl, and the share page's links", async () => {
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "review",
      date: new Date(Date.now() + 3600_000).toISOString(),
      content: "Look at me",
      channels: [channelId]
    })
    expect(created.status).toBe(200)
    const { group, previewUrl } = createdPost(created)
    expect(previewUrl).toMatch(new RegExp(`^${PUBLIC_URL}/p/[^/]+$`))
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)
    expect(wholePost(post).shareUrl).toBe(previewUrl)
    const path = new URL(previewUrl).pathname.slice(new URL(PUBLIC_URL).pathname.length)
    const decided = await fetch(`${sys.url}${path}/approve`, { method: "POST", redirect: "manual" })
    expect(decided.status).toBe(303)
    expect(decided.headers.get("location")).toBe(`${previewUrl}?done=approve`)
  })

  it("an uploaded file's path", async () => {
    const form = new FormData()
    form.append("file", new Blob([png()]), "x.png")
    const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
    expect(res.status).toBe(200)
    const item = (await res.json()) as { path: string }
    expect(item.path).toMatch(new RegExp(`^${PUBLIC_URL}/media/`))
  })
})
