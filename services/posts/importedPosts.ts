import { randomBytes } from "node:crypto"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Either, Exit, Option } from "effect"
import { Errors, isApiError } from "../../domain/errors.js"
import { decideWithStored } from "../../domain/idempotency.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { mediaIdsOf } from "../../domain/posts/mediaByPath.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import { create } from "../../domain/posts/states.js"
import type { Principal } from "../../domain/roles.js"
import type { ImportRow } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo, type MediaForPost } from "../media/mediaRepo.js"
import { policyRequire } from "../platform/policy.js"
import { SavepointRepo } from "../platform/savepointRepo.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo, type ChannelRow } from "../repos/channelsRepo.js"
import { refusedRow, savedRow, type ImportRowAnswer } from "./importAnswers.js"
import { KeyTaken, type makeNewPosts, requestHashOf } from "./newPosts.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { PostStepsRepo } from "./postStepsRepo.js"
import { TagsRepo } from "./tagsRepo.js"
import { checkGiven } from "./postCheck.js"

type NewPosts = Effect.Effect.Success<ReturnType<typeof makeNewPosts>>

/** A row the rules accept, with what it writes. */
interface Accepted {
  readonly row: ImportRow
  readonly post: NormalizedPost
  readonly own: ReadonlyArray<ChannelRow>
  readonly libraryById: ReadonlyMap<string, MediaForPost>
  readonly channelIds: ReadonlyArray<string>
  readonly requestHash: string
  readonly plan: ReturnType<NewPosts["prepared"]>
}

/** What newPosts.saveChecked takes for an accepted row. */
const savingOf = (principal: Principal, a: Accepted, now: Date) => ({
  principal,
  post: a.post,
  channels: a.own,
  libraryById: a.libraryById,
  channelIds: a.channelIds,
  key: a.row.idempotencyKey,
  requestHash: a.requestHash,
  now,
  ...a.plan
})

/** Whether a row's failure is Postgres refusing one of its statements (a constraint, a row changed meanwhile). */
const refusedByStorage = (cause: Cause.Cause<unknown>) =>
  Option.exists(Cause.failureOption(cause), (e) => e instanceof SqlError) || Option.exists(Cause.dieOption(cause), (d) => d instanceof SqlError)

/**
 * POST /posts/import's save, run by PostWriter in the workspace's mailbox (ImportPosts):
 * the file's rows in ONE fenced transaction with the command's record, so they commit
 * together or not at all (a host that lost its shard, a crash, a lost connection leaves no
 * row saved, and the gateway's resend of the command, or the client's of the file, saves
 * them all). Each row is decided as POST /posts decides it (the same rules, newPosts.ts
 * prepared) on the channels and files of the whole file read once; a row refused by the
 * rules writes nothing. The rows accepted are written together, each table in a few
 * multi-row statements (postStepsRepo.insertNewPosts: the rows applyStep writes), their keys
 * in one. Should Postgres refuse any of it (or another owner have kept an answer for a row's
 * key), that attempt rolls back to its savepoint and the rows are written one at a time by
 * POST /posts' transaction path (saveChecked), each in a savepoint of its own: the row
 * refused rolls back alone and is answered refused, a row whose key holds an answer is
 * answered from it, the others go on. Events are published after the commit (Outbox),
 * files prepared after it. `writeTogetherFirst` false: one at a time from the start (a
 * test compares the rows of both ways).
 */
export const makeImportedPosts = (newPosts: NewPosts, writeTogetherFirst = true) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    const channelsRepo = yield* ChannelsRepo
    const mediaRepo = yield* MediaRepo
    const savepoints = yield* SavepointRepo
    const steps = yield* PostStepsRepo
    const tags = yield* TagsRepo
    const idempotency = yield* IdempotencyRepo

    /** The rows written in bulk (postStepsRepo.insertNewPosts), their keys kept in one statement; fails as a whole. */
    const writeTogether = (accepted: ReadonlyArray<Accepted>, now: Date) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const { workspaceId } = principal
        const tagIds = new Map<string, ReadonlyArray<string>>()
        for (const a of accepted) {
          const refs = JSON.stringify(a.post.tags)
          if (!tagIds.has(refs)) tagIds.set(refs, yield* tags.resolve(workspaceId, a.post.tags))
        }
        const bodies = new Map<number, unknown>()
        // an edit (a row naming a group) is written as POST /posts writes it, one at a time
        for (const a of accepted.filter((a) => a.post.groupId !== null)) {
          bodies.set(a.row.row, (yield* newPosts.saveChecked(savingOf(principal, a, now))).body)
        }
        const fresh = accepted
          .filter((a) => a.post.groupId === null)
          .map((a) => ({
            accepted: a,
            groupId: crypto.randomUUID(),
            shareToken: randomBytes(24).toString("base64url"),
            fields: a.plan.fields,
            entries: a.plan.entries,
            tagIds: tagIds.get(JSON.stringify(a.post.tags)) ?? [],
            step: create({
              type: a.post.type,
              date: a.post.date,
              now,
              channelIds: a.channelIds,
              approvalRequired: a.plan.approvalRequired,
              actor: principal.actor
            })
          }))
        const lives = yield* steps.insertNewPosts(workspaceId, fresh)
        fresh.forEach((f, i) => bodies.set(f.accepted.row.row, f.accepted.plan.answerOf(f.groupId, f.shareToken, lives[i] ?? [])))
        const keyed = fresh.flatMap((f) =>
          f.accepted.row.idempotencyKey === null
            ? []
            : [{ key: f.accepted.row.idempotencyKey, requestHash: f.accepted.requestHash, statusCode: 200, body: bodies.get(f.accepted.row.row) }]
        )
        const taken = yield* idempotency.saveMany(workspaceId, keyed, now)
        if (taken.length > 0) return yield* Effect.fail(new KeyTaken())
        return accepted.map((a) => savedRow(a.row.row, bodies.get(a.row.row)))
      })

    /**
     * The rows written one at a time, each by POST /posts' transaction path in a savepoint of
     * its own: a row Postgres refuses rolls back alone and is answered refused.
     */
    const oneAtATime = (accepted: ReadonlyArray<Accepted>, now: Date) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const answers: Array<ImportRowAnswer> = []
        for (const a of accepted) {
          const { row } = a
          const exit = yield* savepoints.attempt(newPosts.saveChecked(savingOf(principal, a, now)))
          if (Exit.isSuccess(exit)) {
            answers.push(savedRow(row.row, exit.value.body))
            continue
          }
          const failure = Cause.failureOption(exit.cause)
          if (Option.isSome(failure) && failure.value._tag === "KeyTaken" && row.idempotencyKey !== null) {
            // another owner kept an answer for the row's key first: answered from it, as POST /posts would
            const kept = yield* Effect.either(newPosts.keptAnswer(principal.workspaceId, row.idempotencyKey, a.requestHash))
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
            // anything else (a bug) loses the whole batch: nothing of the file commits
            return yield* Effect.die(Cause.squash(exit.cause))
          }
        }
        return answers
      })

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
        // row keys that hold an answer already (the same file sent again while this one ran) are
        // answered from it, as POST /posts answers a replay, and write nothing
        const keys = rows.flatMap((r) => (r.idempotencyKey === null ? [] : [r.idempotencyKey]))
        const kept = yield* idempotency.findMany(workspaceId, keys, now)
        /** The rows answered without being written: refused, or replayed from their keys. */
        const notWritten: Array<ImportRowAnswer> = [...answeredBefore]
        // every row decided by the rules before anything is written: a refused row writes nothing
        const accepted = read.flatMap(({ given, row }): ReadonlyArray<Accepted> => {
          const stored = row.idempotencyKey === null ? undefined : kept.get(row.idempotencyKey)
          if (stored !== undefined) {
            const outcome = decideWithStored(stored, requestHashOf(row.body))
            notWritten.push(outcome._tag === "Reused" ? refusedRow(row.row, Errors.idempotencyKeyReused()) : savedRow(row.row, outcome.response))
            return []
          }
          if (Either.isLeft(given)) {
            notWritten.push(refusedRow(row.row, given.left))
            return []
          }
          const channelIds = given.right.entries.map((e) => e.channelId)
          const own = [...new Set(channelIds)].flatMap((id) => channelById.get(id) ?? [])
          const checked = checkGiven(given.right, own, library, new Map(Object.entries(row.mediaByPath)))
          if (checked.unknownChannel) {
            notWritten.push(refusedRow(row.row, Errors.channelNotFound()))
            return []
          }
          if (checked.problems.length > 0) {
            notWritten.push(refusedRow(row.row, Errors.fixBeforeSaving(checked.problems)))
            return []
          }
          const { context, libraryById, post } = checked
          const plan = newPosts.prepared(principal, undefined, post, context, own, libraryById)
          return [{ row, post, own, libraryById, channelIds, requestHash: requestHashOf(row.body), plan }]
        })
        // all rows in a few statements; when Postgres refuses one (or a key was kept by another
        // owner), that attempt is rolled back and the rows are written again one at a time
        const together = writeTogetherFirst ? yield* savepoints.attempt(writeTogether(accepted, now)) : Exit.fail(new KeyTaken())
        if (Exit.isFailure(together) && !refusedByStorage(together.cause) && Option.isNone(Cause.failureOption(together.cause))) {
          // not a refusal (a bug, an interruption): the whole batch is lost, nothing of the file commits
          return yield* Effect.die(Cause.squash(together.cause))
        }
        const saved = Exit.isSuccess(together) ? together.value : yield* oneAtATime(accepted, now)
        const savedRows = new Set(saved.flatMap((r) => (r.status === "saved" ? [r.row] : [])))
        for (const a of accepted) {
          if (savedRows.has(a.row.row)) prepareAfter.push(newPosts.prepareFilesAhead(a.post, a.own, a.libraryById))
        }
        // the whole file's answer, in row order: it is also what the command's record keeps for a copy
        return [...notWritten, ...saved].sort((a, b) => a.row - b.row)
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
