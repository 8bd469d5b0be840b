import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { networkAdapterMakers } from "../../../services/networks/registry.js"
import { simulatedNetworkModules } from "../../support/simulator/registry.js"
import { networkRegistries } from "../../support/networkRegistry.js"

const root = join(import.meta.dirname, "..", "..", "..")

describe("adding a network is one folder: the registries are derived from services/networks/", () => {
  it.each(networkRegistries(root).map((file) => [file.path, file.text] as const))("%s is what `npm run networks` writes", (path, text) => {
    expect(readFileSync(join(root, path), "utf8"), `run npm run networks`).toBe(text)
  })

  it("every folder's adapters and simulators are registered", () => {
    expect(networkAdapterMakers.length).toBeGreaterThanOrEqual(16)
    const simulated = simulatedNetworkModules.map((m) => m.network)
    expect(new Set(simulated).size).toBe(simulated.length)
    expect(simulated).toEqual(expect.arrayContaining(["instagram", "instagram-standalone", "linkedin", "linkedin-page", "x"]))
  })
})
