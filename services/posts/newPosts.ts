import { createHash, randomBytes } from "node:crypto"
import { Data, Effect, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { canonicalJson, decideWithStored } from "../../domain/idempotency.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { mediaIdsOf } from "../../domain/posts/mediaByPath.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import { mediaPreparationOf, type RulesContext } from "../../domain/posts/rules.js"
import { create, edit } from "../../domain/posts/states.js"
import type { Principal } from "../../domain/roles.js"
import type { CreatePosts } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo, type MediaForPost } from "../media/mediaRepo.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { makeChannelMemory } from "./channelMemory.js"
import { CreatePostRepo } from "./createPostRepo.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { PostStepsRepo } from "./postStepsRepo.js"
import type { EntryWrite, GroupFields, LiveChannelPost } from "./postWrites.js"
import { PostsReadRepo } from "./postsReadRepo.js"
import { shareUrl } from "./render.js"
import { checkGiven } from "./postCheck.js"
import { mediaSnapshot } from "./rulesContext.js"
import { TagsRepo } from "./tagsRepo.js"
import { prepareAhead, retryFailedRenditions } from "../media/renditions.js"
import { makeRenditionsRepo, RenditionsRepo } from "../media/renditionsRepo.js"
import { Nats } from "../platform/nats.js"
import type { ChannelRow } from "../repos/channelsRepo.js"
import { SqlClient } from "@effect/sql"

/** A create decided on remembered channel rows that were no longer current: decide it again on read rows. */
const Stale = Symbol("Stale")

/** Another owner stored an answer for this key first (hand-over race): replay it. */
export class KeyTaken extends Data.TaggedError("KeyTaken") {}

/** The answer of POST /posts as it is sent and kept for Idempotency-Key replays. */
export interface PostsAnswer {
  readonly statusCode: number
  readonly body: unknown
  readonly replayed: boolean
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** Key order does not change a body's hash (spec: POST /posts rule 4). */
export const requestHashOf = (body: unknown) => sha256(canonicalJson(body))

/** How the caller signed in, when the body does not say (spec: creationMethod). */
const creationMethodOf = (p: Principal) => (p.tokenKind === "cli" ? "cli" : p.tokenKind === "oat" ? "mcp" : "api")

/**
 * Which new posts are written in one statement (createPostRepo.ts): a new post without
 * tags. The others (tags, or a group id: an edit) go through applyStep in a transaction,
 * which writes the same rows; test/system/posts.createPaths.test.ts compares the two.
 */
export const inOneStatement = (post: NormalizedPost) => post.groupId === null && post.tags.length === 0

/**
 * POST /posts, run by PostWriter: reads the body, checks every channel against its
 * network's rules, saves and answers; or replays the answer kept for its Idempotency-Key.
 * `writeInOneStatement` chooses the path of a post (inOneStatement; a test gives another).
 */
export const makeNewPosts = (writeInOneStatement: (post: NormalizedPost) => boolean = inOneStatement) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    const reads = yield* PostsReadRepo
    const steps = yield* PostStepsRepo
    const statement = yield* CreatePostRepo
    const channelsRepo = yield* ChannelsRepo
    const mediaRepo = yield* MediaRepo
    const idempotency = yield* IdempotencyRepo
    const tags = yield* TagsRepo
    const { publicUrl } = yield* AppConfig
    const channelMemory = makeChannelMemory()
    // where NATS is (the actor host), a saved post's renditions are asked for at once (services/media/renditions.ts)
    const nats = yield* Effect.serviceOption(Nats)
    const sqlClient = yield* Effect.serviceOption(SqlClient.SqlClient)
    const renditions =
      Option.isSome(nats) && Option.isSome(sqlClient) ? yield* Effect.provideService(makeRenditionsRepo, SqlClient.SqlClient, sqlClient.value) : null

    /** The library files of a post's items, with the network and settings each is prepared for. */
    const filesOf = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>, known: ReadonlyMap<string, MediaForPost>) =>
      post.entries.flatMap((e) => {
        const network = channels.find((c) => c.id === e.channelId)?.network
        if (network === undefined) return []
        return e.items.flatMap((i) =>
          i.media.length === 0 ? [] : [{ network, settings: e.settings, media: i.media.map((m) => mediaSnapshot(m, known)) }]
        )
      })

    /**
     * An edit that queues the post again: renditions of its files that failed are made pending
     * again in its transaction (a fresh attempt; ready ones are reused); prepareFilesAhead starts them.
     */
    const retryFailedOf = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>, known: ReadonlyMap<string, MediaForPost>) => {
      if (renditions === null || post.type === "draft") return Effect.void
      const items = filesOf(post, channels, known)
      return items.length === 0 ? Effect.void : retryFailedRenditions(items).pipe(Effect.provideService(RenditionsRepo, renditions))
    }

    /** Starts the preparation of the files a saved, non-draft post's channels will need; the answer does not wait. */
    const prepareFilesAhead = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>, known: ReadonlyMap<string, MediaForPost>) => {
      if (Option.isNone(nats) || renditions === null || post.type === "draft") return Effect.void
      const items = filesOf(post, channels, known)
      if (items.length === 0) return Effect.void
      return prepareAhead(items).pipe(
        Effect.provideService(Nats, nats.value),
        Effect.provideService(RenditionsRepo, renditions),
        Effect.forkDaemon,
        Effect.asVoid
      )
    }

    /** The answer kept for a key, decided against this request's body (409 for another body). */
    const keptAnswer = (workspaceId: string, key: string, requestHash: string) =>
      idempotency.find(workspaceId, key, new Date()).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.succeed(Option.none<PostsAnswer>()),
            onSome: (stored) => {
              const outcome = decideWithStored(stored, requestHash)
              return outcome._tag === "Reused"
                ? Effect.fail(Errors.idempotencyKeyReused())
                : Effect.succeed(Option.some<PostsAnswer>({ statusCode: outcome.statusCode, body: outcome.response, replayed: true }))
            }
          })
        )
      )

    /** What a checked post writes and answers, whichever path writes it. */
    const prepared = (
      principal: Principal,
      defaultCreationMethod: "mcp" | undefined,
      post: NormalizedPost,
      context: RulesContext,
      channels: ReadonlyArray<ChannelRow>,
      libraryById: ReadonlyMap<string, MediaForPost>
    ) => {
      const approvalRequired = channels.some((c) => c.customerApproval === true)
      const entries = new Map<string, EntryWrite>(
        post.entries.map((e) => [
          e.channelId,
          {
            settings: e.settings,
            items: e.items.map((i) => ({ content: i.content, delay: i.delay, media: i.media.map((m) => mediaSnapshot(m, libraryById)) }))
          }
        ])
      )
      const fields: GroupFields = {
        repeatDays: post.repeatDays,
        shortLink: post.shortLink,
        creationMethod: post.creationMethod ?? defaultCreationMethod ?? creationMethodOf(principal),
        author: principal.actor
      }
      /** What preparation will do to a channel's files (only when it does something). */
      const preparationOf = (channelId: string) => {
        const lines = mediaPreparationOf(post, channelId, context)
        return lines.length === 0 ? {} : { preparation: lines }
      }
      /** The answer of a saved post: its channel posts as they are now. */
      const answerOf = (groupId: string, shareToken: string, live: ReadonlyArray<LiveChannelPost>) =>
        live.map((r) => ({
          postId: r.postId,
          group: groupId,
          integration: r.channelId,
          // what the channel is: an edit keeps published and in-flight channels as they are
          status: r.status,
          previewUrl: shareUrl(publicUrl, shareToken),
          ...preparationOf(r.channelId)
        }))
      return { approvalRequired, entries, fields, answerOf }
    }

    /**
     * The transaction path's write of a checked post (tags, applyStep, the key's record), in
     * the caller's transaction: POST /posts runs it in a transaction of its own, an import
     * (importedPosts.ts) each row of its file in one transaction. KeyTaken: another owner
     * kept an answer for the key first, and the caller's transaction (or savepoint) must roll back.
     */
    const saveChecked = (
      input: {
        readonly principal: Principal
        readonly post: NormalizedPost
        readonly channels: ReadonlyArray<ChannelRow>
        readonly libraryById: ReadonlyMap<string, MediaForPost>
        readonly channelIds: ReadonlyArray<string>
        readonly key: string | null
        readonly requestHash: string
        readonly now: Date
      } & ReturnType<typeof prepared>
    ) =>
      Effect.gen(function* () {
        const { principal, post, channels, libraryById, channelIds, key, requestHash, now, approvalRequired, entries, fields, answerOf } = input
        const { workspaceId } = principal
        const tagIds = yield* tags.resolve(workspaceId, post.tags)
        let groupId: string
        let shareToken: string
        let live: ReadonlyArray<LiveChannelPost>
        if (post.groupId !== null) {
          const loaded = yield* reads.loadOr404(workspaceId, post.groupId, true)
          groupId = loaded.group.id
          shareToken = loaded.group.shareToken
          const step = edit(loaded.snapshot, {
            type: post.type,
            date: post.dateGiven ? post.date : null,
            now,
            channelIds,
            approvalRequired,
            actor: principal.actor
          })
          const existing = new Map(loaded.posts.map((p) => [p.channelId, p.id]))
          live = yield* steps.applyStep({ workspaceId, groupId, shareToken, existing, newGroup: null, editFields: fields, step, entries, tagIds })
          yield* retryFailedOf(post, channels, libraryById)
        } else {
          groupId = crypto.randomUUID()
          shareToken = randomBytes(24).toString("base64url")
          const step = create({ type: post.type, date: post.date, now, channelIds, approvalRequired, actor: principal.actor })
          live = yield* steps.applyStep({ workspaceId, groupId, shareToken, newGroup: fields, step, entries, tagIds })
        }
        const body = answerOf(groupId, shareToken, live)
        // only successful answers are kept; a live record of another owner wins (hand-over race)
        if (key !== null && !(yield* idempotency.save({ workspaceId, key, requestHash, statusCode: 200, body, now }))) {
          return yield* Effect.fail(new KeyTaken())
        }
        return { statusCode: 200, body, replayed: false } satisfies PostsAnswer
      })

    /**
     * POST /posts: read the body, check every channel, save and answer; or replay. The key's
     * record is not looked up first: the save refuses a key with a live record (and writes
     * nothing), and any refusal of a keyed request consults the record, whose answer (a
     * replay, or 409 for another body) wins. So a fresh key costs no look-up.
     */
    const createPosts = (command: CreatePosts) =>
      Effect.flatMap(CurrentPrincipal, ({ workspaceId }) => {
        const key = command.idempotencyKey
        return key === null
          ? createFresh(command)
          : createFresh(command).pipe(
              Effect.catchAll((refused) =>
                Effect.flatMap(
                  keptAnswer(workspaceId, key, requestHashOf(command.body)),
                  Option.match({ onNone: () => Effect.fail(refused), onSome: Effect.succeed })
                )
              )
            )
      }).pipe(storageDefects, withSpan("PostWriter.create"), policyRequire("posts.write"))

    /**
     * A new post, first against remembered channel rows (channelMemory.ts) when it is written
     * in one statement; Stale when that statement found a channel changed or a rule refused a
     * remembered row: then it is decided again on rows read now, as if nothing was remembered.
     */
    const createFresh = (command: CreatePosts) =>
      createAttempt(command, true).pipe(
        Effect.flatMap((answer) =>
          answer === Stale
            ? createAttempt(command, false).pipe(Effect.filterOrDieMessage((a) => a !== Stale, "a read channel was stale"))
            : Effect.succeed(answer)
        )
      )

    const createAttempt = Effect.fnUntraced(function* (command: CreatePosts, remembered: boolean) {
      const principal = yield* CurrentPrincipal
      const { workspaceId } = principal
      const key = command.idempotencyKey
      const requestHash = requestHashOf(command.body)
      const now = new Date()
      const byPath = new Map(Object.entries(command.mediaByPath))
      // the channels and media the body names, in this workspace only, read together
      const given = yield* normalizePostBody(command.body, now)
      // a new post without tags: one statement (services/posts/createPostRepo.ts)
      const oneStatement = writeInOneStatement(given)
      const channelIds = given.entries.map((e) => e.channelId)
      const distinctIds = [...new Set(channelIds)]
      const known = remembered && oneStatement ? channelMemory.all(workspaceId, distinctIds) : undefined
      const findLibrary = mediaRepo.findMany(workspaceId, [...mediaIdsOf(given), ...byPath.values()])
      // remembered channels: nothing to read beside the media, so no fibers to fork for it
      const { channels, library } =
        known !== undefined
          ? { channels: known, library: yield* findLibrary }
          : yield* Effect.all(
              {
                channels: channelsRepo.findManyVersioned({ workspaceId, ids: distinctIds }).pipe(Effect.tap((read) => channelMemory.remember(read))),
                library: findLibrary
              },
              { concurrency: "unbounded" }
            )
      const { post, context, libraryById, unknownChannel, problems } = checkGiven(given, channels, library, byPath)
      if (unknownChannel) return yield* Effect.fail(Errors.channelNotFound())
      // a refusal is never answered from a remembered row: the channel may have changed since
      if (problems.length > 0) return yield* known !== undefined ? Effect.succeed(Stale) : Effect.fail(Errors.fixBeforeSaving(problems))

      const { entries, fields, answerOf, approvalRequired } = prepared(principal, command.defaultCreationMethod, post, context, channels, libraryById)
      /** A live record of another owner won the key (hand-over race): createPosts replays it. */
      const replayTakenKey = () => Effect.fail(Errors.idempotencyRunning())

      if (oneStatement) {
        const groupId = crypto.randomUUID()
        const shareToken = randomBytes(24).toString("base64url")
        const step = create({ type: post.type, date: post.date, now, channelIds, approvalRequired, actor: principal.actor })
        const outcome = yield* transactions.statement((fence) =>
          statement.createInOneStatement({
            fence,
            workspaceId,
            groupId,
            shareToken,
            fields,
            step,
            entries,
            channelNames: new Map(channels.map((c) => [c.id, c.name])),
            channelVersions: known === undefined ? null : known.map((c) => c.version),
            key: key === null ? null : { key, requestHash, now },
            answer: (live) => {
              const body = answerOf(groupId, shareToken, live)
              return { keyResponse: body, commandAnswer: { statusCode: 200, body, replayed: false } satisfies PostsAnswer }
            }
          })
        )
        if (outcome.channelsChanged) {
          channelMemory.forget(workspaceId, distinctIds)
          return Stale
        }
        if (outcome.keyTaken) return yield* replayTakenKey()
        yield* prepareFilesAhead(post, channels, libraryById)
        return { statusCode: 200, body: answerOf(groupId, shareToken, outcome.live), replayed: false } satisfies PostsAnswer
      }

      const save = saveChecked({
        principal,
        post,
        channels,
        libraryById,
        channelIds,
        key,
        requestHash,
        now,
        approvalRequired,
        entries,
        fields,
        answerOf
      })

      return yield* transactions.run(save).pipe(
        Effect.catchTag("KeyTaken", replayTakenKey),
        Effect.tap(() => prepareFilesAhead(post, channels, libraryById))
      )
    })

    return { keptAnswer, create: createPosts, prepared, saveChecked, prepareFilesAhead }
  })
