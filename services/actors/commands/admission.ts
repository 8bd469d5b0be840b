import { Effect, Either, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { checkIdempotencyKey } from "../../../domain/idempotency.js"
import { postsPerHour } from "../../../domain/rateWindow.js"
import type { Principal } from "../../../domain/roles.js"
import type { CreatePosts, ImportPosts, ImportRow } from "../../../protocol/actors.js"
import { refusedRow, savedRow, type ImportRowAnswer } from "../../posts/importAnswers.js"
import { PostWriter, requestHashOf, type PostsAnswer } from "../../posts/PostWriter.js"
import { RateWindows } from "../rateWindows.js"
import { WorkspaceMemory } from "../workspaceMemory.js"

/**
 * POST /posts admission, outside the workspace's mailbox: the rate window counts every
 * request (replays too). A key already queued or running answers 409 at once, unless its
 * answer is already kept (parallel replays of a finished request all replay). Succeeds
 * with the release of the claimed key, or with the replayed answer.
 */
export const admitCreatePosts = Effect.fnUntraced(function* (principal: Principal, command: CreatePosts) {
  const memory = yield* WorkspaceMemory
  const writer = yield* PostWriter
  const windows = yield* RateWindows
  // a row of an import was counted with its file (one request per 100 rows)
  const decision = command.counted ? ({ allowed: true } as const) : yield* windows.take(principal.workspaceId, "posts", postsPerHour)
  if (!decision.allowed) return yield* Effect.fail(Errors.tooManyRequests(decision.retryAfterSeconds))
  const key = command.idempotencyKey
  if (key === null) return { release: Effect.void, replay: Option.none<PostsAnswer>() }
  const refused = checkIdempotencyKey(key)
  if (refused !== null) return yield* Effect.fail(refused)
  if (!memory.claimKey(principal.workspaceId, key)) {
    const kept = yield* writer.keptAnswer(principal.workspaceId, key, requestHashOf(command.body))
    if (Option.isNone(kept)) return yield* Effect.fail(Errors.idempotencyRunning())
    return { release: Effect.void, replay: kept }
  }
  return { release: Effect.sync(() => memory.releaseKey(principal.workspaceId, key)), replay: Option.none<PostsAnswer>() }
})

/**
 * POST /posts/import admission, in the workspace's mailbox (dispatch.ts says why): the
 * file took its requests from the rate window at the gateway. Each row's key is claimed as
 * POST /posts claims one; a row whose key is in flight already (a POST /posts waiting with
 * it) is answered here from its kept answer, else 409 like POST /posts. Succeeds with the
 * rows left to save, those answered, and the release of the claimed keys.
 */
export const admitImportPosts = Effect.fnUntraced(function* (principal: Principal, command: ImportPosts) {
  const memory = yield* WorkspaceMemory
  const writer = yield* PostWriter
  const claimed: Array<string> = []
  const toSave: Array<ImportRow> = []
  const answered: Array<ImportRowAnswer> = []
  const release = Effect.sync(() => claimed.forEach((key) => memory.releaseKey(principal.workspaceId, key)))
  for (const row of command.rows) {
    const key = row.idempotencyKey
    if (key === null) toSave.push(row)
    else if (memory.claimKey(principal.workspaceId, key)) {
      claimed.push(key)
      toSave.push(row)
    } else {
      const kept = yield* Effect.either(writer.keptAnswer(principal.workspaceId, key, requestHashOf(row.body))).pipe(Effect.onError(() => release))
      answered.push(
        Either.isLeft(kept)
          ? refusedRow(row.row, kept.left)
          : Option.isSome(kept.right)
            ? savedRow(row.row, kept.right.value.body)
            : refusedRow(row.row, Errors.idempotencyRunning())
      )
    }
  }
  return { release, toSave, answered }
})
