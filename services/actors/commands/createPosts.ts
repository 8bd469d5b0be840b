import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Option, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import { canonicalJson, checkIdempotencyKey, decideWithStored } from "../../../domain/idempotency.js"
import { isUuid } from "../../../domain/ids.js"
import { findNetwork } from "../../../domain/networks/index.js"
import { normalizePostBody } from "../../../domain/posts/body.js"
import type { MediaRef, TagRef } from "../../../domain/posts/normalizedPost.js"
import { checkPostAgainstNetworks, kindOfAddress, unknownChannelIds, type ChannelForRules, type MediaForRules } from "../../../domain/posts/rules.js"
import { create, edit } from "../../../domain/posts/states.js"
import { postsPerHour } from "../../../domain/rateWindow.js"
import type { Principal } from "../../../domain/roles.js"
import { tagColor } from "../../../domain/tagColor.js"
import type { CreatePosts } from "../../../protocol/actors.js"
import { AppConfig } from "../../platform/config.js"
import * as Outbox from "../../platform/outbox.js"
import { PostsStore, type EntryWrite } from "../../posts/postsStore.js"
import { shareUrl } from "../../posts/render.js"
import type { StoredMedia } from "../../posts/rows.js"
import { ChannelsRepo } from "../../repos/channelsRepo.js"
import { MediaRepo, type MediaForPost } from "../../media/mediaRepo.js"
import { WorkspaceMemory } from "../workspaceMemory.js"

/** Another owner stored an answer for this key first (hand-over race): replay it. */
class KeyTaken extends Data.TaggedError("KeyTaken") {}

const StoredAnswerRow = Schema.Struct({ requestHash: Schema.String, statusCode: Schema.Number, response: Schema.Unknown })
const decodeStoredAnswers = Schema.decodeUnknown(Schema.Array(StoredAnswerRow))

const creationMethodOf = (p: Principal) => (p.tokenKind === "cli" ? "cli" : p.tokenKind === "oat" ? "mcp" : "api")

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** The answer kept for a key (24 hours), decided against this request's body. */
const storedAnswerFor = (workspaceId: string, key: string, requestHash: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`
      SELECT request_hash, status_code, response FROM idempotency_keys
      WHERE workspace_id = ${workspaceId} AND key = ${key} AND created_at > now() - interval '24 hours'`.pipe(
      Effect.flatMap(decodeStoredAnswers)
    )
    const stored = rows[0]
    if (stored === undefined) return Option.none<PostsAnswer>()
    const outcome = decideWithStored(stored, requestHash)
    if (outcome._tag === "Reused") return yield* Effect.fail(Errors.idempotencyKeyReused())
    return Option.some<PostsAnswer>({ statusCode: outcome.statusCode, body: outcome.response, replayed: true })
  }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

type PostsAnswer = { readonly statusCode: number; readonly body: unknown; readonly replayed: boolean }

const requestHashOf = (body: unknown) => sha256(canonicalJson(body))

/**
 * Admission, outside the workspace's mailbox: the rate window counts every request
 * (replays too). A key already queued or running answers 409 at once, unless its
 * answer is already kept (parallel replays of a finished request all replay).
 * Succeeds with the release of the claimed key, or with the replayed answer.
 */
export const admitCreatePosts = (principal: Principal, command: CreatePosts) =>
  Effect.gen(function* () {
    const memory = yield* WorkspaceMemory
    const decision = memory.take(principal.workspaceId, "posts", postsPerHour, Date.now())
    if (!decision.allowed) return yield* Effect.fail(Errors.tooManyRequests(decision.retryAfterSeconds))
    const key = command.idempotencyKey
    if (key === null) return { release: Effect.void, replay: Option.none<PostsAnswer>() }
    const refused = checkIdempotencyKey(key)
    if (refused !== null) return yield* Effect.fail(refused)
    if (!memory.claimKey(principal.workspaceId, key)) {
      const stored = yield* storedAnswerFor(principal.workspaceId, key, requestHashOf(command.body))
      if (Option.isNone(stored)) return yield* Effect.fail(Errors.idempotencyRunning())
      return { release: Effect.void, replay: stored }
    }
    return { release: Effect.sync(() => memory.releaseKey(principal.workspaceId, key)), replay: Option.none<PostsAnswer>() }
  })

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
      height: row.height ?? 0
    }
  }
  // a file known only by its public address (reference CLI): what the address tells
  const path = ref.path ?? ""
  const name = path.split("/").pop()?.split("?")[0] ?? ""
  return { id: ref.id ?? "", alt: ref.alt ?? "", url: path, mime: "", name, size: 0, type: kindOfAddress(path), width: 0, height: 0 }
}

/** POST /posts inside the workspace's mailbox: replay, or check, save and answer. */
export const createPosts = (principal: Principal, command: CreatePosts) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { publicUrl } = yield* AppConfig
    const store = yield* PostsStore
    const channelsRepo = yield* ChannelsRepo
    const mediaRepo = yield* MediaRepo
    const { workspaceId } = principal
    const key = command.idempotencyKey
    const requestHash = requestHashOf(command.body)

    if (key !== null) {
      const stored = yield* storedAnswerFor(workspaceId, key, requestHash)
      if (Option.isSome(stored)) return stored.value
    }

    const now = new Date()
    const post = yield* normalizePostBody(command.body, now)

    // the channels, their networks and the media the body names, all in this workspace
    const channelIds = post.entries.map((e) => e.channelId)
    const channels = yield* channelsRepo.findMany({ workspaceId, ids: channelIds })
    const forRules: Array<ChannelForRules> = channels.flatMap((c) =>
      Option.match(findNetwork(c.network), {
        onNone: () => [],
        onSome: (network) => [{ id: c.id, name: c.name, network, disabled: c.disabled, refreshNeeded: c.refreshNeeded, inBetweenSteps: c.inBetweenSteps }]
      })
    )
    const media = yield* mediaRepo.findMany(
      workspaceId,
      post.entries.flatMap((e) => e.items.flatMap((i) => i.media.flatMap((m) => (m.id === null ? [] : [m.id]))))
    )
    const mediaById = new Map(media.map((m) => [m.id, m]))
    const context = {
      channels: forRules,
      media: (id: string): MediaForRules | undefined => {
        const m = mediaById.get(id)
        return m === undefined ? undefined : { id: m.id, type: m.type === "video" ? "video" : "image", mime: m.mime }
      }
    }
    if (unknownChannelIds(post, context).length > 0) return yield* Effect.fail(Errors.channelNotFound())
    const problems = checkPostAgainstNetworks(post, context)
    if (problems.length > 0) return yield* Effect.fail(Errors.fixBeforeSaving(problems))

    const approvalRequired = channels.some((c) => c.customerApproval === true)
    const entries = new Map<string, EntryWrite>(
      post.entries.map((e) => [
        e.channelId,
        { settings: e.settings, items: e.items.map((i) => ({ content: i.content, delay: i.delay, media: i.media.map((m) => mediaSnapshot(m, mediaById)) })) }
      ])
    )
    const fields = {
      repeatDays: post.repeatDays,
      shortLink: post.shortLink,
      creationMethod: post.creationMethod ?? creationMethodOf(principal),
      author: principal.actor
    }

    const save = Effect.gen(function* () {
      const tagIds = yield* resolveTags(sql, workspaceId, post.tags)
      let groupId: string
      let shareToken: string
      let live: ReadonlyArray<{ readonly postId: string; readonly channelId: string; readonly status: string }>
      if (post.groupId !== null) {
        const loaded = yield* store.loadOr404(workspaceId, post.groupId, true)
        groupId = loaded.group.id
        shareToken = loaded.group.shareToken
        const step = edit(loaded.snapshot, { type: post.type, date: post.dateGiven ? post.date : null, now, channelIds, approvalRequired, actor: principal.actor })
        const existing = new Map(loaded.posts.map((p) => [p.channelId, p.id]))
        live = yield* store.applyStep({ workspaceId, groupId, shareToken, existing, newGroup: null, editFields: fields, step, entries, tagIds })
      } else {
        groupId = crypto.randomUUID()
        shareToken = randomBytes(24).toString("base64url")
        const step = create({ type: post.type, date: post.date, now, channelIds, approvalRequired, actor: principal.actor })
        live = yield* store.applyStep({ workspaceId, groupId, shareToken, newGroup: fields, step, entries, tagIds })
      }
      const body = live.map((r) => ({
        postId: r.postId,
        group: groupId,
        integration: r.channelId,
        status: r.status === "draft" ? "draft" : "queued",
        previewUrl: shareUrl(publicUrl, shareToken)
      }))
      if (key !== null) {
        const inserted = yield* sql`
          INSERT INTO idempotency_keys ${sql.insert({ workspaceId, key, requestHash, statusCode: 200, response: JSON.stringify(body) })}
          ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
            response = EXCLUDED.response, created_at = now()
          WHERE idempotency_keys.created_at <= now() - interval '24 hours'
          RETURNING key`
        if (inserted.length === 0) return yield* Effect.fail(new KeyTaken())
      }
      return { statusCode: 200, body, replayed: false }
    })

    return yield* Outbox.transaction(save).pipe(
      Effect.catchTag("KeyTaken", () =>
        key === null
          ? Effect.die(new Error("KeyTaken without a key"))
          : storedAnswerFor(workspaceId, key, requestHash).pipe(
              Effect.flatMap(Option.match({ onNone: () => Effect.fail(Errors.idempotencyRunning()), onSome: Effect.succeed }))
            )
      )
    )
  }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

/** Tags by id or name; `{value, label}` creates a tag named label when nothing matches. */
const resolveTags = (sql: SqlClient.SqlClient, workspaceId: string, refs: ReadonlyArray<TagRef>) =>
  Effect.gen(function* () {
    const ids: Array<string> = []
    for (const ref of refs) {
      const value = ref.value.trim()
      const found = yield* sql<{ id: string }>`
        SELECT id FROM tags WHERE workspace_id = ${workspaceId}
          AND (${isUuid(value) ? sql`id = ${value} OR` : sql``} lower(name) = lower(${value}))
        LIMIT 1`
      const existing = found[0]?.id
      if (existing !== undefined) {
        ids.push(existing)
        continue
      }
      const name = ref.kind === "create" ? ref.label.trim() : value
      const created = yield* sql<{ id: string }>`
        INSERT INTO tags ${sql.insert({ id: crypto.randomUUID(), workspaceId, name, color: tagColor(name) })}
        ON CONFLICT (workspace_id, (lower(name))) DO UPDATE SET name = tags.name
        RETURNING id`
      if (created[0] !== undefined) ids.push(created[0].id)
    }
    return [...new Set(ids)]
  })

