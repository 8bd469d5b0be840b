import { ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeIssueProblem, expecting } from "../../domain/fieldProblem.js"
import { testNetwork } from "../../domain/networks/test-network.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { mayNameFileByPath, mediaIdsOf, pathsToResolve, withMediaByPath } from "../../domain/posts/mediaByPath.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import { settingsChangeProblems } from "../../domain/posts/rules.js"

/** What HttpApi answers for a decode failure, read the way the gateway reads it. */
const sentenceFor = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(value)
  if (result._tag === "Right") throw new Error("decoded")
  return decodeIssueProblem(ParseResult.ArrayFormatter.formatErrorSync(result.left), "The request")
}

describe("a decode failure HttpApi reports is one plain sentence (domain/fieldProblem.ts)", () => {
  const Body = Schema.Struct({
    status: expecting(Schema.Literal("draft", "schedule"), "draft or schedule"),
    page: Schema.optional(expecting(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 9)), "a whole number from 1")),
    settings: Schema.optional(expecting(Schema.Record({ key: Schema.String, value: Schema.Unknown }), "an object")),
    items: Schema.optional(expecting(Schema.Array(Schema.Struct({ text: expecting(Schema.String, "a string") })), "an array")),
    plain: Schema.optional(Schema.String)
  })

  it.each([
    [{ status: "later" }, "status must be draft or schedule."],
    [{}, "status is required."],
    [{ status: "draft", page: "x" }, "page must be a whole number from 1."],
    [{ status: "draft", page: "0" }, "page must be a whole number from 1."],
    [{ status: "draft", settings: "loud" }, "settings must be an object."],
    [{ status: "draft", items: 5 }, "items must be an array."],
    [{ status: "draft", items: [{ text: 1 }] }, "items[0].text must be a string."],
    [{ status: "draft", items: [{}] }, "items[0].text is required."],
    // no words given: never Schema's own text
    [{ status: "draft", plain: { path: "/tmp/upload-123/file" } }, "plain is not valid."]
  ])("%j → %s", (value, sentence) => {
    expect(sentenceFor(Body, value)).toBe(sentence)
  })
})

const post = (body: unknown): NormalizedPost => {
  const read = normalizePostBody(body, new Date())
  if (read._tag === "Left") throw new Error(read.left.error)
  return read.right
}
const CHANNEL = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
const KNOWN = "0d1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
const IMPORTED = "1e1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

describe("media given by path (domain/posts/mediaByPath.ts)", () => {
  const body = post({
    posts: [
      {
        integration: { id: CHANNEL },
        value: [
          {
            content: "a",
            image: [
              { id: "cli-1", path: "https://a.example/v.png" },
              { id: KNOWN, path: "https://a.example/k.png" }
            ]
          },
          { content: "b", image: [{ path: "https://a.example/v.png" }, { path: "file:///etc/passwd" }] }
        ]
      }
    ]
  })
  const isKnown = (id: string) => id === KNOWN

  it("only http(s) addresses of files the library does not know by id are to be found or imported, each once", () => {
    expect(pathsToResolve(body, isKnown)).toEqual(["https://a.example/v.png"])
    expect(mediaIdsOf(body)).toEqual([KNOWN])
  })

  it("the resolved files point at their library items; known ids and unresolved paths stay", () => {
    const resolved = withMediaByPath(body, isKnown, new Map([["https://a.example/v.png", IMPORTED]]))
    expect(resolved.entries[0].items.map((i) => i.media.map((m) => m.id))).toEqual([
      [IMPORTED, KNOWN],
      [IMPORTED, null]
    ])
  })

  it("a body with no `path` text anywhere gives no file by path (the gateway then skips reading it); any `path` text may", () => {
    const raw = (image: ReadonlyArray<unknown>, settings: Record<string, unknown> = {}) => ({
      type: "schedule",
      posts: [{ integration: { id: CHANNEL }, value: [{ content: "a", image }], settings }]
    })
    expect(mayNameFileByPath(raw([]))).toBe(false)
    expect(mayNameFileByPath(raw([KNOWN, { id: KNOWN, alt: "x" }, { id: KNOWN, path: null }]))).toBe(false)
    expect(mayNameFileByPath(raw([{ id: "cli-1", path: "https://a.example/v.png" }]))).toBe(true)
    expect(mayNameFileByPath(raw([], { path: "/somewhere" }))).toBe(true)
    expect(mayNameFileByPath("text")).toBe(false)
    // every body that names a file by path to resolve is seen
    const withPaths = { posts: [{ integration: { id: CHANNEL }, value: [{ content: "b", media: [{ path: "https://a.example/v.png" }] }] }] }
    expect(mayNameFileByPath(withPaths)).toBe(true)
    expect(pathsToResolve(post(withPaths), isKnown)).toEqual(["https://a.example/v.png"])
  })
})

describe("PUT /posts/{id}/settings keys (settingsChangeProblems)", () => {
  it("a key the network does not have is named with the network's keys; values are checked as POST /posts checks them", () => {
    expect(settingsChangeProblems("Alpha", testNetwork, { colour: "red" }, { colour: "red" })).toEqual([
      "Alpha: colour is not a setting of Test network. Its settings: audience, outcome, slowMs, processSteps, processMs, media_rules."
    ])
    expect(settingsChangeProblems("Alpha", testNetwork, { audience: "nobody" }, { audience: "nobody" })).toEqual([
      "Alpha: the setting audience must be one of everyone, followers."
    ])
    expect(settingsChangeProblems("Alpha", testNetwork, { audience: "everyone" }, { audience: "everyone", legacy: 1 })).toEqual([])
  })

  it("a network without settings says so", () => {
    expect(settingsChangeProblems("B", { ...testNetwork, name: "Bare", settings: [] }, { x: 1 }, { x: 1 })).toEqual([
      "B: x is not a setting of Bare. Bare has no settings."
    ])
  })
})
