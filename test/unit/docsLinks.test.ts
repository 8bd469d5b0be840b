import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * The docs are the front door: every relative link of README.md, docs/*.md and the wings'
 * maps (services/<wing>/README.md) leads to a file of the repository (and, with an anchor,
 * to a heading of it), and every comment that cites a page as `docs/<page>.md` names one
 * that exists, with the section it quotes.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

const markdownPages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  // the maps of a wing (services/media/README.md, …)
  ...readdirSync(join(root, "services"))
    .map((name) => `services/${name}/README.md`)
    .filter((path) => existsSync(join(root, path)))
]

const sourceFolders = ["services", "domain", "protocol", "test"]

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(join(root, folder)).flatMap((name) => {
    const path = `${folder}/${name}`
    if (name === "node_modules") return []
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : []
  })

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slugOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const headingsOf = (path: string): Array<string> =>
  readFileSync(join(root, path), "utf8")
    .split("\n")
    .flatMap((line) => {
      const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
      return heading?.[1] === undefined ? [] : [heading[1]]
    })

/** The anchors of a page's headings, a repeated heading numbered as GitHub does (-1, -2, …). */
const anchorsOf = (path: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const heading of headingsOf(path)) {
    const slug = slugOf(heading)
    const count = seen.get(slug) ?? 0
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
    seen.set(slug, count + 1)
  }
  return anchors
}

/** Relative links `[text](target)` outside code blocks. */
const linksOf = (path: string): Array<string> => {
  let fenced = false
  return readFileSync(join(root, path), "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.trimStart().startsWith("```")) fenced = !fenced
      if (fenced || line.startsWith("    ")) return []
      return [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "")
    })
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

/** A comment's text as one line, so a citation wrapped over two comment lines reads whole. */
const unwrapped = (source: string) => source.replace(/\n\s*(?:\*(?!\/)|\/\/)?\s*/g, " ")

describe("links of README.md, docs/ and the wings' maps", () => {
  it("finds the pages", () => {
    expect(markdownPages).toContain("docs/architecture.md")
    expect(markdownPages).toContain("docs/api.md")
  })

  for (const page of markdownPages) {
    it(`${page}: every relative link resolves to a file, and its anchor to a heading`, () => {
      const broken = linksOf(page).flatMap((target) => {
        const [file = "", anchor] = target.split("#")
        const resolved = file === "" ? page : relative(root, resolve(root, dirname(page), file))
        if (!existsSync(join(root, resolved))) return [`${target} (no file ${resolved})`]
        if (anchor === undefined || anchor === "" || !resolved.endsWith(".md")) return []
        return anchorsOf(resolved).has(anchor) ? [] : [`${target} (no heading #${anchor} in ${resolved})`]
      })
      expect(broken).toEqual([])
    })
  }
})

describe("documents cited in code", () => {
  const files = sourceFolders.flatMap(sourceFiles)

  it("reads the sources", () => {
    expect(files).toContain("services/main.ts")
  })

  it("every docs/… path in a source file names a file of the repository", () => {
    const missing = files.flatMap((file) =>
      [...readFileSync(join(root, file), "utf8").matchAll(/\bdocs\/[\w./-]*\.md\b/g)]
        .map((m) => m[0])
        .filter((cited) => !existsSync(join(root, cited)))
        .map((cited) => `${file}: ${cited}`)
    )
    expect(missing).toEqual([])
  })

  it(`a citation (docs/<page>.md, "<section>") quotes a heading of that page`, () => {
    const missing = files.flatMap((file) =>
      [...unwrapped(readFileSync(join(root, file), "utf8")).matchAll(/\b(docs\/[\w./-]*\.md),\s*"([^"]+)"/g)].flatMap((m) => {
        const [, page = "", section = ""] = m
        if (!existsSync(join(root, page))) return [] // reported by the test above
        return headingsOf(page).includes(section) ? [] : [`${file}: ${page}, "${section}"`]
      })
    )
    expect(missing).toEqual([])
  })

  // a migration on main is never edited, comments included (docs/house-rules.md, "Migrations"):
  // the older ones keep the citations of their day
  const frozenMigration = (file: string) => /^services\/platform\/migrations\/\d{4}_/.test(file)

  it("no comment cites a document outside the repository (migrations, frozen as written, aside)", () => {
    const self = relative(root, fileURLToPath(import.meta.url))
    const outside = files.filter(
      (file) => file !== self && !frozenMigration(file) && /\bDESIGN\b|\.\.\/shared\//.test(readFileSync(join(root, file), "utf8"))
    )
    expect(outside).toEqual([])
  })
})
