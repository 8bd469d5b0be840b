import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { networkRegistries } from "./networkRegistry.js"

/** `npm run networks`: writes the adapter and simulator registries from the folders under services/networks/. */
const root = join(import.meta.dirname, "..", "..")
for (const file of networkRegistries(root)) {
  writeFileSync(join(root, file.path), file.text)
  console.log(`wrote ${file.path}`)
}
