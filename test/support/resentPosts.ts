import { expect } from "vitest"
import { answerOf } from "./answers.js"
import { decoded, errorOf, type Answer, type client } from "./http.js"
import type { SeparateServices } from "./publishingProcesses.js"
import { seedAccount } from "./simulator/index.js"
import type { Simulator } from "./simulator/core.js"
import type { TestWorld } from "./system.js"
import { withDb } from "./tokens.js"
import { sleep, waitFor } from "./wait.js"

/**
 * A stream of POST /posts with an Idempotency-Key each, as the Postgres fault tests send it
 * (postgresRestart, postgresSwitchover, pgbouncerSession): every answer of a request is kept, so a test can
 * send a 503'd one again with its key and count what each request ended with.
 */

/** One POST /posts of the stream: its key, its body, and every answer it got. */
export interface Sent {
  readonly key: string
  readonly content: string
  readonly api: ReturnType<typeof client>
  readonly body: unknown
  readonly answers: Array<Answer | "no answer">
}

/** No request may hang: a client gives up after this (far above any bound of the service). */
export const CLIENT_TIMEOUT_MS = 20_000

export const send = async (s: Sent): Promise<Answer | "no answer"> => {
  const answer = await Promise.race([
    s.api.post("/public/v1/posts", s.body, { "idempotency-key": s.key }),
    sleep(CLIENT_TIMEOUT_MS).then(() => "no answer" as const)
  ]).catch((): "no answer" => "no answer")
  s.answers.push(answer)
  return answer
}

/**
 * POST /posts every 150 ms until `stop`, each with a key of its own (`<label>-<run>-<n>`) and
 * the content `stream <n> <run>`; `target(n)` picks the n-th request's client and channel.
 * `stop` waits for every request in flight.
 */
export const postStream = (
  label: string,
  run: string,
  target: (n: number) => { readonly api: ReturnType<typeof client>; readonly channelId: string }
) => {
  const sent: Array<Sent> = []
  let streaming = true
  const streamed = (async () => {
    const inFlight: Array<Promise<unknown>> = []
    for (let n = 0; streaming; n++) {
      const { api, channelId } = target(n)
      const content = `stream ${n} ${run}`
      const s: Sent = {
        key: `${label}-${run}-${n}`,
        content,
        api,
        body: { type: "now", posts: [{ integration: { id: channelId }, value: [{ content }] }] },
        answers: []
      }
      sent.push(s)
      inFlight.push(send(s))
      await sleep(150)
    }
    await Promise.all(inFlight)
  })()
  return {
    sent,
    stop: async () => {
      streaming = false
      await streamed
    }
  }
}

/** Every request whose first answer was a 503 sent again with its key until it answers 200 (it makes its post, or answers the one it made). */
export const resendUnavailable = async (sent: ReadonlyArray<Sent>) => {
  for (const s of sent.filter((s) => s.answers[0] !== "no answer" && s.answers[0]!.status === 503)) {
    await waitFor(`${s.key} answered 200 when sent again`, async () => {
      const again = await send(s)
      return again !== "no answer" && again.status === 200 ? again : undefined
    })
  }
}

/** The requests of the stream that did not end with exactly one post (none twice, none lost): [] when each made one. */
export const notExactlyOnePost = async (world: TestWorld, sent: ReadonlyArray<Sent>) => {
  const contents = sent.map((s) => s.content)
  const posts = await withDb(
    world,
    async (c) =>
      (
        await c.query<{ content: string; groups: number }>(
          `SELECT i.content, count(DISTINCT p.group_id)::int AS groups FROM post_items i
           JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL WHERE i.content = ANY($1) GROUP BY i.content`,
          [contents]
        )
      ).rows
  )
  const groupsOf = new Map(posts.map((r) => [r.content, r.groups]))
  return contents.filter((c) => groupsOf.get(c) !== 1)
}

/** Whether the answer is the spec's retryable 503 (a Retry-After, and a fix that says when). */
export const expectRetryable = (a: Answer) => {
  expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0)
  const body = errorOf(a)
  expect(body.code).toBe("service_unavailable")
  expect(body.fix).toMatch(/retry after \d+ seconds/)
}

/**
 * GET /posts of each workspace lists exactly its requests of the stream and its due posts
 * (the contents that end with `run`), each once.
 */
export const expectEachListedOnce = async (
  workspaces: ReadonlyArray<{ readonly api: ReturnType<typeof client>; readonly workspaceId: string }>,
  sent: ReadonlyArray<Sent>,
  dueSent: ReadonlyArray<{ readonly workspaceId: string; readonly content: string }>,
  run: string
) => {
  for (const ws of workspaces) {
    const listed = decoded(await ws.api.get("/public/v1/posts"), answerOf("posts", "listPosts"))
      .posts.map((p) => p.content)
      .filter((c) => c.endsWith(run))
    const own = [
      ...sent.filter((s) => s.api === ws.api).map((s) => s.content),
      ...dueSent.filter((d) => d.workspaceId === ws.workspaceId).map((d) => d.content)
    ]
    expect([...listed].sort()).toEqual(own.sort())
  }
}

/**
 * The outbox drains (the sweeper takes what a commit could not publish) and each settled
 * post has its one outcome event: post.published, or post.unconfirmed where the outcome was
 * lost; none twice.
 */
export const expectOutboxOutcomes = async (world: TestWorld, items: ReadonlyArray<{ readonly postId: string; readonly status: string }>) => {
  const outcomes = await waitFor(
    "outbox rows left unpublished",
    () =>
      withDb(world, async (c) => {
        if ((await c.query("SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1")).rows.length > 0) return undefined
        const rows = (
          await c.query<{ postId: string; events: Array<string> }>(
            `SELECT data->>'postId' AS "postId", array_agg(event ORDER BY created_at) AS events FROM outbox
             WHERE event IN ('post.published', 'post.unconfirmed', 'post.failed') GROUP BY 1`
          )
        ).rows
        return new Map(rows.map((r) => [r.postId, r.events]))
      }),
    60_000
  )
  expect(items.filter((i) => outcomes.get(i.postId)?.join() !== (i.status === "published" ? "post.published" : "post.unconfirmed"))).toEqual([])
}

/** `count` workspaces named `<label> <n>`, each with a channel on the built-in test network and one on the simulated Mastodon. */
export const workspacesOnTwoNetworks = (services: SeparateServices, sim: Simulator, label: string, count: number) =>
  Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const ws = await services.createWorkspace(`${label} ${n}`)
      const channel = async (network: string) =>
        (
          await services.createChannel({
            workspaceId: ws.workspaceId,
            network,
            name: `${network} ${n}`,
            customerId: null,
            postingTimes: [],
            ...(network === "test" ? {} : { credentials: await seedAccount(sim, network) })
          })
        ).channelId
      return { ...ws, channels: [await channel("test"), await channel("mastodon")] as const }
    })
  )

/** One post on each channel of each workspace, the n-th workspace's due at `dueAt(n)`, its content `<label> <n>.<c> <run>`. */
export const scheduleOnEachChannel = (
  workspaces: Awaited<ReturnType<typeof workspacesOnTwoNetworks>>,
  label: string,
  run: string,
  dueAt: (n: number) => Date
) =>
  Promise.all(
    workspaces.flatMap(({ api, channels, workspaceId }, n) =>
      channels.map(async (channelId, c) => {
        const content = `${label} ${n}.${c} ${run}`
        const r = await api.post("/public/v1/posts", {
          type: "schedule",
          date: dueAt(n).toISOString(),
          posts: [{ integration: { id: channelId }, value: [{ content }] }]
        })
        expect(r.status, r.text).toBe(200)
        return { workspaceId, content }
      })
    )
  )
