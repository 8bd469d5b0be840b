import { Option, type ParseResult, type Schema, SchemaAST } from "effect"

/**
 * Turns a Schema decode failure of a request into one plain sentence naming the field,
 * e.g. `posts[0].value[0].content is required.` or `status must be draft or schedule.`
 * Schema's own text (type names, every union member, the value sent, a server temp path
 * of a multipart part) never reaches a client: a client needs the one field to fix and
 * what it may hold. Two readers share the rule: `fieldProblem` for bodies a service
 * decodes itself (POST /posts), `decodeIssueProblem` for what HttpApi decoded.
 */

const ExpectedId: unique symbol = Symbol.for("domain/posts/Expected")

/** Every message `expecting` gives starts so; anything else is Schema's own text. */
const MUST_BE = "must be "

/** Whether an issue lies inside the value (a field or an element of it), not in the value itself. */
const goesDeeper = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Pointer":
      return true
    case "Refinement":
    case "Transformation":
      return issue.kind !== "Predicate" && issue.kind !== "Transformation" && goesDeeper(issue.issue)
    case "Composite":
      return (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).some(goesDeeper)
    default:
      return false
  }
}

/**
 * Annotates a schema with what a client must send, used as `<field> must be <expected>.`
 * The same words become the schema's message where the value itself is wrong, so a
 * failure HttpApi decodes reads the same; a problem deeper inside keeps its own field.
 */
export const expecting = <A, I, R>(schema: Schema.Schema<A, I, R>, expected: string): Schema.Schema<A, I, R> =>
  schema.annotations({
    [ExpectedId]: expected,
    message: (issue) => {
      const own = !goesDeeper(issue)
      return { message: own ? `${MUST_BE}${expected}` : "", override: own }
    }
  })

const expectedOf = (ast: SchemaAST.AST): string | undefined => Option.getOrUndefined(SchemaAST.getAnnotation<string>(ExpectedId)(ast))

interface Found {
  readonly path: ReadonlyArray<PropertyKey>
  readonly missing: boolean
  readonly expected: string | undefined
}

const asArray = (path: ParseResult.Path): ReadonlyArray<PropertyKey> => (typeof path === "object" ? path : [path])

/** The most useful leaf: the deepest one, so a union reports the member the value was meant for. */
const find = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, outer: string | undefined): Found => {
  switch (issue._tag) {
    case "Missing":
      return { path, missing: true, expected: undefined }
    case "Pointer":
      return find(issue.issue, [...path, ...asArray(issue.path)], undefined)
    case "Refinement":
    case "Transformation": {
      const expected = expectedOf(issue.ast) ?? outer
      const inner = issue.kind === "Predicate" || issue.kind === "Transformation" ? undefined : issue.issue
      return inner === undefined ? { path, missing: false, expected } : find(inner, path, expected)
    }
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      const own = expectedOf(issue.ast) ?? outer
      if (!SchemaAST.isUnion(issue.ast)) {
        const first: ParseResult.ParseIssue | undefined = issues[0]
        return first === undefined ? { path, missing: false, expected: own } : find(first, path, own)
      }
      const found = issues.map((i) => find(i, path, undefined))
      const deepest = found.reduce<Found | undefined>((best, f) => (best === undefined || f.path.length > best.path.length ? f : best), undefined)
      if (deepest !== undefined && deepest.path.length > path.length) return deepest
      // the value fits no member: say what the first described member expects (null and undefined have none)
      return { path, missing: false, expected: own ?? found.map((f) => f.expected).find((e) => e !== undefined) }
    }
    case "Type":
    case "Forbidden":
      return { path, missing: false, expected: expectedOf(issue.ast) ?? outer }
    case "Unexpected":
      return { path, missing: false, expected: undefined }
  }
}

/** `posts[0].value[1].content` */
export const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`), "")

/** One sentence for the first problem of a decode failure; `root` names the body itself. */
export const fieldProblem = (error: ParseResult.ParseError, root: string): string => {
  const found = find(error.issue, [], undefined)
  const field = found.path.length === 0 ? root : fieldPath(found.path)
  if (found.missing) return `${field} is required.`
  return found.expected !== undefined ? `${field} must be ${found.expected}.` : `${field} is not valid.`
}

/** One issue of a failure as HttpApi reports it (ParseResult.ArrayFormatterIssue). */
export interface DecodeIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * One sentence for a failure HttpApi decoded (body, query, path, headers, multipart):
 * the deepest issue names the field; only `expecting`'s words say what is allowed.
 * `root` names the whole request body when the issue is about it.
 */
export const decodeIssueProblem = (issues: ReadonlyArray<DecodeIssue>, root: string): string => {
  const deepest = issues.reduce<DecodeIssue | undefined>((best, i) => (best === undefined || i.path.length > best.path.length ? i : best), undefined)
  if (deepest === undefined) return `${root} is not valid.`
  const field = deepest.path.length === 0 ? root : fieldPath(deepest.path)
  if (deepest._tag === "Missing") return `${field} is required.`
  if (deepest._tag === "Unexpected") return `${field} is not a field of this request.`
  return deepest.message.startsWith(MUST_BE) ? `${field} ${deepest.message}.` : `${field} is not valid.`
}
