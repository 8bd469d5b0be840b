import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { networks } from "../../domain/networks/index.js"
import { client, decoded, errorOf, type Answer } from "../support/http.js"
import { answerOf } from "../support/answers.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

/** Spec: GET /networks, GET /rules/{identifier}; Resources → Network settings and rules. */

let world: TestWorld
let sys: RunningServices
let apiKey: string

beforeAll(async () => {
  world = await createWorld("networks")
  sys = await startServices(world, ["gateway"])
  apiKey = (await sys.admin.createWorkspace("Networks")).apiKey
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

// the catalog is the spec's network table as data; the same table drives these cases
const identifiers = networks.map((n) => n.identifier)

const listedOf = (res: Answer) => decoded(res, answerOf("networks", "listNetworks"))
const rulesOf = (res: Answer) => decoded(res, answerOf("networks", "networkRules"))
/** The settings of a network that has some (the others answer a sentence instead). */
const settingsListOf = <S>(settings: string | ReadonlyArray<S>): ReadonlyArray<S> => {
  if (typeof settings === "string") throw new Error(`No settings: ${settings}`)
  return settings
}

describe("GET /networks", () => {
  it("lists every network, each with exactly {identifier, name, maxLength, comments, needs, publishes}", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    const listed = listedOf(res)
    expect(listed.map((n) => n.identifier)).toEqual(identifiers)
    for (const item of listed) {
      expect(Object.keys(item).sort()).toEqual(["comments", "identifier", "maxLength", "name", "needs", "publishes"])
      expect(typeof item.identifier).toBe("string")
      expect(typeof item.name).toBe("string")
      expect(Number.isInteger(item.maxLength)).toBe(true)
      expect(typeof item.comments).toBe("boolean")
      expect([null, "media", "video"]).toContain(item.needs)
    }
  })

  it("includes the built-in `test` network", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    expect(listedOf(res)).toContainEqual({ identifier: "test", name: "Test network", maxLength: 500, comments: true, needs: null, publishes: true })
  })

  it.each(networks.map((n) => [n.identifier, n] as const))("%s is listed with its catalog values", async (identifier, n) => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const item = listedOf(res).find((i) => i.identifier === identifier)
    // every network of the catalog publishes but MeWe, which has no public posting API
    expect(item).toEqual({ identifier, name: n.name, maxLength: n.maxLength, comments: n.comments, needs: n.needs, publishes: identifier !== "mewe" })
  })

  it("networks are listed even without server keys (this server has none)", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const needKeys = networks.filter((n) => n.serverKeys.length > 0).map((n) => n.identifier)
    expect(needKeys.length).toBeGreaterThan(0)
    for (const id of needKeys) expect(listedOf(res).map((n) => n.identifier)).toContain(id)
  })

  it("identifiers are unique", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const ids = listedOf(res).map((n) => n.identifier)
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe("GET /rules/{identifier}", () => {
  it.each(networks.map((n) => [n.identifier, n] as const))("%s: 200 {rules, maxLength, settings}", async (identifier, n) => {
    const res = await client(sys.url, apiKey).get(`/public/v1/rules/${identifier}`)
    expect(res.status).toBe(200)
    const rules = rulesOf(res)
    expect(Object.keys(rules).sort()).toEqual(["maxLength", "rules", "settings"])
    expect(rules.rules.length).toBeGreaterThan(0)
    expect(rules.maxLength).toBe(n.maxLength)
    if (n.settings.length === 0) {
      expect(rules.settings).toBe("No additional settings required")
    } else {
      const settings = settingsListOf(rules.settings)
      expect(settings.map((s) => s.key)).toEqual(n.settings.map((s) => s.key))
      for (const s of settings) {
        const keys = ["help", "key", "label", "options", "type", ...(s.required === undefined ? [] : ["required"])].sort()
        expect(Object.keys(s).sort()).toEqual(keys)
        if (s.required !== undefined) expect(s.required).toBe(true)
        expect(Array.isArray(s.options)).toBe(true)
      }
    }
  })

  it("a network with required settings (x) marks them required: true", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/rules/x")
    const required = settingsListOf(rulesOf(res).settings)
      .filter((s) => s.required === true)
      .map((s) => s.key)
    expect(required).toEqual(["who_can_reply_post"])
  })

  it("a network without settings (linkedin): settings is the text `No additional settings required`", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/rules/linkedin")
    expect(rulesOf(res).settings).toBe("No additional settings required")
  })

  it.each(["no-such-network", "twitter", "X ", "test2"])("an unknown identifier (%j): 404 `Unknown network`", async (identifier) => {
    const res = await client(sys.url, apiKey).get(`/public/v1/rules/${encodeURIComponent(identifier)}`)
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ error: "Unknown network", msg: "Unknown network" })
  })

  it("needs a key like every endpoint: 401 without one", async () => {
    const res = await client(sys.url).get("/public/v1/rules/x")
    expect(res.status).toBe(401)
    expect(errorOf(res).error).toBe("No API Key found")
  })
})
