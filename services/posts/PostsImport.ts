import { Effect, Either } from "effect"
import { Errors, type TooManyRequests } from "../../domain/errors.js"
import { checkIdempotencyKey, decideWithStored, MAX_IDEMPOTENCY_KEY_LENGTH, type StoredAnswer } from "../../domain/idempotency.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { readImportFile, requestsOf, type ImportFormat } from "../../domain/posts/importFile.js"
import { mediaIdsOf, pathsToResolve } from "../../domain/posts/mediaByPath.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import type { ImportRow } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo } from "../media/mediaRepo.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { refusedRow, savedRow, type ImportRowAnswer } from "./importAnswers.js"
import { requestHashOf } from "./newPosts.js"
import { checkGiven } from "./postCheck.js"
import { Posts } from "./Posts.js"

export interface ImportAnswer {
  readonly dryRun: boolean
  readonly saved: number
  readonly refused: number
  readonly rows: ReadonlyArray<ImportRowAnswer>
}

/** The key of row n under the file's Idempotency-Key: a replay of the file saves no row twice. */
export const rowKey = (key: string, row: number) => `${key}:row-${row}`
/** Room for `:row-5000` after the file's key. */
const ROW_SUFFIX_ROOM = 9

/**
 * POST /posts/import (docs/api.md, "Beyond the reference API"): every row is read into the
 * POST /posts body it stands for and checked with the rules of POST /posts (postCheck.ts)
 * before anything is saved. A dry run answers there. Otherwise `admit` takes the file's
 * requests from the rate window (one per 100 rows; refused: 429 and nothing saved), and the
 * valid rows go to the workspace's actor as ONE command, ImportPosts, which saves them as
 * one batch (services/posts/importedPosts.ts: all commit together or none), each row under
 * the key `<key>:row-<n>` and written as POST /posts writes it.
 */
export class PostsImport extends Effect.Service<PostsImport>()("posts/PostsImport", {
  effect: Effect.gen(function* () {
    const posts = yield* Posts
    const channelsRepo = yield* ChannelsRepo
    const mediaRepo = yield* MediaRepo
    const idempotency = yield* IdempotencyRepo

    const run = Effect.fnUntraced(function* (input: {
      readonly text: string
      readonly format: ImportFormat
      readonly dryRun: boolean
      readonly idempotencyKey: string | null
      readonly admit: (requests: number) => Effect.Effect<void, TooManyRequests>
    }) {
      const { workspaceId } = yield* CurrentPrincipal
      const key = input.idempotencyKey
      if (key !== null) {
        const refused = checkIdempotencyKey(key)
        if (refused !== null) return yield* Effect.fail(refused)
        if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH - ROW_SUFFIX_ROOM) {
          return yield* Effect.fail(
            Errors.badRequest(`The Idempotency-Key of an import is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH - ROW_SUFFIX_ROOM} characters.`)
          )
        }
      }
      const read = yield* readImportFile(input.text, input.format)
      const now = new Date()
      // every row read as POST /posts reads its body
      const normalized = read.map((r) => {
        if ("refused" in r) return { row: r.row, result: Either.left(r.refused) }
        return { row: r.row, body: r.body, result: normalizePostBody(r.body, now) }
      })
      const givens = normalized.flatMap((n) => (Either.isRight(n.result) ? [n.result.right] : []))
      const channelIds = [...new Set(givens.flatMap((g) => g.entries.map((e) => e.channelId)))]
      const { channels, library, byPathItems } = yield* Effect.all(
        {
          channels: channelsRepo.findManyVersioned({ workspaceId, ids: channelIds }),
          library: mediaRepo.findMany(workspaceId, [...new Set(givens.flatMap(mediaIdsOf))]),
          byPathItems: mediaRepo.findByPaths(workspaceId, [...new Set(givens.flatMap((g) => pathsToResolve(g, () => false)))])
        },
        { concurrency: "unbounded" }
      ).pipe(storageDefects)
      const byPath = new Map(byPathItems.map((m) => [m.path, m.id] as const))
      const knownFiles = [...library, ...byPathItems]
      const channelById = new Map(channels.map((c) => [c.id, c]))
      const check = (given: NormalizedPost) => {
        const own = [...new Set(given.entries.map((e) => e.channelId))].flatMap((id) => {
          const c = channelById.get(id)
          return c === undefined ? [] : [c]
        })
        const result = checkGiven(given, own, knownFiles, byPath)
        if (result.unknownChannel) return Errors.channelNotFound()
        return result.problems.length > 0 ? Errors.fixBeforeSaving(result.problems) : null
      }
      const checked = normalized.map((n) => {
        if (Either.isLeft(n.result)) return { row: n.row, refused: n.result.left }
        const refused = check(n.result.right)
        return refused === null ? { row: n.row, body: n.body } : { row: n.row, refused }
      })

      const answer = (rows: ReadonlyArray<ImportRowAnswer>): ImportAnswer => ({
        dryRun: input.dryRun,
        saved: rows.filter((r) => r.status === "saved").length,
        refused: rows.filter((r) => r.status === "refused").length,
        rows
      })
      if (input.dryRun) {
        return answer(
          checked.map(
            (c): ImportRowAnswer => ("refused" in c && c.refused !== undefined ? refusedRow(c.row, c.refused) : { row: c.row, status: "valid" })
          )
        )
      }
      // the whole file counts before any row is saved: over the window nothing is
      yield* input.admit(requestsOf(read.length))
      // a file sent again under its key: the rows kept already are answered here in one query,
      // as POST /posts would answer them (a replay, or 409 for a row changed since)
      const kept =
        key === null
          ? new Map<string, StoredAnswer>()
          : yield* idempotency.findMany(
              workspaceId,
              checked.flatMap((c) => ("body" in c ? [rowKey(key, c.row)] : [])),
              now
            )
      // rows kept already are answered here; the others' files given by path are found or
      // imported first, at the edge, as POST /posts does (the actor never waits on the network)
      const settled = new Map<number, ImportRowAnswer>()
      const toSave: Array<ImportRow> = []
      yield* Effect.forEach(
        checked,
        (c) => {
          if ("refused" in c && c.refused !== undefined) return Effect.sync(() => void settled.set(c.row, refusedRow(c.row, c.refused)))
          const rowKeyOf = key === null ? null : rowKey(key, c.row)
          const stored = rowKeyOf === null ? undefined : kept.get(rowKeyOf)
          if (stored !== undefined) {
            const outcome = decideWithStored(stored, requestHashOf(c.body))
            return Effect.sync(
              () =>
                void settled.set(
                  c.row,
                  outcome._tag === "Reused" ? refusedRow(c.row, Errors.idempotencyKeyReused()) : savedRow(c.row, outcome.response)
                )
            )
          }
          return posts.filesOfImportedRow(c.body, rowKeyOf).pipe(
            Effect.match({
              onFailure: (e) => void settled.set(c.row, refusedRow(c.row, e)),
              onSuccess: (mediaByPath) => void toSave.push({ row: c.row, body: c.body, idempotencyKey: rowKeyOf, mediaByPath })
            })
          )
        },
        // most rows give no file by path and cost nothing here; the others wait on the network
        { concurrency: 16, discard: true }
      )
      // every row left saved as one batch: all of them commit together, or none
      if (toSave.length > 0) {
        const saved = yield* posts.saveImported(toSave.sort((a, b) => a.row - b.row))
        for (const r of saved) settled.set(r.row, r)
      }
      const rows = checked.map((c) => settled.get(c.row) ?? refusedRow(c.row, Errors.idempotencyRunning()))
      return answer(rows)
    })

    return { run: (input: Parameters<typeof run>[0]) => run(input).pipe(withSpan("PostsImport.run"), policyRequire("posts.write")) }
  }),
  // Posts is the gateway's own (services/gateway/server.ts builds it once for every edge)
  dependencies: [ChannelsRepo.Live, MediaRepo.Live, IdempotencyRepo.Live]
}) {}
