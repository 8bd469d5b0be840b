import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { NetworkAnswer, PublishAnswer } from "../adapter.js"
import { SearchAnswer } from "../adapter.js"
import { type ContainerCode, type ContainerNetwork, type ContainerPlan, publishInSteps, searchWithContainer } from "../metaContainers.js"
import { classifyGraph } from "../metaGraph.js"

/**
 * The container steps Instagram and Threads share (services/networks/metaContainers.ts),
 * against a network whose every answer the test chooses: what is made, when, and never twice.
 */

const response = (status: number, body: unknown): NetworkAnswer => ({
  _tag: "Response",
  response: { url: "https://graph.example/", status, headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify(body)) }
})

/** A network whose `createFails(n)` answers the n-th create call instead of making a container. */
const fakeNetwork = (script: {
  readonly createFails?: (n: number) => NetworkAnswer | undefined
  readonly status?: (id: string) => ContainerCode
}) => {
  const created: Array<Readonly<Record<string, string>>> = []
  const published: Array<string> = []
  let calls = 0
  const net: ContainerNetwork = {
    name: "Instagram",
    create: (fields) =>
      Effect.sync(() => {
        const failure = script.createFails?.(++calls)
        if (failure !== undefined) return failure
        created.push(fields)
        return response(200, { id: `c${created.length}` })
      }),
    status: (id) => Effect.succeed([Option.some({ code: script.status?.(id) ?? "FINISHED", reason: "" }), response(200, {})] as const),
    publish: (id) =>
      Effect.sync(() => {
        published.push(id)
        return response(200, { id: `m-${id}` })
      }),
    classify: classifyGraph("Instagram", () => "https://www.instagram.com/"),
    permalink: (id) => Effect.succeed(`https://www.instagram.com/p/${id}/`),
    capFull: Effect.succeed(Option.none()),
    findPublished: Effect.succeed(SearchAnswer.NotFound())
  }
  return { net, created, published }
}

const plan: ContainerPlan = {
  files: Effect.succeed([
    { url: "https://files.example/1.jpg", video: false, alt: "" },
    { url: "https://files.example/2.jpg", video: false, alt: "" }
  ]),
  single: (file) => ({ image_url: file?.url ?? "" }),
  child: (file) => ({ image_url: file.url, is_carousel_item: "true" }),
  parent: (ids) => ({ media_type: "CAROUSEL", children: ids.join(",") })
}

const run = (e: Effect.Effect<PublishAnswer>) => Effect.runPromise(e)

describe("container steps", () => {
  it("a carousel whose items are made but not the carousel keeps the items; the next step makes only the carousel", async () => {
    const fake = fakeNetwork({
      createFails: (n) => (n === 3 ? response(503, { error: { message: "Service temporarily unavailable", code: 2 } }) : undefined)
    })
    const first = await run(publishInSteps(fake.net, plan, null))
    if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
    expect(first.progress).toEqual({ phase: "children", childIds: ["c1", "c2"] })
    const second = await run(publishInSteps(fake.net, plan, first.progress))
    expect(second).toMatchObject({ _tag: "Published", releaseId: "m-c3" })
    expect(fake.created.map((f) => f["media_type"] ?? "item")).toEqual(["item", "item", "CAROUSEL"])
    expect(fake.published).toEqual(["c3"])
  })

  it("a carousel Instagram refuses to make ends rejected with its reason, nothing published", async () => {
    const fake = fakeNetwork({
      createFails: (n) =>
        n === 3 ? response(400, { error: { message: "(#100) The carousel must have between 2 and 10 children", code: 100 } }) : undefined
    })
    const answer = await run(publishInSteps(fake.net, plan, null))
    expect(answer._tag === "Rejected" && answer.message).toContain("between 2 and 10 children")
    expect(fake.published).toEqual([])
  })

  it("a carousel item still processing waits; an item in ERROR rejects with the network's words", async () => {
    const busy = fakeNetwork({ status: (id) => (id === "c2" ? "IN_PROGRESS" : "FINISHED") })
    expect(await run(publishInSteps(busy.net, plan, null))).toMatchObject({ _tag: "Pending", kind: "processing", progress: { phase: "children" } })
    const broken = fakeNetwork({ status: (id) => (id === "c1" ? "ERROR" : "FINISHED") })
    expect((await run(publishInSteps(broken.net, plan, null)))._tag).toBe("Rejected")
    expect(broken.published).toEqual([])
  })

  it("a container that expires again right after being made is not made a third time in the same call", async () => {
    const fake = fakeNetwork({ status: () => "EXPIRED" })
    const answer = await run(
      publishInSteps(fake.net, { ...plan, files: Effect.succeed([{ url: "u", video: false, alt: "" }]) }, { phase: "container", containerId: "old" })
    )
    expect(answer._tag).toBe("Pending")
    expect(fake.created).toHaveLength(1)
  })

  it("search with progress: the container first", async () => {
    const finished = fakeNetwork({ status: () => "FINISHED" })
    const listed = Effect.succeed(SearchAnswer.NotFound())
    expect((await Effect.runPromise(searchWithContainer(finished.net, { phase: "container", containerId: "c9" }, listed)))._tag).toBe("Unfinished")
    const live = fakeNetwork({ status: () => "PUBLISHED" })
    expect((await Effect.runPromise(searchWithContainer(live.net, { phase: "container", containerId: "c9" }, listed)))._tag).toBe("CannotTell")
    expect((await Effect.runPromise(searchWithContainer(live.net, null, listed)))._tag).toBe("NotFound")
  })
})
