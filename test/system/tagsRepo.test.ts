import { Effect, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { TagRef } from "../../domain/posts/normalizedPost.js"
import { makeTagsRepo } from "../../services/posts/tagsRepo.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Tags of POST /posts (spec: body table, `tags`) resolved for the whole list at once:
 * the work of one command grows with its size in memory, not in round trips while the
 * workspace's actor waits.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("tagsrepo")
  sys = await startServices(world, ["gateway"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

/** Resolves `refs` and counts the SQL statements it took (each runs in a `sql.execute` span). */
const resolve = async (workspaceId: string, refs: ReadonlyArray<TagRef>) => {
  let statements = 0
  const ids = await sys.runtime.runPromise(
    Effect.gen(function* () {
      const base = yield* Effect.tracer
      const counting = Tracer.make({
        context: base.context,
        span: (name, ...rest) => {
          if (name === "sql.execute") statements++
          return base.span(name, ...rest)
        }
      })
      const repo = yield* makeTagsRepo
      return yield* repo.resolve(workspaceId, refs).pipe(Effect.withTracer(counting))
    })
  )
  return { ids, statements }
}

const names = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query("SELECT name FROM tags WHERE workspace_id = $1", [workspaceId])).rows.map((r) => r.name as string).sort())

describe("tags: one lookup and one insert for the whole list", () => {
  it("100 new tags take 2 statements, and 100 known ones 1", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    const refs = Array.from(
      { length: 100 },
      (_, i): TagRef => (i % 2 === 0 ? { kind: "ref", value: `tag ${i}` } : { kind: "create", value: `v${i}`, label: `Tag ${i}` })
    )
    const first = await resolve(workspaceId, refs)
    expect(first.ids).toHaveLength(100)
    expect(first.statements).toBe(2)
    const again = await resolve(
      workspaceId,
      refs.map((r) => (r.kind === "create" ? { kind: "ref", value: r.label } : r))
    )
    expect(again.statements).toBe(1)
    expect(again.ids).toEqual(first.ids)
  })

  it("matches by id or by name with case aside; repeats count once; the first spelling names a new tag", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    const [alpha] = (await resolve(workspaceId, [{ kind: "ref", value: "Alpha" }])).ids
    const { ids } = await resolve(workspaceId, [
      { kind: "ref", value: alpha! },
      { kind: "ref", value: "ALPHA" },
      { kind: "create", value: "beta", label: "Beta" },
      { kind: "ref", value: "bEtA" },
      { kind: "create", value: "a", label: "Gamma" },
      { kind: "ref", value: "a" }
    ])
    expect(ids[0]).toBe(alpha)
    expect(ids).toHaveLength(4) // Alpha, Beta, Gamma, a
    expect(await names(workspaceId)).toEqual(["Alpha", "Beta", "Gamma", "a"])
  })

  it("no tags: no statement", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    expect(await resolve(workspaceId, [])).toEqual({ ids: [], statements: 0 })
  })

  it("a tag of another workspace is not matched by its id", async () => {
    const theirs = await sys.admin.createWorkspace()
    const mine = await sys.admin.createWorkspace()
    const [secret] = (await resolve(theirs.workspaceId, [{ kind: "ref", value: "Secret" }])).ids
    const { ids } = await resolve(mine.workspaceId, [{ kind: "ref", value: secret! }])
    expect(ids).toHaveLength(1)
    expect(ids[0]).not.toBe(secret)
  })
})
