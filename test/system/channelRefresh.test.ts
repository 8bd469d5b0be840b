import { Effect, Either, Option, Redacted, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Credentials, type NetworkAdapter, PublishAnswer, Refresh, SearchAnswer, Statistics } from "../../services/networks/adapter.js"
import { freshCredentials, openCredentials, sealCredentials } from "../../services/networks/credentials.js"
import { client, decoded } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { answerOf } from "../support/answers.js"

/**
 * A channel's tokens are refreshed before use (services/networks/credentials.ts):
 * new credentials are saved sealed; a refresh the network refuses disconnects the channel
 * (refreshNeeded, `channel.disconnected` and its notification, in one transaction); two
 * jobs never spend one single-use refresh token; a network that cannot be asked keeps the
 * channel as it is. A refresh that asked the network is recorded on the channel with its result.
 */

let world: TestWorld
let sys: RunningServices
const secretKey = Redacted.make("test-secret-key")

beforeAll(async () => {
  world = await createWorld("chanrefresh")
  sys = await startServices(world, ["gateway"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const TokenCredentials = Schema.Struct({ token: Schema.String, expiresAt: Schema.Number })

/** An adapter whose refresh follows `behaviour`; counts the refresh calls that reach its "network". */
const refreshingAdapter = (behaviour: "rotate" | "refuse" | "down") => {
  let networkCalls = 0
  const adapter: NetworkAdapter = {
    identifier: "test",
    connect: { kind: "form" },
    verify: () => Effect.die("unused"),
    refresh: (credentials) =>
      Effect.gen(function* () {
        const current = Schema.decodeUnknownSync(TokenCredentials)(Redacted.value(credentials))
        if (current.expiresAt > Date.now() + 5 * 60_000) return Refresh.Unchanged()
        networkCalls++
        yield* Effect.sleep("50 millis") // the network takes a while: a second job would overlap
        if (behaviour === "refuse") return Refresh.Failed({ reason: "invalid_grant" })
        if (behaviour === "down") return Refresh.Unavailable({ reason: "503" })
        return Refresh.Refreshed({ credentials: { token: `${current.token}+`, expiresAt: Date.now() + 2 * 3600_000 } })
      }),
    publish: () => Effect.succeed(PublishAnswer.NoAnswer({ reason: "unused" })),
    publishFollowUp: () => Effect.succeed(PublishAnswer.NoAnswer({ reason: "unused" })),
    search: () => Effect.succeed(SearchAnswer.NotFound()),
    statistics: {
      channel: () => Effect.succeed(Statistics.Missing({ message: "" })),
      post: () => Effect.succeed(Statistics.Missing({ message: "" }))
    },
    runTool: () => Effect.succeed({}),
    classify: () => PublishAnswer.NoAnswer({ reason: "unused" })
  }
  return { adapter, networkCalls: () => networkCalls }
}

const newChannel = async (credentials: Credentials) => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Expiring", customerId: null, postingTimes: [] })
  await withDb(world, (c) => c.query("UPDATE channels SET credentials = $2 WHERE id = $1", [channelId, sealCredentials(secretKey, credentials)]))
  return { workspaceId, channelId, api: client(sys.url, apiKey) }
}

const stored = (channelId: string) =>
  withDb(world, async (c) => {
    const row = (
      await c.query<{ credentials: Buffer | null; refresh_needed: boolean }>("SELECT credentials, refresh_needed FROM channels WHERE id = $1", [
        channelId
      ])
    ).rows[0]!
    return {
      credentials: Option.map(openCredentials(secretKey, row.credentials), Redacted.value),
      refreshNeeded: row.refresh_needed,
      sealed: row.credentials
    }
  })

const fresh = (channelId: string, adapter: NetworkAdapter) => sys.runtime.runPromise(freshCredentials(channelId, adapter))

/** The last refresh that asked the network, as the channel records it (GET /integrations/{id}/health). */
const lastRefresh = (channelId: string) =>
  withDb(world, async (c) => {
    const row = (
      await c.query<{ at: Date | null; result: string | null }>(
        "SELECT last_refresh_at AS at, last_refresh_result AS result FROM channels WHERE id = $1",
        [channelId]
      )
    ).rows[0]!
    return { asked: row.at !== null, result: row.result }
  })

describe("freshCredentials", () => {
  it("leaves credentials that do not expire soon alone, without asking the network", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 3600_000 })
    const network = refreshingAdapter("rotate")
    const result = await fresh(w.channelId, network.adapter)
    expect(Either.isRight(result) && Redacted.value(result.right)).toMatchObject({ token: "t1" })
    expect(network.networkCalls()).toBe(0)
    expect(await lastRefresh(w.channelId)).toEqual({ asked: false, result: null })
  })

  it("refreshes expiring credentials and saves the new ones sealed (the column is not the JSON)", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 60_000 })
    const result = await fresh(w.channelId, refreshingAdapter("rotate").adapter)
    expect(Either.isRight(result) && Redacted.value(result.right)).toMatchObject({ token: "t1+" })
    const after = await stored(w.channelId)
    expect(after.credentials).toEqual(Option.some(expect.objectContaining({ token: "t1+" })))
    expect(after.sealed?.toString("utf8")).not.toContain("t1+")
    expect(await lastRefresh(w.channelId)).toEqual({ asked: true, result: "refreshed" })
  })

  it("two jobs at once spend the refresh token once: the second sees the new credentials", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 60_000 })
    const network = refreshingAdapter("rotate")
    const [a, b] = await Promise.all([fresh(w.channelId, network.adapter), fresh(w.channelId, network.adapter)])
    expect(network.networkCalls()).toBe(1)
    for (const r of [a, b]) expect(Either.isRight(r) && Redacted.value(r.right)).toMatchObject({ token: "t1+" })
  })

  it("a refused refresh disconnects the channel once: refreshNeeded, channel.disconnected and a notification", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 60_000 })
    const network = refreshingAdapter("refuse")
    const first = await fresh(w.channelId, network.adapter)
    expect(Either.isLeft(first) && first.left._tag).toBe("Disconnected")
    // the next use does not ask the network again: the channel must be reconnected
    const second = await fresh(w.channelId, network.adapter)
    expect(Either.isLeft(second) && second.left._tag).toBe("Disconnected")
    expect(network.networkCalls()).toBe(1)
    expect((await stored(w.channelId)).refreshNeeded).toBe(true)
    expect(await lastRefresh(w.channelId)).toEqual({ asked: true, result: "refused" })
    const channel = decoded(await w.api.get("/public/v1/integrations"), answerOf("account", "listIntegrations")).find((c) => c.id === w.channelId)
    expect(channel?.refreshNeeded).toBe(true)
    const events = await withDb(world, async (c) =>
      (await c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'channel.disconnected'", [w.workspaceId])).rows.map((r) => r.data)
    )
    expect(events).toEqual([{ channelId: w.channelId, provider: "test", name: "Expiring" }])
    const notes = decoded(await w.api.get("/public/v1/notifications"), answerOf("networks", "listNotifications")).notifications
    expect(notes).toHaveLength(1)
  })

  it("a network that cannot be asked keeps the channel connected and its credentials unchanged", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 60_000 })
    const result = await fresh(w.channelId, refreshingAdapter("down").adapter)
    expect(Either.isLeft(result) && result.left._tag).toBe("Unavailable")
    const after = await stored(w.channelId)
    expect(after.refreshNeeded).toBe(false)
    expect(after.credentials).toEqual(Option.some(expect.objectContaining({ token: "t1" })))
    expect(await lastRefresh(w.channelId)).toEqual({ asked: true, result: "unavailable" })
  })

  it("credentials sealed with another key are unreadable, not a crash", async () => {
    const w = await newChannel({ token: "t1", expiresAt: Date.now() + 3600_000 })
    await withDb(world, (c) =>
      c.query("UPDATE channels SET credentials = $2 WHERE id = $1", [w.channelId, sealCredentials(Redacted.make("another key"), { token: "x" })])
    )
    const result = await fresh(w.channelId, refreshingAdapter("rotate").adapter)
    expect(Either.isLeft(result) && result.left._tag).toBe("Unreadable")
  })
})
