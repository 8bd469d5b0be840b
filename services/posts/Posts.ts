import { SqlClient } from "@effect/sql"
import { Effect, Either, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import type { PostRef } from "../../domain/ids.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { postsRange } from "../../domain/posts/listRange.js"
import { mayNameFileByPath, mediaIdsOf, pathsToResolve } from "../../domain/posts/mediaByPath.js"
import { PostMessages } from "../../domain/posts/messages.js"
import {
  CreatePosts,
  DeletePost,
  ImportPosts,
  type ImportRow,
  LinkRelease,
  MovePost,
  RetryPost,
  ReviewPost,
  SetPostSettings,
  SetPostStatus
} from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { ActorClient, ActorClientLive } from "../sharding/actorClient.js"
import { MediaLibrary } from "../media/MediaLibrary.js"
import { MediaRepo } from "../media/mediaRepo.js"
import { freshCredentials } from "../networks/credentials.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { PostsReadRepo } from "./postsReadRepo.js"
import { decodeSettings, decodeStoredMedia } from "./rows.js"
import { attemptResource } from "./render.js"
import { makePreviews } from "./previews.js"
import { withSpan } from "../platform/tracing.js"

/**
 * The posts feature as every edge sees it (REST handlers, the share page, MCP
 * tools): reads straight from Postgres, writes through the workspace's actor, which runs
 * them one at a time with PostWriter. Each method needs its action checked (policy).
 */
export class Posts extends Effect.Service<Posts>()("posts/Posts", {
  effect: Effect.gen(function* () {
    const store = yield* PostsReadRepo
    const actors = yield* ActorClient
    const adapters = yield* NetworkAdapters
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const mediaRepo = yield* MediaRepo
    const library = yield* MediaLibrary
    const idempotency = yield* IdempotencyRepo
    const previews = yield* makePreviews
    const principal = CurrentPrincipal

    /** GET /posts: one row per channel in the range (default 30 days back to 30 ahead), oldest first. */
    const list = (query: {
      readonly startDate?: string | undefined
      readonly endDate?: string | undefined
      readonly customer?: string | undefined
    }) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* principal
        const { end, start } = yield* postsRange(query, new Date())
        const posts = yield* store.listRows({ workspaceId, start, end, customerId: query.customer ?? null }).pipe(storageDefects)
        return { posts }
      }).pipe(withSpan("Posts.list"), policyRequire("posts.read"))

    /** GET /posts/{id}: a per-channel id or a group id. */
    const get = (id: PostRef) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* principal
        const groupId = yield* store.resolveGroupId(workspaceId, id).pipe(storageDefects)
        if (Option.isNone(groupId)) return yield* Effect.fail(Errors.postNotFound())
        return yield* store.renderWholePost(workspaceId, groupId.value).pipe(storageDefects)
      }).pipe(withSpan("Posts.get"), policyRequire("posts.read"))

    /** GET /posts/{id}/attempts: the attempt timeline of the whole post (a per-channel id or a group id). */
    const attempts = (id: PostRef) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* principal
        const groupId = yield* store.resolveGroupId(workspaceId, id).pipe(storageDefects)
        if (Option.isNone(groupId)) return yield* Effect.fail(Errors.postNotFound())
        const rows = yield* store.attemptsOf(workspaceId, groupId.value).pipe(storageDefects)
        return rows.map(attemptResource)
      }).pipe(withSpan("Posts.attempts"), policyRequire("posts.read"))

    const send = <A, I, E, EI>(command: Parameters<typeof actors.send<A, I, E, EI>>[1]) => Effect.flatMap(principal, (p) => actors.send(p, command))

    /**
     * Files the body gives only by path (domain/posts/mediaByPath.ts): an address of the
     * workspace's library is that item; any other http(s) address is imported through the
     * SSRF-safe client, here at the edge so the workspace's actor never waits on the
     * network. Nothing to do for a body the actor will refuse, or a request it will replay.
     */
    const mediaByPath = (workspaceId: string, body: unknown, idempotencyKey: string | null) =>
      // most bodies give files by id or none at all: then not read twice (the actor reads it)
      mayNameFileByPath(body) ? mediaNamedByPath(workspaceId, body, idempotencyKey).pipe(storageDefects) : Effect.succeed({})

    const mediaNamedByPath = Effect.fnUntraced(function* (workspaceId: string, body: unknown, idempotencyKey: string | null) {
      const normalized = normalizePostBody(body, new Date())
      if (Either.isLeft(normalized)) return {}
      const known = new Set<string>((yield* mediaRepo.findMany(workspaceId, mediaIdsOf(normalized.right))).map((m) => m.id))
      const paths = pathsToResolve(normalized.right, (id) => known.has(id))
      if (paths.length === 0) return {}
      if (idempotencyKey !== null && Option.isSome(yield* idempotency.find(workspaceId, idempotencyKey, new Date()))) return {}
      const own = (yield* mediaRepo.findByPaths(workspaceId, paths)).map((m) => [m.path, m.id] as const)
      const found = new Set(own.map(([path]) => path))
      const imported = yield* Effect.forEach(
        paths.filter((p) => !found.has(p)),
        (path) =>
          library.importFromUrl({ workspaceId, url: path }).pipe(
            Effect.map((media) => [path, media.id] as const),
            Effect.mapError((e) => Errors.mediaRefused(PostMessages.mediaPathRefused(path, e.error), e.fix))
          ),
        { concurrency: 4 }
      )
      return Object.fromEntries([...own, ...imported])
    })

    /** POST /posts/preview: what each channel's network will receive, and the planId to commit it; saves nothing. */
    const preview = (body: unknown) =>
      Effect.flatMap(principal, ({ workspaceId }) => previews.preview(workspaceId, body)).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        storageDefects,
        withSpan("Posts.preview"),
        policyRequire("posts.write")
      )

    /** POST /posts (both body forms), with the optional Idempotency-Key; MCP passes its creationMethod `mcp`. */
    const create = (body: unknown, idempotencyKey: string | null, defaultCreationMethod?: "mcp") =>
      createPosts(body, idempotencyKey, defaultCreationMethod).pipe(withSpan("Posts.create"), policyRequire("posts.write"))

    // made once, not per request (docs/performance.md, "Generator functions made once")
    const createPosts = Effect.fnUntraced(function* (body: unknown, idempotencyKey: string | null, defaultCreationMethod: "mcp" | undefined) {
      const { workspaceId } = yield* principal
      // with a planId: only while the body, its channels and their rules are what the preview saw
      yield* previews.checkPlan(workspaceId, body).pipe(storageDefects)
      const byPath = yield* mediaByPath(workspaceId, body, idempotencyKey)
      return yield* send(
        new CreatePosts({
          body,
          idempotencyKey,
          mediaByPath: byPath,
          ...(defaultCreationMethod === undefined ? {} : { defaultCreationMethod })
        })
      )
    })

    /** A row of POST /posts/import's files given by path, found or imported as for POST /posts (mediaByPath). */
    const filesOfImportedRow = (body: unknown, idempotencyKey: string | null) =>
      Effect.flatMap(principal, ({ workspaceId }) => mediaByPath(workspaceId, body, idempotencyKey)).pipe(
        withSpan("Posts.filesOfImportedRow"),
        policyRequire("posts.write")
      )

    /** The valid rows of POST /posts/import, saved by the actor as one batch (ImportPosts); the file took its requests from the rate window already. */
    const saveImported = (rows: ReadonlyArray<ImportRow>) =>
      send(new ImportPosts({ rows })).pipe(withSpan("Posts.saveImported"), policyRequire("posts.write"))

    /** PUT /posts/{id}/date (the date is read by the writer, like every date of a post). */
    const move = (id: PostRef, date: string) => send(new MovePost({ postId: id, date })).pipe(withSpan("Posts.move"), policyRequire("posts.write"))

    const setStatus = (id: PostRef, status: "draft" | "schedule") =>
      send(new SetPostStatus({ postId: id, status })).pipe(withSpan("Posts.setStatus"), policyRequire("posts.write"))

    const setSettings = (id: PostRef, settings: Readonly<Record<string, unknown>>) =>
      send(new SetPostSettings({ postId: id, settings })).pipe(withSpan("Posts.setSettings"), policyRequire("posts.write"))

    const remove = (id: PostRef) => send(new DeletePost({ postId: id })).pipe(withSpan("Posts.delete"), policyRequire("posts.write"))

    /** Approve a post in review, or ask for changes with a comment. */
    const review = (input: {
      readonly groupId: string
      readonly decision: "approve" | "changes"
      readonly comment: string
      readonly reviewer: string
    }) => send(new ReviewPost(input)).pipe(withSpan("Posts.review"), policyRequire("posts.review"))

    /**
     * GET /posts/{id}/missing: asks the channel's network for a recent post of the account
     * with the same text. Found → [{id, url}]; networks that cannot search, or have no
     * adapter here, or an unreadable connection → []. Read-only: no actor.
     */
    const missing = (id: PostRef) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* principal
        const root = yield* store.rootItemOf(workspaceId, id).pipe(storageDefects)
        if (Option.isNone(root)) return yield* Effect.fail(Errors.postNotFound())
        const r = root.value
        const adapter = adapters.find(r.network)
        if (Option.isNone(adapter)) return []
        const credentials = yield* freshCredentials(r.channelId, adapter.value).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.provideService(AppConfig, config),
          storageDefects
        )
        if (Either.isLeft(credentials)) return []
        const answer = yield* adapter.value.search({
          item: { id: r.itemId, position: 0, content: r.content },
          media: decodeStoredMedia(r.media),
          channel: { id: r.channelId, credentials: credentials.right, settings: decodeSettings(r.settings) },
          previousReleaseId: null,
          rootReleaseId: null,
          progress: null
        })
        return answer._tag === "Found" ? [{ id: answer.releaseId, url: answer.releaseUrl }] : []
      }).pipe(withSpan("Posts.missing"), policyRequire("posts.read"))

    /** POST /posts/{id}/retry */
    const retry = (id: PostRef) => send(new RetryPost({ postId: id })).pipe(withSpan("Posts.retry"), policyRequire("posts.write"))

    /** PUT /posts/{id}/release-id */
    const linkRelease = (id: PostRef, releaseId: string, releaseUrl: string | null) =>
      send(new LinkRelease({ postId: id, releaseId, releaseUrl })).pipe(withSpan("Posts.linkRelease"), policyRequire("posts.write"))

    return {
      list,
      get,
      create,
      filesOfImportedRow,
      saveImported,
      preview,
      move,
      setStatus,
      setSettings,
      remove,
      review,
      missing,
      retry,
      linkRelease,
      attempts
    }
  }),
  dependencies: [PostsReadRepo.Live, ActorClientLive, NetworkAdapters.Default, MediaRepo.Live, MediaLibrary.Default, IdempotencyRepo.Live]
}) {}
