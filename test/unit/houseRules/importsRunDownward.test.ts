import { describe, expect, it } from "vitest"
import { importsOf, resolveRelative, type Source, sourcesUnder } from "./sources.js"

/**
 * The floors of the house, lowest first (docs/house-rules.md, "Floors"). A file imports
 * from its own floor or one below, never from above: a lower floor never knows what is
 * built on it, so it can be read, tested and changed alone.
 */
const FEATURES = ["posts", "channels", "media", "people", "oauth", "notifications", "analytics", "shortLinks", "slots", "share", "webhooks"]
const DEPLOYABLES = ["gateway", "actors", "scheduler", "publisher", "admin"]
const FLOORS: ReadonlyArray<{ readonly name: string; readonly holds: (path: string) => boolean }> = [
  { name: "domain", holds: (p) => p.startsWith("domain/") },
  { name: "protocol", holds: (p) => p.startsWith("protocol/") },
  { name: "services/platform", holds: (p) => p.startsWith("services/platform/") },
  { name: "services/sharding", holds: (p) => p.startsWith("services/sharding/") },
  { name: "services/repos, services/networks", holds: (p) => p.startsWith("services/repos/") || p.startsWith("services/networks/") },
  { name: "features", holds: (p) => FEATURES.some((f) => p.startsWith(`services/${f}/`)) },
  { name: "deployables", holds: (p) => DEPLOYABLES.some((d) => p.startsWith(`services/${d}/`)) },
  { name: "services/main.ts, services/cli.ts", holds: (p) => p === "services/main.ts" || p === "services/cli.ts" }
]
const floorOf = (path: string): number => FLOORS.findIndex((floor) => floor.holds(path))

/** domain/ is pure: besides its own files it imports only effect (and its subpaths). */
const domainMayImport = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/")

const relativeImports = (source: Source) =>
  importsOf(source)
    .filter((i) => i.specifier.startsWith("."))
    .map((i) => resolveRelative(source.path, i.specifier))

describe("imports run only downward: domain < protocol < platform < sharding < repos, networks < features < deployables < main, cli", () => {
  const sources = sourcesUnder("domain", "protocol", "services")

  it("every file is on a floor (a new folder is given one here and in docs/house-rules.md)", () => {
    const homeless = sources.filter((s) => floorOf(s.path) === -1).map((s) => s.path)
    expect(homeless, `files on no floor:\n${homeless.join("\n")}`).toEqual([])
  })

  it("reads the imports it judges (services/main.ts imports from services/platform)", () => {
    const main = sources.find((s) => s.path === "services/main.ts")
    expect(main === undefined ? [] : relativeImports(main)).toContain("services/platform/config.ts")
  })

  it("no file imports from a floor above its own", () => {
    const upward = sources.flatMap((source) => {
      const floor = floorOf(source.path)
      return relativeImports(source)
        .filter((target) => floorOf(target) > floor)
        .map((target) => `${source.path} → ${target}  (${FLOORS[floor]?.name} imports ${FLOORS[floorOf(target)]?.name})`)
    })
    expect(upward, `imports from a higher floor:\n${upward.join("\n")}`).toEqual([])
  })

  it("domain imports only effect and other domain files", () => {
    const outside = sources
      .filter((s) => s.path.startsWith("domain/"))
      .flatMap((source) =>
        importsOf(source)
          .filter((i) =>
            i.specifier.startsWith(".") ? !resolveRelative(source.path, i.specifier).startsWith("domain/") : !domainMayImport(i.specifier)
          )
          .map((i) => `${source.path} → ${i.specifier.startsWith(".") ? resolveRelative(source.path, i.specifier) : i.specifier}`)
      )
    expect(outside, `domain imports beyond effect:\n${outside.join("\n")}`).toEqual([])
  })
})
