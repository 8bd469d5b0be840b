import { Cause, Context, Effect, Exit, Option, type ParseResult, Schema } from "effect"
import { type ActorEnvelope, ImportPosts } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { authorize } from "../platform/policy.js"
import { causeIsDatabaseOutage, DatabaseOutage } from "../platform/databaseOutage.js"
import { PostWriter } from "../posts/PostWriter.js"
import { admitCreatePosts, admitImportPosts } from "./commands/admission.js"
import { AlreadyRan, CurrentCommand, CurrentLease, FenceStore, LeaseLost } from "../sharding/fencing.js"
import type { Mailboxes } from "../sharding/mailboxes.js"
import { WorkspaceMemory } from "./workspaceMemory.js"

const PostsAnswer = Schema.Struct({ statusCode: Schema.Number, body: Schema.Unknown, replayed: Schema.Boolean })
const decodeKeptCreate = Schema.decodeUnknown(PostsAnswer)
const decodeKeptGroup = Schema.decodeUnknown(Schema.String)
const decodeKeptImport = Schema.decodeUnknown(ImportPosts.success)

/**
 * Runs one command in its workspace's mailbox, as the principal the gateway sent, after
 * checking its role (domain/policy.ts), and serializes the Exit with the command's own
 * schemas. POST /posts is admitted first, outside the mailbox, so a request over the rate
 * limit or with a key already in flight answers at once.
 *
 * A command runs once: its transaction records its id (services/sharding/fencedTransactions.ts).
 * A copy (the gateway sent it again, or an earlier owner ran it) is answered from what
 * was kept: the first answer of POST /posts, the post as it is now for the PUTs and review,
 * the constant answer of the deletes.
 */
export const dispatch = Effect.fnUntraced(function* (envelope: ActorEnvelope, mailboxes: Mailboxes, lease: Context.Tag.Service<CurrentLease>) {
  const { command, commandId, principal } = envelope
  // who runs it, as which command, under which lease: one context for the three (each
  // provideService would copy the whole context and set a fiber ref again)
  const commandContext = Context.make(CurrentPrincipal, principal).pipe(
    Context.add(CurrentCommand, { workspaceId: principal.workspaceId, commandId }),
    Context.add(CurrentLease, lease)
  )
  const inMailbox = <A, E, R>(effect: Effect.Effect<A, E, R>) => mailboxes.run(principal.workspaceId, effect)
  const reply = <A, I, E, EI, R>(
    request: Schema.WithResult<A, I, E, EI, never>,
    effect: Effect.Effect<A, NoInfer<E>, R>
  ): Effect.Effect<unknown, ParseResult.ParseError | LeaseLost, Exclude<R, CurrentPrincipal | CurrentCommand | CurrentLease>> =>
    // the encoded Exit is plain JSON for the reply; the gateway decodes it with the same schemas.
    // A lease lost while it ran is no answer: the host says NotOwner and the gateway asks the owner.
    effect.pipe(
      Effect.exit,
      Effect.flatMap(
        (exit): Effect.Effect<unknown, ParseResult.ParseError | LeaseLost> =>
          Exit.isFailure(exit) && lostLease(exit.cause)
            ? Effect.fail(new LeaseLost({ shard: -1 }))
            : Schema.serializeExit(request, Exit.isFailure(exit) && causeIsDatabaseOutage(exit.cause) ? outage : exit)
      ),
      Effect.provide(commandContext)
    )

  const writer = yield* PostWriter
  const fences = yield* FenceStore
  const memory = yield* WorkspaceMemory

  /** A change of a post that committed before: answered with the post as it is now. */
  const replayChange = (kept: unknown) => decodeKeptGroup(kept).pipe(Effect.orDie, Effect.flatMap(writer.current))
  const deleted = () => Effect.succeed({ error: false as const, success: true as const })
  const keptAnswer = fences.find(principal.workspaceId, commandId).pipe(Effect.orDie)
  /** A copy runs nothing: when the record exists it is answered from it. */
  const once = <A, E, R, E2>(
    run: Effect.Effect<A, E, R>,
    answer: (kept: unknown) => Effect.Effect<A, E2, CurrentPrincipal>
  ): Effect.Effect<A, E | E2, R | CurrentPrincipal> => {
    const fresh = run.pipe(
      Effect.catchSomeDefect((defect) =>
        defect instanceof AlreadyRan
          ? Option.some(
              keptAnswer.pipe(
                Effect.flatMap((k): Effect.Effect<A, E2, CurrentPrincipal> => (Option.isNone(k) ? Effect.die(defect) : answer(k.value.answer)))
              )
            )
          : Option.none()
      )
    )
    // the first copy the gateway sends needs no look-up: the transaction's record refuses a second run
    return envelope.attempt > 1 ? Effect.flatMap(keptAnswer, (kept) => (Option.isSome(kept) ? answer(kept.value.answer) : fresh)) : fresh
  }

  switch (command._tag) {
    case "DeleteChannel":
      return yield* reply(
        command,
        inMailbox(once(writer.deleteChannel(command).pipe(authorize("channels.delete")), () => Effect.succeed({ success: true as const })))
      )
    case "CreatePosts":
      // admitted outside the mailbox, so a copy sent while the first still waits or runs
      // would find its own key in flight: it waits for that copy and is answered from its record
      return yield* reply(
        command,
        memory.oneCopyAtATime(
          commandId,
          once(
            admitCreatePosts(principal, command).pipe(
              Effect.flatMap(({ release, replay: kept }) =>
                Option.isSome(kept)
                  ? Effect.succeed(kept.value)
                  : inMailbox(writer.create(command).pipe(authorize("posts.write"))).pipe(Effect.ensuring(release))
              )
            ),
            (kept) => decodeKeptCreate(kept).pipe(Effect.orDie)
          )
        )
      )
    case "ImportPosts":
      // the file's rows as one batch: one transaction, one record (services/posts/importedPosts.ts).
      // Admitted in the mailbox, not before it: a copy the gateway sends while the batch still
      // runs (a large file takes longer than an attempt) waits its turn and is answered from the
      // record, instead of finding every row's key in flight.
      return yield* reply(
        command,
        inMailbox(
          once(
            admitImportPosts(principal, command).pipe(
              Effect.flatMap(({ answered, release, toSave }) =>
                toSave.length === 0
                  ? Effect.succeed(answered.sort((a, b) => a.row - b.row))
                  : writer.importPosts(toSave, answered).pipe(authorize("posts.write"), Effect.ensuring(release))
              )
            ),
            (kept) => decodeKeptImport(kept).pipe(Effect.orDie)
          )
        )
      )
    case "MovePost":
      return yield* reply(command, inMailbox(once(writer.move(command).pipe(authorize("posts.write")), replayChange)))
    case "SetPostStatus":
      return yield* reply(command, inMailbox(once(writer.setStatus(command).pipe(authorize("posts.write")), replayChange)))
    case "SetPostSettings":
      return yield* reply(command, inMailbox(once(writer.setSettings(command).pipe(authorize("posts.write")), replayChange)))
    case "DeletePost":
      return yield* reply(command, inMailbox(once(writer.delete(command).pipe(authorize("posts.write")), deleted)))
    case "ReviewPost":
      return yield* reply(command, inMailbox(once(writer.review(command).pipe(authorize("posts.review")), replayChange)))
    case "RetryPost":
      return yield* reply(command, inMailbox(once(writer.retry(command).pipe(authorize("posts.write")), replayChange)))
    case "LinkRelease":
      return yield* reply(command, inMailbox(once(writer.link(command).pipe(authorize("posts.write")), replayChange)))
  }
})

/**
 * A command that met Postgres out of reach: a defect the gateway knows by its name (a
 * serialized Exit keeps only a defect's name and message) and answers with 503 and
 * Retry-After. What the command wrote is whatever committed: nothing, or all of it.
 */
const outage = Exit.die(new DatabaseOutage({ message: "Postgres could not be reached while the command ran" }))

/** Whether a failed command's cause is a lease this host lost while it ran (it committed nothing). */
export const lostLease = (cause: Cause.Cause<unknown>): boolean => Option.exists(Cause.dieOption(cause), (defect) => defect instanceof LeaseLost)
