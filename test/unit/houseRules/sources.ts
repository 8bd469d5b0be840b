import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** The repository's root, so that every path printed is one a reader can open. */
export const root = fileURLToPath(new URL("../../../", import.meta.url))

export interface Source {
  /** Relative to the repository root, with forward slashes (services/posts/Posts.ts). */
  readonly path: string
  readonly text: string
  readonly ast: ts.SourceFile
}

const listTs = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : listTs(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

/** Every TypeScript file under these folders (relative to the root), with its syntax tree (comments are not code to the rules). */
export const sourcesUnder = (...dirs: ReadonlyArray<string>): ReadonlyArray<Source> =>
  dirs
    .flatMap(listTs)
    .sort()
    .map((path) => {
      const text = readFileSync(join(root, path), "utf8")
      let ast: ts.SourceFile | undefined
      // parsed when a rule first asks (a rule on lines needs none)
      return {
        path,
        text,
        get ast() {
          ast ??= ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
          return ast
        }
      }
    })

/** Every node of a file, depth first. */
export const nodesOf = (source: Source): ReadonlyArray<ts.Node> => {
  const found: Array<ts.Node> = []
  const visit = (node: ts.Node) => {
    found.push(node)
    ts.forEachChild(node, visit)
  }
  visit(source.ast)
  return found
}

/** `path:line` of a node, for messages a reader can jump to. */
export const at = (source: Source, node: ts.Node): string =>
  `${source.path}:${source.ast.getLineAndCharacterOfPosition(node.getStart(source.ast)).line + 1}`

/** The module specifiers a file imports or re-exports (static, `import type` and `import("…")` alike). */
export interface Import {
  readonly specifier: string
  readonly node: ts.Node
}

export const importsOf = (source: Source): ReadonlyArray<Import> =>
  nodesOf(source).flatMap((node): ReadonlyArray<Import> => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      return [{ specifier: node.moduleSpecifier.text, node }]
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments
      return first !== undefined && ts.isStringLiteralLike(first) ? [{ specifier: first.text, node }] : []
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      return [{ specifier: node.argument.literal.text, node }]
    }
    return []
  })

/** A relative specifier resolved to a repository path (`../platform/db.js` from services/posts/x.ts → services/platform/db.ts). */
export const resolveRelative = (from: string, specifier: string): string =>
  relative(root, join(root, from, "..", specifier))
    .split("\\")
    .join("/")
    .replace(/\.js$/, ".ts")

/**
 * Whether a file under services/ is part of the built service: a network folder also holds
 * its simulator (`*simulator.ts`) and its tests (`*.test.ts`), which tsconfig.build.json
 * leaves out (docs/networks.md, "Adding a network").
 */
export const isBuiltForProduction = (path: string): boolean => !/\.test\.ts$/.test(path) && !/[sS]imulator\.ts$/.test(path)
