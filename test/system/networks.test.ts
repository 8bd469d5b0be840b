import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { networks } from "../../domain/networks/index.js"
import { untypedClient as client, errorOf } from "../support/http.js"
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

describe("GET /networks", () => {
  it("lists every network, each with exactly {identifier, name, maxLength, comments, needs}", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(res.json.map((n: any) => n.identifier)).toEqual(identifiers)
    for (const item of res.json) {
      expect(Object.keys(item).sort()).toEqual(["comments", "identifier", "maxLength", "name", "needs"])
      expect(typeof item.identifier).toBe("string")
      expect(typeof item.name).toBe("string")
      expect(Number.isInteger(item.maxLength)).toBe(true)
      expect(typeof item.comments).toBe("boolean")
      expect([null, "media", "video"]).toContain(item.needs)
    }
  })

  it("includes the built-in `test` network", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    expect(res.json).toContainEqual({ identifier: "test", name: "Test network", maxLength: 500, comments: true, needs: null })
  })

  it.each(networks.map((n) => [n.identifier, n] as const))("%s is listed with its catalog values", async (identifier, n) => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const item = res.json.find((i: any) => i.identifier === identifier)
    expect(item).toEqual({ identifier, name: n.name, maxLength: n.maxLength, comments: n.comments, needs: n.needs })
  })

  it("networks are listed even without server keys (this server has none)", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const needKeys = networks.filter((n) => n.serverKeys.length > 0).map((n) => n.identifier)
    expect(needKeys.length).toBeGreaterThan(0)
    for (const id of needKeys) expect(res.json.map((n: any) => n.identifier)).toContain(id)
  })

  it("identifiers are unique", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/networks")
    const ids = res.json.map((n: any) => n.identifier)
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe("GET /rules/{identifier}", () => {
  it.each(networks.map((n) => [n.identifier, n] as const))("%s: 200 {rules, maxLength, settings}", async (identifier, n) => {
    const res = await client(sys.url, apiKey).get(`/public/v1/rules/${identifier}`)
    expect(res.status).toBe(200)
    expect(Object.keys(res.json).sort()).toEqual(["maxLength", "rules", "settings"])
    expect(typeof res.json.rules).toBe("string")
    expect(res.json.rules.length).toBeGreaterThan(0)
    expect(res.json.maxLength).toBe(n.maxLength)
    if (n.settings.length === 0) {
      expect(res.json.settings).toBe("No additional settings required")
    } else {
      expect(res.json.settings.map((s: any) => s.key)).toEqual(n.settings.map((s) => s.key))
      for (const s of res.json.settings) {
        const keys = ["help", "key", "label", "options", "type", ...(s.required === undefined ? [] : ["required"])].sort()
        expect(Object.keys(s).sort()).toEqual(keys)
        if (s.required !== undefined) expect(s.required).toBe(true)
        expect(Array.isArray(s.options)).toBe(true)
      }
    }
  })

  it("a network with required settings (x) marks them required: true", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/rules/x")
    const required = res.json.settings.filter((s: any) => s.required === true).map((s: any) => s.key)
    expect(required).toEqual(["who_can_reply_post"])
  })

  it("a network without settings (linkedin): settings is the text `No additional settings required`", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/rules/linkedin")
    expect(res.json.settings).toBe("No additional settings required")
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
