import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inject } from "vitest"
import { privateRedis } from "../support/privateRedis.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Redis lost under steady traffic (docs/operations.md, "When Redis is lost"). The services
 * run on a PRIVATE redis-server, killed with SIGKILL for about 3 s and started again empty,
 * while POST /posts (with Idempotency-Keys), GET /is-connected, a short-link click, a
 * network sign-in link (GET /social/x) and the sign-in page keep coming. No request hangs;
 * nothing answers 5xx but 503 with Retry-After, and that only where the request needs Redis;
 * every post is published once; clicks are counted; afterwards everything works again, and
 * what Redis held is gone as documented (a sign-in link from before: "start again").
 */

let redis: Awaited<ReturnType<typeof privateRedis>>
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  redis = await privateRedis()
  world = await createWorld("redislost", { ...inject("servers"), redisUrl: redis.url })
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
    X_CLIENT_ID: "x-client",
    X_CLIENT_SECRET: "x-secret",
    SHORT_LINK_FLUSH_MS: "300"
  })
}, 90_000)
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await redis?.stop()
})

const q = <T>(text: string, values: ReadonlyArray<unknown> = []) => withDb(world, async (c) => (await c.query(text, [...values])).rows as Array<T>)

interface Answer {
  readonly what: string
  readonly at: number
  readonly status: number
  readonly retryAfter: string | null
}

/** A request that must answer within 5 s (a hang is a failure of the test, status 0). */
const send = async (what: string, url: string, init: RequestInit = {}): Promise<Answer & { readonly response: Response | null }> => {
  const at = Date.now()
  try {
    const response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(5000) })
    return { what, at, status: response.status, retryAfter: response.headers.get("retry-after"), response }
  } catch {
    return { what, at, status: 0, retryAfter: null, response: null }
  }
}

describe("Redis killed and started again empty under steady traffic", () => {
  it("no hang, no 5xx but 503 + Retry-After where Redis is needed, posts published once, clicks counted, everything works after", async () => {
    const ws = await sys.admin.createWorkspace("Redis lost", "ultimate")
    const { channelId } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Steady",
      customerId: null,
      postingTimes: []
    })
    const headers = { authorization: ws.apiKey, "content-type": "application/json" }
    const api = (path: string) => `${sys.url}${path}`

    // a short link to click: a published post with shortLink
    const linked = await send("post", api("/public/v1/posts"), {
      method: "POST",
      headers,
      body: JSON.stringify({ type: "now", shortLink: true, content: "Go https://example.com/sale", channels: [channelId] })
    })
    expect(linked.status).toBe(200)
    const code = await waitFor("the linked post published", async () => {
      const rows = await q<{ content: string }>("SELECT content FROM test_network_posts WHERE channel_id = $1", [channelId])
      return rows.map((r) => r.content.match(/\/l\/([A-Za-z0-9_-]{12})/)?.[1]).find((c) => c !== undefined)
    })
    // a sign-in link made before the outage, and a visitor session of the sign-in page
    const before = await send("social", api("/public/v1/social/x"), { headers })
    expect(before.status).toBe(200)
    const state = new URL(((await before.response!.json()) as { url: string }).url).searchParams.get("state") ?? ""
    const signInPage = await send("signin", api("/sign-in"))
    expect(signInPage.status).toBe(200)
    const cookie = (signInPage.response!.headers.get("set-cookie") ?? "").split(";")[0] ?? ""

    const answers: Array<Answer> = []
    const contents: Array<string> = []
    let clicks = 0
    let running = true
    const loop = async (step: () => Promise<void>) => {
      while (running) {
        await step()
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const record = <A extends Answer>(a: A): A => {
      answers.push({ what: a.what, at: a.at, status: a.status, retryAfter: a.retryAfter })
      return a
    }
    let n = 0
    const posting = loop(async () => {
      const content = `steady ${++n} ${crypto.randomUUID().slice(0, 8)}`
      const body = JSON.stringify({ type: "now", content, channels: [channelId] })
      // the same Idempotency-Key until it is answered (a 503 would be sent again)
      for (;;) {
        const a = record(
          await send("post", api("/public/v1/posts"), { method: "POST", headers: { ...headers, "idempotency-key": `k-${content}` }, body })
        )
        if (a.status === 200) break
        if (!running) return
        await new Promise((r) => setTimeout(r, 200))
      }
      contents.push(content)
    })
    const reading = loop(async () => void record(await send("is-connected", api("/public/v1/is-connected"), { headers })))
    const clicking = loop(async () => {
      const a = record(await send("click", api(`/l/${code}`)))
      if (a.status === 302) clicks += 1
    })
    const linking = loop(async () => void record(await send("social", api("/public/v1/social/x"), { headers })))
    const paging = loop(async () => void record(await send("signin", api("/sign-in"), { headers: { cookie } })))
    // a device code every 400 ms (the endpoint allows 30 an hour per address); while Redis is away OAuth's own 503
    const unavailableOAuthBodies: Array<unknown> = []
    const devices = loop(async () => {
      const a = record(await send("device", api("/oauth/device/code"), { method: "POST" }))
      if (a.status === 503) unavailableOAuthBodies.push(await a.response!.json())
      await new Promise((r) => setTimeout(r, 300))
    })

    await new Promise((r) => setTimeout(r, 1500))
    const killedAt = Date.now()
    await redis.kill()
    await new Promise((r) => setTimeout(r, 3000))
    await redis.start()
    const backAt = Date.now()
    // every kind answers as before once Redis is back
    await waitFor(
      "every kind of request answered as before after the restart",
      async () => {
        const since = answers.filter((a) => a.at > backAt + 200)
        const ok = (what: string, status: number) => since.some((a) => a.what === what && a.status === status)
        return ok("post", 200) && ok("is-connected", 200) && ok("click", 302) && ok("social", 200) && ok("signin", 200) && ok("device", 200)
          ? true
          : undefined
      },
      20_000
    )
    running = false
    await Promise.all([posting, reading, clicking, linking, paging, devices])

    // no hang, and no 5xx but a 503 with Retry-After, only from what needs Redis (sign-in links, sessions)
    expect(answers.filter((a) => a.status === 0)).toEqual([])
    const serverErrors = answers.filter((a) => a.status >= 500)
    for (const a of serverErrors) {
      expect(a.status, a.what).toBe(503)
      expect(Number(a.retryAfter), a.what).toBeGreaterThan(0)
      expect(["social", "signin", "device"], a.what).toContain(a.what)
    }
    expect(unavailableOAuthBodies.length).toBeGreaterThan(0)
    for (const body of unavailableOAuthBodies) expect(body).toMatchObject({ error: "temporarily_unavailable" })
    // the outage was seen: the sign-in link needs Redis
    expect(serverErrors.some((a) => a.what === "social" && a.at >= killedAt && a.at <= backAt)).toBe(true)
    // POST /posts, reads and clicks never needed Redis to answer
    expect(answers.filter((a) => !["social", "signin", "device"].includes(a.what) && a.status !== 200 && a.status !== 302)).toEqual([])

    // every post published exactly once
    await waitFor(
      "every steady post published",
      async () => {
        const rows = await q<{ content: string; n: number }>(
          "SELECT content, count(*)::int AS n FROM test_network_posts WHERE content = ANY($1) GROUP BY content",
          [contents]
        )
        return rows.length === contents.length ? rows : undefined
      },
      60_000
    ).then((rows) => expect(rows.filter((r) => r.n !== 1)).toEqual([]))
    expect(contents.length).toBeGreaterThan(10)

    // clicks: all counted but those in Redis and not flushed when it was killed (at most one flush interval's worth)
    const clickedLastFlushBeforeKill = answers.filter(
      (a) => a.what === "click" && a.status === 302 && a.at > killedAt - 400 && a.at <= killedAt
    ).length
    const flushed = await waitFor(
      "the clicks flushed",
      async () => {
        const n = (await q<{ n: number }>("SELECT sum(clicks)::int AS n FROM short_links WHERE code = $1", [code]))[0]?.n ?? 0
        return n >= clicks - clickedLastFlushBeforeKill ? n : undefined
      },
      20_000
    )
    expect(flushed).toBeLessThanOrEqual(clicks)

    // lost with Redis: the sign-in link from before says to start again (400), the old session is a new visitor's
    const callback = await send("callback", api(`/integrations/social/x?state=${encodeURIComponent(state)}&code=abc`))
    expect(callback.status).toBe(400)
    expect(await callback.response!.text()).toContain("Start connecting again")
    const again = await send("signin", api("/sign-in"), { headers: { cookie } })
    expect(again.status).toBe(200)
    expect(again.response!.headers.get("set-cookie") ?? "").toMatch(/^svc_session=/)
  }, 120_000)
})
