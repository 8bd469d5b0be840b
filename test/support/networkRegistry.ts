import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The registries of network adapters and simulators, derived from the folders under
 * services/networks/ (docs/networks.md, "Adding a network"): a folder with an `index.ts`
 * exporting `adapters` adds them to the service, and each of its `*simulator.ts` /
 * `*Simulator.ts` files exporting `simulators` adds them to the simulator. `npm run
 * networks` writes both files; test/unit/networks/registryDerived.test.ts fails when
 * they are out of date.
 */

const NETWORKS = "services/networks"
export const ADAPTER_REGISTRY = `${NETWORKS}/registry.ts`
export const SIMULATOR_REGISTRY = "test/support/simulator/registry.ts"

const HEADER = "// Written by `npm run networks` from the folders under services/networks/: do not edit by hand."

const exportsConst = (path: string, name: string) => new RegExp(`^export const ${name}\\b`, "m").test(readFileSync(path, "utf8"))

/** A folder's name as a JavaScript identifier (`linkedin-page` → `linkedinPage`). */
const identifierOf = (name: string) => name.replace(/[-.]([a-z0-9])/g, (_, c: string) => c.toUpperCase())

export interface RegistryFile {
  readonly path: string
  readonly text: string
}

export const networkRegistries = (root: string): ReadonlyArray<RegistryFile> => {
  const folders = readdirSync(join(root, NETWORKS), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
  const withAdapters = folders.filter((folder) => {
    const index = join(root, NETWORKS, folder, "index.ts")
    return existsSync(index) && exportsConst(index, "adapters")
  })
  const simulatorFiles = folders.flatMap((folder) =>
    readdirSync(join(root, NETWORKS, folder))
      .filter((file) => /[sS]imulator\.ts$/.test(file) && exportsConst(join(root, NETWORKS, folder, file), "simulators"))
      .sort()
      .map((file) => ({ folder, file, name: identifierOf(`${folder}-${file.replace(/\.ts$/, "")}`) }))
  )
  const adapters = [
    HEADER,
    ...withAdapters.map((folder) => `import { adapters as ${identifierOf(folder)} } from "./${folder}/index.js"`),
    "",
    "/** Every network adapter in a folder under services/networks/ (the test network is added by NetworkAdapters). */",
    "export const networkAdapterMakers = [",
    withAdapters.map((f) => `  ...${identifierOf(f)}`).join(",\n"),
    "] as const",
    ""
  ].join("\n")
  const simulators = [
    HEADER,
    'import type { NetworkModule } from "./core.js"',
    ...simulatorFiles.map((s) => `import { simulators as ${s.name} } from "../../../${NETWORKS}/${s.folder}/${s.file.replace(/\.ts$/, ".js")}"`),
    "",
    "/** Every simulated network in a folder under services/networks/. */",
    "export const simulatedNetworkModules: ReadonlyArray<NetworkModule> = [",
    simulatorFiles.map((s) => `  ...${s.name}`).join(",\n"),
    "]",
    ""
  ].join("\n")
  return [
    { path: ADAPTER_REGISTRY, text: adapters },
    { path: SIMULATOR_REGISTRY, text: simulators }
  ]
}
