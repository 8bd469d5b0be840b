import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, errorOf, type Answer } from "../support/http.js"
import { answerOf } from "../support/answers.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken } from "../support/tokens.js"

/**
 * Spec: Free slots (GET /find-slot, GET /find-slot/{id}) and Limits 7, over real HTTP.
 * The expected slot is computed here independently: for each local day from yesterday on,
 * each posting time is turned into UTC by trying the zone's candidate offsets and keeping
 * the one Intl confirms (toLocaleString), then the first at least 5 minutes ahead and not
 * taken wins.
 */

let world: TestWorld
let sys: RunningServices
const MINUTE = 60_000
const DAY = 86_400_000

beforeAll(async () => {
  world = await createWorld("findslot")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

/** UTC instant of a local wall time (ms read as UTC) in a zone, confirmed with toLocaleString. */
const zoneInstant = (zone: string, wall: number): number => {
  const wallOf = (t: number) => Date.parse(`${new Date(t).toLocaleString("sv-SE", { timeZone: zone }).replace(" ", "T")}Z`)
  const hits = [-14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    .map((h) => wall - h * 3600_000)
    .filter((t) => wallOf(t) === wall)
  return Math.min(...hits)
}

const expectedSlot = (local: { offset: number } | { zone: string }, times: ReadonlyArray<string>, taken: ReadonlyArray<number>) => {
  const now = Date.now()
  const toUtc = (wall: number) => ("offset" in local ? wall - local.offset * MINUTE : zoneInstant(local.zone, wall))
  const today = Math.floor(now / DAY) * DAY
  const candidates: Array<number> = []
  for (let day = today - DAY; day <= today + 4 * DAY; day += DAY) {
    for (const t of times) candidates.push(toUtc(day + (Number(t.slice(0, 2)) * 60 + Number(t.slice(3))) * MINUTE))
  }
  const free = candidates.sort((a, b) => a - b).find((c) => c >= now + 5 * MINUTE && !taken.includes(c))
  return new Date(free ?? 0).toISOString()
}

/** The answer, checked against the expectation computed just before and just after it (a minute may turn meanwhile). */
const expectSlot = async (call: () => Promise<Answer>, expected: () => string) => {
  const before = expected()
  const res = await call()
  const after = expected()
  expect(res.status).toBe(200)
  const { date } = decoded(res, answerOf("slots", "findSlot"))
  expect([before, after]).toContain(date)
  return date
}

describe("GET /find-slot and /find-slot/{id}", () => {
  let apiKey: string
  let workspaceId: string
  let morning: string
  let plain: string
  beforeAll(async () => {
    ;({ apiKey, workspaceId } = await sys.admin.createWorkspace("Slots", "team"))
    await sys.admin.createUser({ workspaceId, email: "owner@slots.test", password: "password1", role: "owner", timezone: "America/New_York" })
    ;({ channelId: morning } = await sys.admin.createChannel({
      workspaceId,
      network: "test",
      name: "Morning",
      customerId: null,
      postingTimes: ["07:15", "18:45"]
    }))
    ;({ channelId: plain } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Plain", customerId: null, postingTimes: [] }))
  })

  it("tzOffsetMinutes: posting times as local times of that offset, 9:00 for a channel without any", async () => {
    const api = client(sys.url, apiKey)
    for (const offset of [-840, -300, 0, 330, 840]) {
      await expectSlot(
        () => api.get(`/public/v1/find-slot?tzOffsetMinutes=${offset}`),
        () => expectedSlot({ offset }, ["07:15", "18:45", "09:00"], [])
      )
      await expectSlot(
        () => api.get(`/public/v1/find-slot/${plain}?tzOffsetMinutes=${offset}`),
        () => expectedSlot({ offset }, ["09:00"], [])
      )
    }
  })

  it("no offset: the workspace key uses the owner's profile time zone (DST followed)", async () => {
    await expectSlot(
      () => client(sys.url, apiKey).get(`/public/v1/find-slot/${morning}`),
      () => expectedSlot({ zone: "America/New_York" }, ["07:15", "18:45"], [])
    )
  })

  it("no offset: a person's token uses their own profile's zone; none set: UTC", async () => {
    const { userId: tokyo } = await sys.admin.createUser({
      workspaceId,
      email: "tokyo@slots.test",
      password: "password1",
      role: "editor",
      timezone: "Asia/Tokyo"
    })
    const { userId: nowhere } = await sys.admin.createUser({
      workspaceId,
      email: "utc@slots.test",
      password: "password1",
      role: "editor",
      timezone: null
    })
    const asTokyo = client(sys.url, await issueUserToken(world, workspaceId, tokyo))
    const asUtc = client(sys.url, await issueUserToken(world, workspaceId, nowhere))
    await expectSlot(
      () => asTokyo.get(`/public/v1/find-slot/${morning}`),
      () => expectedSlot({ zone: "Asia/Tokyo" }, ["07:15", "18:45"], [])
    )
    await expectSlot(
      () => asUtc.get(`/public/v1/find-slot/${morning}`),
      () => expectedSlot({ offset: 0 }, ["07:15", "18:45"], [])
    )
  })

  it("times taken by queued or draft posts on those channels are skipped", async () => {
    const api = client(sys.url, apiKey)
    const first = await expectSlot(
      () => api.get(`/public/v1/find-slot/${morning}?tzOffsetMinutes=60`),
      () => expectedSlot({ offset: 60 }, ["07:15", "18:45"], [])
    )
    expect((await api.post("/public/v1/posts", { type: "schedule", date: first, content: "Queued at the slot", channels: [morning] })).status).toBe(
      200
    )
    const second = await expectSlot(
      () => api.get(`/public/v1/find-slot/${morning}?tzOffsetMinutes=60`),
      () => expectedSlot({ offset: 60 }, ["07:15", "18:45"], [Date.parse(first)])
    )
    expect(
      (await api.post("/public/v1/posts", { type: "draft", date: second, content: "A draft at the next slot", channels: [morning] })).status
    ).toBe(200)
    await expectSlot(
      () => api.get(`/public/v1/find-slot/${morning}?tzOffsetMinutes=60`),
      () => expectedSlot({ offset: 60 }, ["07:15", "18:45"], [Date.parse(first), Date.parse(second)])
    )
    // the other channel's posts do not take its times
    await expectSlot(
      () => api.get(`/public/v1/find-slot/${plain}?tzOffsetMinutes=60`),
      () => expectedSlot({ offset: 60 }, ["09:00"], [])
    )
  })

  it.each(["841", "-841", "1.5", "abc", "", "99999"])("tzOffsetMinutes=%j: 400 naming the range", async (raw) => {
    for (const path of ["/public/v1/find-slot", `/public/v1/find-slot/${plain}`]) {
      const res = await client(sys.url, apiKey).get(`${path}?tzOffsetMinutes=${encodeURIComponent(raw)}`)
      expect(res.status).toBe(400)
      expect(errorOf(res).error).toMatch(/^tzOffsetMinutes must be a whole number from -840 to 840/)
      expect(errorOf(res).msg).toBe(errorOf(res).error)
    }
  })

  it("an invalid id: 400; an unknown channel or another workspace's: 404 alike", async () => {
    const api = client(sys.url, apiKey)
    expect((await api.get("/public/v1/find-slot/not-a-uuid")).json).toMatchObject({ error: "One of the ids is not valid." })
    const other = await sys.admin.createWorkspace("Other")
    const { channelId: theirs } = await sys.admin.createChannel({
      workspaceId: other.workspaceId,
      network: "test",
      name: "Theirs",
      customerId: null,
      postingTimes: []
    })
    const unknown = await api.get(`/public/v1/find-slot/${crypto.randomUUID()}`)
    const foreign = await api.get(`/public/v1/find-slot/${theirs}`)
    expect([unknown.status, foreign.status]).toEqual([404, 404])
    expect(foreign.json).toEqual(unknown.json)
  })
})
