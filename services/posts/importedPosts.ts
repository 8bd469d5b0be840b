import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Either, Exit, Option } from "effect"
import { Errors, isApiError } from "../../domain/errors.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { mediaIdsOf } from "../../domain/posts/mediaByPath.js"
import type { ImportRow } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo } from "../media/mediaRepo.js"
import { policyRequire } from "../platform/policy.js"
import { SavepointRepo } from "../platform/savepointRepo.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { refusedRow, savedRow, type ImportRowAnswer } from "./importAnswers.js"
import { type makeNewPosts, requestHashOf } from "./newPosts.js"
import { checkGiven } from "./postCheck.js"

type NewPosts = Effect.Effect.Success<ReturnType<typeof makeNewPosts>>

/** Whether a row's failure is Postgres refusing one of its statements (a constraint, a row changed meanwhile). */
const refusedByStorage = (cause: Cause.Cause<unknown>) =>
  Option.exists(Cause.failureOption(cause), (e) => e instanceof SqlError) || Option.exists(Cause.dieOption(cause), (d) => d instanceof SqlError)

/**
 * POST /posts/import's save, run by PostWriter in the workspace's mailbox (ImportPosts):
 * the file's rows in ONE fenced transaction with the command's record, so they commit
 * together or not at all (a host that lost its shard, a crash, a lost connection leaves no
 * row saved, and the gateway's resend of the command, or the client's of the file, saves
 * them all). Each row is decided as POST /posts decides it (the same reads, rules and
 * transaction-path write, newPosts.ts saveChecked) on the channels and files of the whole
 * file read once; a row refused by the rules writes nothing, a row Postgres refuses while
 * writing rolls back to its own savepoint, and either is answered refused while the others
 * go on. A row key that holds an answer already (another owner kept it first) is answered
 * from it. Events are published after the commit (Outbox), files prepared after it.
 */
export const makeImportedPosts = (newPosts: NewPosts) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    const channelsRepo = yield* ChannelsRepo
    const mediaRepo = yield* MediaRepo
    const savepoints = yield* SavepointRepo

    const importRows = Effect.fnUntraced(function* (rows: ReadonlyArray<ImportRow>, answeredBefore: ReadonlyArray<ImportRowAnswer>) {
      const principal = yield* CurrentPrincipal
      const { workspaceId } = principal
      const now = new Date()
      const read = rows.map((r) => ({ row: r, given: normalizePostBody(r.body, now) }))
      const givens = read.flatMap((r) => (Either.isRight(r.given) ? [r.given.right] : []))
      const channelIds = [...new Set(givens.flatMap((g) => g.entries.map((e) => e.channelId)))]
      const mediaIds = [...new Set([...givens.flatMap(mediaIdsOf), ...rows.flatMap((r) => Object.values(r.mediaByPath))])]
      /** What to start once committed: the files of each saved row's channels. */
      const prepareAfter: Array<Effect.Effect<void>> = []

      const batch = Effect.gen(function* () {
        // read in the transaction, after its fence check: what the rows are decided on
        const channels = channelIds.length === 0 ? [] : yield* channelsRepo.findManyVersioned({ workspaceId, ids: channelIds })
        const library = yield* mediaRepo.findMany(workspaceId, mediaIds)
        const channelById = new Map(channels.map((c) => [c.id, c]))
        const answers: Array<ImportRowAnswer> = [...answeredBefore]
        for (const { row, given } of read) {
          if (Either.isLeft(given)) {
            answers.push(refusedRow(row.row, given.left))
            continue
          }
          const ids = given.right.entries.map((e) => e.channelId)
          const own = [...new Set(ids)].flatMap((id) => channelById.get(id) ?? [])
          const checked = checkGiven(given.right, own, library, new Map(Object.entries(row.mediaByPath)))
          if (checked.unknownChannel) {
            answers.push(refusedRow(row.row, Errors.channelNotFound()))
            continue
          }
          if (checked.problems.length > 0) {
            answers.push(refusedRow(row.row, Errors.fixBeforeSaving(checked.problems)))
            continue
          }
          const { post, context, libraryById } = checked
          const requestHash = requestHashOf(row.body)
          const exit = yield* savepoints.attempt(
            newPosts.saveChecked({
              principal,
              post,
              channels: own,
              libraryById,
              channelIds: ids,
              key: row.idempotencyKey,
              requestHash,
              now,
              ...newPosts.prepared(principal, undefined, post, context, own, libraryById)
            })
          )
          if (Exit.isSuccess(exit)) {
            answers.push(savedRow(row.row, exit.value.body))
            prepareAfter.push(newPosts.prepareFilesAhead(post, own, libraryById))
            continue
          }
          const failure = Cause.failureOption(exit.cause)
          if (Option.isSome(failure) && failure.value._tag === "KeyTaken" && row.idempotencyKey !== null) {
            // another owner kept an answer for the row's key first: answered from it, as POST /posts would
            const kept = yield* Effect.either(newPosts.keptAnswer(workspaceId, row.idempotencyKey, requestHash))
            answers.push(
              Either.isLeft(kept)
                ? refusedRow(row.row, kept.left)
                : Option.isSome(kept.right)
                  ? savedRow(row.row, kept.right.value.body)
                  : refusedRow(row.row, Errors.idempotencyRunning())
            )
          } else if (Option.isSome(failure) && isApiError(failure.value)) {
            answers.push(refusedRow(row.row, failure.value))
          } else if (refusedByStorage(exit.cause)) {
            // its savepoint is rolled back: the row is refused alone, like a post changed while it was saved
            yield* Effect.logWarning(`import: row ${row.row} refused by the database`, exit.cause)
            answers.push(refusedRow(row.row, Errors.changedMeanwhile()))
          } else {
            // anything else (a lost lease, a bug) loses the whole batch: nothing of the file commits
            return yield* Effect.die(Cause.squash(exit.cause))
          }
        }
        // the whole file's answer, in row order: it is also what the command's record keeps for a copy
        return answers.sort((a, b) => a.row - b.row)
      })

      const answers = yield* transactions.run(batch)
      yield* Effect.forEach(prepareAfter, (start) => start, { discard: true })
      return answers
    })

    /** ImportPosts: the rows to save (their keys claimed at admission), with those admission answered already. */
    const importPosts = (rows: ReadonlyArray<ImportRow>, answeredBefore: ReadonlyArray<ImportRowAnswer>) =>
      importRows(rows, answeredBefore).pipe(storageDefects, withSpan("PostWriter.importPosts"), policyRequire("posts.write"))

    return { importPosts }
  })
