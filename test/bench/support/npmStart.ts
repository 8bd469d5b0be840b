import { readFileSync } from "node:fs"

/**
 * Node's flags as `npm start` gives them (package.json's start script: `… exec node <flags>
 * dist/services/main.js`), so that a bench of the npm start layout runs the service exactly
 * as a user does, and one of separate processes with the same runtime settings.
 */
export const npmStartNodeFlags = (): ReadonlyArray<string> => {
  const manifest: unknown = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"))
  const start =
    typeof manifest === "object" &&
    manifest !== null &&
    "scripts" in manifest &&
    typeof manifest.scripts === "object" &&
    manifest.scripts !== null &&
    "start" in manifest.scripts &&
    typeof manifest.scripts.start === "string"
      ? manifest.scripts.start
      : ""
  const flags = /exec node ((?:--\S+ )*)dist\/services\/main\.js/.exec(start)?.[1]
  if (flags === undefined) throw new Error(`package.json's start script does not run "exec node [flags] dist/services/main.js": ${start}`)
  return flags.split(" ").filter((f) => f !== "")
}
