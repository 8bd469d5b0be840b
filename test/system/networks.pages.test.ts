import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WholePost } from "../../protocol/http/postResources.js"
import { answerOf, created as createdPost, present, wholePost } from "../support/answers.js"
import { client, decoded, type Answer } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { closedPort } from "../support/ports.js"
import type { Simulator } from "../support/simulator/core.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Facebook Pages and LinkedIn Pages end to end, and the choice after sign-in: an account
 * with several pages is saved `inBetweenSteps` (its posts refused) until one is chosen on
 * the callback page; channels connected with the admin CLI's credentials publish a post
 * with photos and a follow-up through the real publisher, each arriving once. Facebook
 * fetches the photos from their signed public addresses, so PUBLIC_URL names the gateway.
 */

let sim: Simulator
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("networkspages")
  const port = await closedPort()
  // LinkedIn Pages sign in with the LinkedIn app's keys (LINKEDIN_PAGE_* fall back to LINKEDIN_*)
  const { LINKEDIN_PAGE_CLIENT_ID: _id, LINKEDIN_PAGE_CLIENT_SECRET: _secret, ...env } = simulatorEnv(sim)
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
    ...env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PUBLISH_TIMEOUT_MS: "8000"
  })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

/** How many posts the workspace has saved. */
const postCount = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1", [workspaceId])).rows[0]!.n)

const channelsOf = (answer: Answer) => decoded(answer, answerOf("account", "listIntegrations"))
const connectUrlOf = (answer: Answer) => decoded(answer, answerOf("account", "socialConnect")).url
const firstChannel = (post: WholePost) => present(post.channels[0], "the post's first channel")

const seed = async (network: string, input: Record<string, unknown>) =>
  (await (await fetch(`${sim.origin}/_sim/accounts/${network}`, { method: "POST", body: JSON.stringify(input) })).json()) as Record<string, unknown>

const newWorkspace = async () => {
  const ws = await sys.admin.createWorkspace("Pages", "ultimate")
  return { ...ws, api: client(sys.url, ws.apiKey) }
}

const upload = async (apiKey: string, name: string) => {
  const form = new FormData()
  form.append("file", new Blob([png(32, 32)], { type: "image/png" }), name)
  const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  expect(res.status).toBe(200)
  return (await res.json()) as { id: string; path: string }
}

/** Signs in through GET /social (refresh: reconnect that channel): the callback page's HTML and status. */
const signIn = async (w: Awaited<ReturnType<typeof newWorkspace>>, network: string, refresh?: string) => {
  const url = new URL(connectUrlOf(await w.api.get(`/public/v1/social/${network}${refresh === undefined ? "" : `?refresh=${refresh}`}`)))
  const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
  expect(back.pathname).toBe(`/integrations/social/${network}`)
  const page = await fetch(`${sys.url}${back.pathname}${back.search}`)
  return { status: page.status, html: await page.text() }
}

/** The choice form of the callback page: its action and token. */
const choiceForm = (html: string) => {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? ""
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? ""
  return { action, token }
}

const choose = async (action: string, token: string, choice: string) => {
  const res = await fetch(`${sys.url}${action}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, choice }).toString()
  })
  return { status: res.status, html: await res.text() }
}

/** A post with photos and a follow-up; the published post, or the 400 of a refusal. */
const postTo = (w: Awaited<ReturnType<typeof newWorkspace>>, channelId: string, text: string, images: ReadonlyArray<{ id: string; path: string }>) =>
  w.api.post("/public/v1/posts", {
    type: "now",
    posts: [
      {
        integration: { id: channelId },
        value: [
          { content: text, image: images },
          { content: `${text} (more)`, delay: 0 }
        ],
        settings: {}
      }
    ]
  })

const published = async (w: Awaited<ReturnType<typeof newWorkspace>>, created: Answer) => {
  expect(created.status, created.text).toBe(200)
  const group = createdPost(created).group
  const post = await waitFor(
    "published with its follow-up",
    async () => {
      const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${group}`)))
      return (c.root.state === "published" && c.thread.every((t) => t.state === "published")) || c.root.state === "error" ? c : undefined
    },
    40_000
  )
  expect(post.root.state, JSON.stringify(post.root.error)).toBe("published")
  return post
}

describe("choosing a page after sign-in", () => {
  it("Facebook: two pages → listed, inBetweenSteps and posts refused; choosing one connects it and posts publish to it", async () => {
    const w = await newWorkspace()
    const account = await seed("facebook", { name: "Pat", pages: 2 })
    const pages = account["pages"] as Array<{ id: string; name: string }>
    const first = await signIn(w, "facebook")
    expect(first.status).toBe(200)
    for (const p of pages) expect(first.html).toContain(p.name)
    const [channel] = channelsOf(await w.api.get("/public/v1/integrations"))
    expect(channel).toMatchObject({ identifier: "facebook", inBetweenSteps: true })
    const refused = await postTo(w, channel!.id, "too early", [])
    expect(refused.status).toBe(400)
    expect(refused.json).toMatchObject({
      error: "Please fix these before saving.",
      errors: [{ channelId: channel!.id, message: `${channel!.name}: the channel must be reconnected in the app before posting.` }]
    })
    expect(await postCount(w.workspaceId)).toBe(0)

    const { action, token } = choiceForm(first.html)
    expect(action).toBe("/integrations/social/facebook/choose")
    const stranger = await choose(action, token, "424242")
    expect(stranger.status).toBe(400)
    const chosen = await choose(action, token, pages[1]!.id)
    expect(chosen.status, chosen.html).toBe(200)
    expect(chosen.html).toContain(`${pages[1]!.name} on Facebook Page is connected`)
    const again = await choose(action, token, pages[1]!.id)
    expect(again.status).toBe(400)
    expect(again.html).toContain("expired or was already made")
    const after = channelsOf(await w.api.get("/public/v1/integrations"))
    expect(after).toEqual([expect.objectContaining({ id: channel!.id, name: pages[1]!.name, inBetweenSteps: false })])

    const text = `Chosen page ${crypto.randomUUID().slice(0, 8)}`
    const photos = [await upload(w.apiKey, "one.png"), await upload(w.apiKey, "two.png")]
    await published(w, await postTo(w, channel!.id, text, photos))
    const onPage = sim.postsOf("facebook").filter((p) => p.account === pages[1]!.id)
    expect(onPage.filter((p) => p.text === text)).toHaveLength(1)
    expect(onPage.find((p) => p.text === text)?.media).toHaveLength(2)
    expect(onPage.filter((p) => p.text === `${text} (more)`)).toHaveLength(1)

    // reconnecting lists the pages again; only the channel's own page may be chosen
    const re = await signIn(w, "facebook", channel!.id)
    expect(channelsOf(await w.api.get("/public/v1/integrations"))[0]).toMatchObject({ id: channel!.id, inBetweenSteps: true })
    const form = choiceForm(re.html)
    const other = await choose(form.action, form.token, pages[0]!.id)
    expect(other.status).toBe(400)
    expect(other.html).toContain("connected to another page")
    expect((await choose(form.action, form.token, pages[1]!.id)).status).toBe(200)
    expect(channelsOf(await w.api.get("/public/v1/integrations"))).toEqual([expect.objectContaining({ id: channel!.id, inBetweenSteps: false })])
  }, 90_000)

  it("Facebook: choosing a page the workspace already has updates that channel; the one saved at sign-in goes", async () => {
    const w = await newWorkspace()
    const account = await seed("facebook", { name: "Sam", pages: 2 })
    const pages = account["pages"] as Array<{ id: string; name: string }>
    const { channelId } = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "facebook",
      name: "Existing",
      customerId: null,
      postingTimes: [],
      credentials: { accessToken: account["accessToken"], pageId: account["pageId"] }
    })
    const { action, token } = choiceForm((await signIn(w, "facebook")).html)
    expect(channelsOf(await w.api.get("/public/v1/integrations"))).toHaveLength(2)
    expect((await choose(action, token, pages[0]!.id)).status).toBe(200)
    expect(channelsOf(await w.api.get("/public/v1/integrations"))).toEqual([expect.objectContaining({ id: channelId, inBetweenSteps: false })])
  })

  it("LinkedIn Pages: two organizations → chosen on the callback page; the post publishes as that organization", async () => {
    const w = await newWorkspace()
    const account = await seed("linkedin-page", { name: "Acme <b>", organizations: 2 })
    const organizations = account["organizations"] as Array<{ urn: string; name: string }>
    const signedIn = await signIn(w, "linkedin-page")
    // the network's names are text on the page, never markup
    expect(signedIn.html).toContain("Acme &lt;b&gt;")
    expect(signedIn.html).not.toContain("Acme <b>")
    const [channel] = channelsOf(await w.api.get("/public/v1/integrations"))
    expect(channel).toMatchObject({ identifier: "linkedin-page", inBetweenSteps: true })
    const { action, token } = choiceForm(signedIn.html)
    expect((await choose(action, token, organizations[0]!.urn)).status).toBe(200)
    expect(channelsOf(await w.api.get("/public/v1/integrations"))[0]).toMatchObject({ name: organizations[0]!.name, inBetweenSteps: false })
    const text = `Org post ${crypto.randomUUID().slice(0, 8)}`
    await published(w, await postTo(w, channel!.id, text, [await upload(w.apiKey, "logo.png")]))
    const held = sim.postsOf("linkedin-page").filter((p) => p.text === text || p.text === `${text} (more)`)
    expect(held.map((p) => [p.account, p.replyTo === null])).toEqual([
      [organizations[0]!.urn, true],
      [organizations[0]!.urn, false]
    ])
  }, 90_000)
})

describe("channels connected with the admin CLI's credentials", () => {
  it.each([
    ["facebook", { pages: 1 }, 63207],
    ["linkedin-page", { organizations: 1 }, 3001]
  ] as const)(
    "%s: photos and a follow-up arrive once each; a text over the limit is refused with 400 and nothing saved",
    async (network, input, tooLong) => {
      const w = await newWorkspace()
      const seeded = await seed(network, input)
      const { channelId } = await sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network,
        name: `${network} channel`,
        customerId: null,
        postingTimes: [],
        credentials: seeded
      })
      const long = await postTo(w, channelId, "x".repeat(tooLong), [])
      expect(long.status).toBe(400)
      const text = `CLI ${network} ${crypto.randomUUID().slice(0, 8)}`
      const photos = [await upload(w.apiKey, "a.png"), await upload(w.apiKey, "b.png")]
      await published(w, await postTo(w, channelId, text, photos))
      const held = sim.postsOf(network).filter((p) => p.text === text || p.text === `${text} (more)` || p.text.startsWith("xxxxxxxx"))
      expect(held.map((p) => [p.text, p.media.length])).toEqual([
        [text, 2],
        [`${text} (more)`, 0]
      ])
    },
    90_000
  )
})
