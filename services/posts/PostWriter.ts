import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Data, Effect, Either, Layer, Option } from "effect"
import { Errors, RuleProblem } from "../../domain/errors.js"
import { canonicalJson, decideWithStored } from "../../domain/idempotency.js"
import { findNetwork } from "../../domain/networks/index.js"
import { normalizePostBody, readSettings } from "../../domain/posts/body.js"
import { mediaIdsOf, withMediaByPath } from "../../domain/posts/mediaByPath.js"
import { PostMessages } from "../../domain/posts/messages.js"
import { readZonedDate } from "../../domain/posts/dates.js"
import type { MediaRef, NormalizedPost, PostEntry } from "../../domain/posts/normalizedPost.js"
import {
  checkPostAgainstNetworks,
  kindOfAddress,
  mediaPreparationOf,
  settingsChangeProblems,
  unknownChannelIds,
  type ChannelForRules,
  type MediaForRules,
  type RulesContext
} from "../../domain/posts/rules.js"
import {
  approve,
  create,
  edit,
  linkRelease,
  moveDate,
  remove,
  removedWithChannel,
  requestChanges,
  retry,
  setStatus,
  wholePostStatus,
  type PostStep
} from "../../domain/posts/states.js"
import { GroupId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import type { CreatePosts, DeleteChannel, DeletePost, LinkRelease, MovePost, RetryPost, ReviewPost, SetPostSettings, SetPostStatus } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo, type MediaForPost } from "../media/mediaRepo.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo, type ChannelRow } from "../repos/channelsRepo.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { PostsStore, type EntryWrite, type LoadedPost } from "./postsStore.js"
import { shareUrl } from "./render.js"
import { decodeSettings, decodeStoredMedia, type StoredItem, type StoredMedia } from "./rows.js"
import { TagsRepo } from "./tagsRepo.js"
import { prepareAhead } from "../media/renditions.js"
import { makeRenditionsRepo, RenditionsRepo } from "../media/renditionsRepo.js"
import { Nats } from "../platform/nats.js"
import { makeChannelMemory } from "./channelMemory.js"
import { withSpan } from "../platform/tracing.js"

/** A create decided on remembered channel rows that were no longer current: decide it again on read rows. */
const Stale = Symbol("Stale")

/** Another owner stored an answer for this key first (hand-over race): replay it. */
class KeyTaken extends Data.TaggedError("KeyTaken") {}

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

const channelForRules = (c: Pick<ChannelRow, "id" | "name" | "network" | "disabled" | "refreshNeeded" | "inBetweenSteps">) =>
  Option.match(findNetwork(c.network), {
    onNone: (): ReadonlyArray<ChannelForRules> => [],
    onSome: (network) => [{ id: c.id, name: c.name, network, disabled: c.disabled, refreshNeeded: c.refreshNeeded, inBetweenSteps: c.inBetweenSteps }]
  })

/** What the rules need of a library item: its kind, type, name and facts, as the library recorded them. */
const libraryMediaForRules = (m: Pick<MediaForPost, "id" | "type" | "mime" | "name" | "facts">): MediaForRules => ({
  id: m.id,
  type: m.type === "video" ? "video" : "image",
  mime: m.mime,
  name: m.name,
  facts: m.facts
})

/** The snapshot an item keeps of a file: the library's record, or what an outside address tells. */
const mediaSnapshot = (ref: MediaRef, known: ReadonlyMap<string, MediaForPost>): StoredMedia => {
  const row = ref.id === null ? undefined : known.get(ref.id)
  if (row !== undefined) {
    return {
      id: row.id,
      alt: ref.alt ?? row.alt,
      url: row.path,
      mime: row.mime,
      name: row.name,
      size: row.size,
      type: row.type,
      width: row.width ?? 0,
      height: row.height ?? 0,
      ...(row.facts !== null ? { facts: row.facts } : {})
    }
  }
  const path = ref.path ?? ""
  const name = path.split("/").pop()?.split("?")[0] ?? ""
  return { id: ref.id ?? "", alt: ref.alt ?? "", url: path, mime: "", name, size: 0, type: kindOfAddress(path), width: 0, height: 0 }
}

/**
 * A stored post read back as a NormalizedPost with the rules context of its stored files:
 * a file keeps the kind it had when saved (a video stays a video), so checking a stored
 * draft answers exactly what checking the same body on POST /posts answers.
 */
export const storedPostForRules = (
  loaded: LoadedPost,
  posts: LoadedPost["posts"],
  items: ReadonlyArray<StoredItem>
): { readonly post: NormalizedPost | null; readonly media: ReadonlyMap<string, MediaForRules> } => {
  const media = new Map<string, MediaForRules>()
  const entries: Array<PostEntry> = posts.flatMap((p) => {
    const [first, ...rest] = items
      .filter((i) => i.postId === p.id)
      .map((i) => ({
        content: i.content,
        delay: i.position === 0 ? 0 : i.delayMinutes,
        media: decodeStoredMedia(i.media).map((m): MediaRef => {
          if (m.id !== "") media.set(m.id, { id: m.id, type: m.type === "video" ? "video" : "image", mime: m.mime, name: m.name, facts: m.facts ?? null })
          return { id: m.id === "" ? null : m.id, path: m.url, alt: m.alt }
        })
      }))
    return first === undefined ? [] : [{ channelId: p.channelId, groupId: p.groupId, items: [first, ...rest], settings: decodeSettings(p.settings) }]
  })
  const [head, ...tail] = entries
  if (head === undefined) return { post: null, media }
  return {
    post: {
      type: "schedule",
      date: loaded.group.publishAt,
      dateGiven: true,
      groupId: loaded.group.id,
      entries: [head, ...tail],
      tags: [],
      shortLink: loaded.group.shortLink,
      repeatDays: loaded.group.repeatDays,
      creationMethod: null
    },
    media
  }
}

/** The post's settings over each channel's default settings (the post's own win). */
const withChannelDefaults = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>): NormalizedPost => {
  const defaults = new Map(channels.map((c) => [c.id, c.defaultSettings ?? {}]))
  const fill = (e: PostEntry): PostEntry => {
    const d = defaults.get(e.channelId) ?? {}
    return Object.keys(d).length === 0 ? e : { ...e, settings: { ...d, ...e.settings } }
  }
  const [head, ...tail] = post.entries
  return { ...post, entries: [fill(head), ...tail.map(fill)] }
}

/**
 * The posts feature's writes, run by the workspace's actor one at a time (DESIGN:
 * Workspace actors). Every change is decided by the state machine (domain/posts/states.ts),
 * checked against the network rules (domain/posts/rules.ts) and written with its activity
 * and events in one transaction. No SQL here: the stores and repositories hold it.
 */
export class PostWriter extends Effect.Service<PostWriter>()("posts/PostWriter", {
  effect: Effect.gen(function* () {
    const transactions = yield* Transactions
    const store = yield* PostsStore
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

    /** Starts the preparation of the files a saved, non-draft post's channels will need; the answer does not wait. */
    const prepareFilesAhead = (post: NormalizedPost, channels: ReadonlyArray<ChannelRow>, known: ReadonlyMap<string, MediaForPost>) => {
      if (Option.isNone(nats) || renditions === null || post.type === "draft") return Effect.void
      const items = post.entries.flatMap((e) => {
        const network = channels.find((c) => c.id === e.channelId)?.network
        if (network === undefined) return []
        return e.items.flatMap((i) => (i.media.length === 0 ? [] : [{ network, settings: e.settings, media: i.media.map((m) => mediaSnapshot(m, known)) }]))
      })
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

    /** Channels that go from draft to queued are checked against their network's rules first. */
    const checkStoredDrafts = (workspaceId: string, loaded: LoadedPost, step: PostStep) =>
      Effect.gen(function* () {
        if (step.needsRuleCheck.length === 0) return
        const posts = loaded.posts.filter((p) => step.needsRuleCheck.includes(p.channelId))
        const items = yield* store.itemsOf(workspaceId, posts.map((p) => p.id))
        const channels = yield* channelsRepo.findMany({ workspaceId, ids: posts.map((p) => p.channelId) })
        const { media, post } = storedPostForRules(loaded, posts, items)
        if (post === null) return
        const problems = checkPostAgainstNetworks(post, { channels: channels.flatMap(channelForRules), media: (id) => media.get(id) })
        if (problems.length > 0) return yield* Effect.fail(Errors.fixBeforeSaving(problems))
      })

    /** Load (locked), decide, check, write, answer the whole post: the shape of every PUT. */
    const changePost = <E>(
      postId: string,
      decide: (loaded: LoadedPost, now: Date, principal: Principal) => Either.Either<{ step: PostStep; approvedBy?: string | null }, E>,
      /** Written in the same transaction, after the step (a reviewer's comment). */
      also: (loaded: LoadedPost) => Effect.Effect<void, SqlError> = () => Effect.void
    ) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const groupId = yield* transactions.run(
          Effect.gen(function* () {
            const loaded = yield* store.loadOr404(principal.workspaceId, postId, true)
            const { approvedBy, step } = yield* decide(loaded, new Date(), principal)
            yield* checkStoredDrafts(principal.workspaceId, loaded, step)
            yield* store.applyStep({
              workspaceId: principal.workspaceId,
              groupId: loaded.group.id,
              shareToken: loaded.group.shareToken,
              newGroup: null,
              step,
              ...(approvedBy !== undefined ? { approvedBy } : {})
            })
            yield* also(loaded)
            return loaded.group.id
          })
        )
        return yield* store.renderWholePost(principal.workspaceId, groupId)
      }).pipe(storageDefects)

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
          answer === Stale ? createAttempt(command, false).pipe(Effect.filterOrDieMessage((a) => a !== Stale, "a read channel was stale")) : Effect.succeed(answer)
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
      // a new post without tags: one statement (services/posts/createPostStatement.ts)
      const oneStatement = given.groupId === null && given.tags.length === 0
      const channelIds = given.entries.map((e) => e.channelId)
      const distinctIds = [...new Set(channelIds)]
      const known = remembered && oneStatement ? channelMemory.all(workspaceId, distinctIds) : undefined
      const findLibrary = mediaRepo.findMany(workspaceId, [...mediaIdsOf(given), ...byPath.values()])
      // remembered channels: nothing to read beside the media, so no fibers to fork for it
      const { channels, library } = known !== undefined
        ? { channels: known, library: yield* findLibrary }
        : yield* Effect.all(
            {
              channels: channelsRepo.findManyVersioned({ workspaceId, ids: distinctIds }).pipe(Effect.tap((read) => channelMemory.remember(read))),
              library: findLibrary
            },
            { concurrency: "unbounded" }
          )
      const libraryById: ReadonlyMap<string, MediaForPost> = new Map(library.map((m) => [m.id, m]))
      // files given by path are their library items; settings a channel's connection
      // answers fill what the post leaves out (a Discord channel id)
      const post = withChannelDefaults(withMediaByPath(given, (id) => libraryById.has(id), byPath), channels)
      const context: RulesContext = {
        channels: channels.flatMap(channelForRules),
        media: (id) => {
          const m = libraryById.get(id)
          return m === undefined ? undefined : libraryMediaForRules(m)
        }
      }
      if (unknownChannelIds(post, context).length > 0) return yield* Effect.fail(Errors.channelNotFound())
      const problems = checkPostAgainstNetworks(post, context)
      // a refusal is never answered from a remembered row: the channel may have changed since
      if (problems.length > 0) return yield* known !== undefined ? Effect.succeed(Stale) : Effect.fail(Errors.fixBeforeSaving(problems))

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
      const fields = {
        repeatDays: post.repeatDays,
        shortLink: post.shortLink,
        creationMethod: post.creationMethod ?? command.defaultCreationMethod ?? creationMethodOf(principal),
        author: principal.actor
      }

      /** What preparation will do to a channel's files (only when it does something). */
      const preparationOf = (channelId: string) => {
        const lines = mediaPreparationOf(post, channelId, context)
        return lines.length === 0 ? {} : { preparation: lines }
      }
      /** The answer of a saved post: its channel posts as they are now. */
      const answerOf = (groupId: string, shareToken: string, live: ReadonlyArray<{ readonly postId: string; readonly channelId: string; readonly status: string }>) =>
        live.map((r) => ({
          postId: r.postId,
          group: groupId,
          integration: r.channelId,
          // what the channel is: an edit keeps published and in-flight channels as they are
          status: r.status,
          previewUrl: shareUrl(publicUrl, shareToken),
          ...preparationOf(r.channelId)
        }))
      /** A live record of another owner won the key (hand-over race): createPosts replays it. */
      const replayTakenKey = () => Effect.fail(Errors.idempotencyRunning())

      if (oneStatement) {
        const groupId = crypto.randomUUID()
        const shareToken = randomBytes(24).toString("base64url")
        const step = create({ type: post.type, date: post.date, now, channelIds, approvalRequired, actor: principal.actor })
        const outcome = yield* transactions.statement((fence) =>
          store.createInOneStatement({
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

      const save = Effect.gen(function* () {
        const tagIds = yield* tags.resolve(workspaceId, post.tags)
        let groupId: string
        let shareToken: string
        let live: ReadonlyArray<{ readonly postId: string; readonly channelId: string; readonly status: string }>
        if (post.groupId !== null) {
          const loaded = yield* store.loadOr404(workspaceId, post.groupId, true)
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
          live = yield* store.applyStep({ workspaceId, groupId, shareToken, existing, newGroup: null, editFields: fields, step, entries, tagIds })
        } else {
          groupId = crypto.randomUUID()
          shareToken = randomBytes(24).toString("base64url")
          const step = create({ type: post.type, date: post.date, now, channelIds, approvalRequired, actor: principal.actor })
          live = yield* store.applyStep({ workspaceId, groupId, shareToken, newGroup: fields, step, entries, tagIds })
        }
        const body = answerOf(groupId, shareToken, live)
        // only successful answers are kept; a live record of another owner wins (hand-over race)
        if (key !== null && !(yield* idempotency.save({ workspaceId, key, requestHash, statusCode: 200, body, now }))) {
          return yield* Effect.fail(new KeyTaken())
        }
        return { statusCode: 200, body, replayed: false } satisfies PostsAnswer
      })

      return yield* transactions.run(save).pipe(
        Effect.catchTag("KeyTaken", replayTakenKey),
        Effect.tap(() => prepareFilesAhead(post, channels, libraryById))
      )
    })

    /** PUT /posts/{id}/date */
    const move = (command: MovePost) =>
      Effect.gen(function* () {
        const date = yield* readZonedDate(command.date, "date", new Date())
        return yield* changePost(command.postId, (loaded, now, principal) =>
          Either.map(moveDate(loaded.snapshot, { date, now, approvalRequired: loaded.approvalRequired, actor: principal.actor }), (step) => ({ step }))
        )
      }).pipe(withSpan("PostWriter.move"), policyRequire("posts.write"))

    /** PUT /posts/{id}/status */
    const changeStatus = (command: SetPostStatus) =>
      changePost(command.postId, (loaded, now, principal) =>
        Either.right({
          step: setStatus(loaded.snapshot, { status: command.status, now, approvalRequired: loaded.approvalRequired, actor: principal.actor })
        })
      ).pipe(withSpan("PostWriter.setStatus"), policyRequire("posts.write"))

    /**
     * PUT /posts/{id}/settings: merges into one channel's settings, only before it publishes;
     * checked with the same rule as POST /posts. A group id changes the first channel.
     */
    const changeSettings = (command: SetPostSettings) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const groupId = yield* transactions.run(
          Effect.gen(function* () {
            const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
            const target = loaded.posts.find((p) => p.id === command.postId) ?? loaded.posts[0]
            if (target === undefined) return yield* Effect.fail(Errors.postNotFound())
            if (!(["draft", "queued", "error"] as ReadonlyArray<string>).includes(target.status)) {
              return yield* Effect.fail(Errors.settingsAfterPublishing())
            }
            const incoming = readSettings(command.settings)
            const merged = { ...decodeSettings(target.settings), ...incoming }
            const network = findNetwork(target.network)
            const problems = Option.isSome(network) ? settingsChangeProblems(target.channelName, network.value, incoming, merged) : []
            if (problems.length > 0) {
              return yield* Effect.fail(
                Errors.fixBeforeSaving(problems.map((message) => new RuleProblem({ channelId: target.channelId, channelName: target.channelName, message })))
              )
            }
            yield* store.replaceSettings({ groupId: loaded.group.id, postId: target.id, settings: merged, actor: principal.actor, channelName: target.channelName })
            return loaded.group.id
          })
        )
        return yield* store.renderWholePost(principal.workspaceId, groupId)
      }).pipe(storageDefects, withSpan("PostWriter.setSettings"), policyRequire("posts.write"))

    /** DELETE /posts/{id} and /posts/group/{group}: the whole post on every channel. */
    const deletePost = (command: DeletePost) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        yield* transactions.run(
          Effect.gen(function* () {
            const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
            const step = remove(loaded.snapshot, { actor: principal.actor })
            yield* store.applyStep({ workspaceId: principal.workspaceId, groupId: loaded.group.id, shareToken: loaded.group.shareToken, newGroup: null, step })
            yield* store.deleteGroup(loaded.group.id)
          })
        )
        return { error: false as const, success: true as const }
      }).pipe(storageDefects, withSpan("PostWriter.delete"), policyRequire("posts.write"))

    /** The client (share page) or an admin approves, or asks for changes with a comment. */
    const review = (command: ReviewPost) =>
      Effect.gen(function* () {
        return yield* changePost(
          command.groupId,
          (loaded, now) =>
            command.decision === "approve"
              ? Either.map(approve(loaded.snapshot, { now, approvedBy: command.reviewer }), (step) => ({ step, approvedBy: command.reviewer }))
              : Either.map(requestChanges(loaded.snapshot, { comment: command.comment, requestedBy: command.reviewer }), (step) => ({ step })),
          // the comment commits with the decision it explains
          (loaded) =>
            command.comment.trim() === ""
              ? Effect.void
              : store.addComment({ groupId: loaded.group.id, author: command.reviewer, role: "client", content: command.comment })
        )
      }).pipe(withSpan("PostWriter.review"), policyRequire("posts.review"))

    /**
     * DELETE /integrations/{id}: the channel is disconnected and its drafts, queued,
     * failed and unconfirmed posts are deleted in one transaction; live posts stay.
     */
    const deleteChannel = (command: DeleteChannel) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        return yield* transactions.run(
          Effect.gen(function* () {
            const found = yield* channelsRepo.disconnect(workspaceId, command.channelId)
            if (Option.isNone(found)) return yield* Effect.fail(Errors.channelNotFound())
            const left = yield* store.removeWithChannel(workspaceId, command.channelId, removedWithChannel)
            yield* store.setGroupStatuses(left.map((g) => ({ id: g.id, status: wholePostStatus(g.statuses, g.approvalStatus) })))
            return { success: true as const }
          })
        )
      }).pipe(storageDefects, withSpan("PostWriter.deleteChannel"), policyRequire("channels.delete"))

    /**
     * POST /posts/{id}/retry: failed and unconfirmed channels queued now (`retried`), and
     * failed or unconfirmed follow-ups of live channels; unconfirmed items search first.
     */
    const retryPost = (command: RetryPost) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const groupId = yield* transactions.run(
          Effect.gen(function* () {
            const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
            const postIds = loaded.posts.map((p) => p.id)
            const failedFollowUps = yield* store.prepareRetry(postIds)
            const step = retry(loaded.snapshot, { now: new Date(), actor: principal.actor, failedFollowUps })
            yield* store.applyStep({ workspaceId: principal.workspaceId, groupId: loaded.group.id, shareToken: loaded.group.shareToken, newGroup: null, step })
            yield* store.requeueFollowUps(postIds)
            return loaded.group.id
          })
        )
        return yield* store.renderWholePost(principal.workspaceId, groupId)
      }).pipe(storageDefects, withSpan("PostWriter.retry"), policyRequire("posts.write"))

    /** PUT /posts/{id}/release-id: one channel (a group id: its first) live with the caller's release. */
    const link = (command: LinkRelease) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const releaseId = command.releaseId.trim()
        if (releaseId === "") return yield* Effect.fail(Errors.badRequest(PostMessages.releaseIdMissing))
        const groupId = yield* transactions.run(
          Effect.gen(function* () {
            const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
            const target = loaded.posts.find((p) => p.id === command.postId) ?? loaded.posts[0]
            if (target === undefined) return yield* Effect.fail(Errors.postNotFound())
            const step = linkRelease(loaded.snapshot, target.channelId, { actor: principal.actor, releaseId })
            yield* store.applyStep({ workspaceId: principal.workspaceId, groupId: loaded.group.id, shareToken: loaded.group.shareToken, newGroup: null, step })
            yield* store.linkRelease({
              workspaceId: principal.workspaceId,
              groupId: loaded.group.id,
              postId: target.id,
              channelId: target.channelId,
              provider: target.network,
              releaseId,
              releaseUrl: command.releaseUrl,
              events: step.events
            })
            return loaded.group.id
          })
        )
        return yield* store.renderWholePost(principal.workspaceId, groupId)
      }).pipe(storageDefects, withSpan("PostWriter.linkRelease"), policyRequire("posts.write"))

    /** The whole post as it is now (a command sent again is answered with it). */
    const current = (groupId: string) =>
      Effect.flatMap(CurrentPrincipal, ({ workspaceId }) => store.renderWholePost(workspaceId, GroupId.make(groupId))).pipe(storageDefects)

    return { keptAnswer, current, create: createPosts, move, setStatus: changeStatus, setSettings: changeSettings, delete: deletePost, review, deleteChannel, retry: retryPost, link }
  }),
  // Transactions is the host's (services/actors/fencedTransactions.ts): fenced by the shard's lease
  dependencies: [PostsStore.Live, ChannelsRepo.Live, MediaRepo.Live, IdempotencyRepo.Live, TagsRepo.Live]
}) {
  /** The writer without a database: give it Test layers of its stores (test/unit). */
  static readonly Test = PostWriter.DefaultWithoutDependencies.pipe(Layer.provide(Transactions.Test))
}
