import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { ChannelId, GroupId, MediaId, PostId, WorkspaceId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import type { PostStep } from "../../domain/posts/states.js"
import { CreatePosts, SetPostStatus } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo, type MediaForPost } from "../../services/media/mediaRepo.js"
import { AppConfig, appConfigFromEnv } from "../../services/platform/config.js"
import { authorize } from "../../services/platform/policy.js"
import { makeTestLayer } from "../../services/platform/testLayer.js"
import { IdempotencyRepo } from "../../services/posts/idempotencyRepo.js"
import { CreatePostRepo } from "../../services/posts/createPostRepo.js"
import { PostStepsRepo } from "../../services/posts/postStepsRepo.js"
import { PostsReadRepo, type LoadedPost } from "../../services/posts/postsReadRepo.js"
import { PostWriter } from "../../services/posts/PostWriter.js"
import { TagsRepo } from "../../services/posts/tagsRepo.js"
import { ChannelsRepo, type ChannelRow } from "../../services/repos/channelsRepo.js"

/**
 * The posts writer's rules without NATS, actors or a database: its stores are Test
 * layers, so each case runs in milliseconds. The system tests prove the same through HTTP.
 */

const workspaceId = WorkspaceId.make("0d6f8a52-3a1b-4c77-9d55-0f5b2f1f7c10")
const youtubeId = ChannelId.make("5b0a4c1e-9f0d-4a6b-8c3e-2d1f0e9a8b7c")
const xId = "7c2e9d10-1b4a-4f3e-a5d6-8e9f0a1b2c3d"
const videoId = MediaId.make("9e8d7c6b-5a49-4838-a726-15f4e3d2c1b0")
const groupId = GroupId.make("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d")

const channel = (id: string, network: string, name: string): ChannelRow => ({
  id,
  workspaceId,
  customerId: null,
  customerName: null,
  customerApproval: null,
  network,
  name,
  profile: name,
  picture: null,
  disabled: false,
  refreshNeeded: false,
  inBetweenSteps: false,
  postingTimes: []
})
const channels = [channel(youtubeId, "youtube", "Our YouTube"), channel(xId, "x", "Our X")]

const video: MediaForPost = {
  id: videoId,
  name: "launch.mp4",
  path: "http://127.0.0.1/media/launch.mp4",
  alt: "",
  mime: "video/mp4",
  type: "video",
  size: 1000,
  width: 1280,
  height: 720,
  facts: null
}

const editor: Principal = { workspaceId, userId: "u1", role: "editor", tokenKind: "oat", actor: "ed@example.com" }

/** What the store was asked to write (the Test store keeps nothing else). */
const written: Array<PostStep> = []

const storedDraft: LoadedPost = {
  group: {
    id: groupId,
    workspaceId,
    approvalStatus: null,
    approvedBy: null,
    publishAt: new Date(Date.now() + 3600_000),
    repeatDays: null,
    shortLink: false,
    creationMethod: "api",
    author: "API",
    shareToken: "share-token-of-the-draft",
    createdAt: new Date(),
    updatedAt: new Date()
  },
  posts: [
    {
      id: PostId.make("2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"),
      groupId,
      channelId: youtubeId,
      ordinal: 1,
      status: "draft",
      settings: { title: "Launch", type: "public" },
      publishDate: new Date(Date.now() + 3600_000),
      releaseId: null,
      releaseUrl: null,
      error: null,
      channelName: "Our YouTube",
      network: "youtube",
      picture: null,
      profile: "Our YouTube",
      customerApproval: null
    }
  ],
  snapshot: { publishAt: new Date(Date.now() + 3600_000), approval: null, channels: [{ channelId: youtubeId, status: "draft" }] },
  approvalRequired: false
}

const TestStores = Layer.mergeAll(
  makeTestLayer(ChannelsRepo)({
    findMany: ({ ids }) => Effect.succeed(channels.filter((c) => ids.includes(c.id))),
    findManyVersioned: ({ ids }) => Effect.succeed(channels.filter((c) => ids.includes(c.id)).map((c) => ({ ...c, version: `${c.id}@1@` })))
  }),
  makeTestLayer(MediaRepo)({ findMany: (_w, ids) => Effect.succeed(ids.includes(videoId) ? [video] : []) }),
  makeTestLayer(IdempotencyRepo)({ find: () => Effect.succeed(Option.none()), save: () => Effect.succeed(true) }),
  makeTestLayer(TagsRepo)({ resolve: () => Effect.succeed([]) }),
  makeTestLayer(PostStepsRepo)({
    applyStep: (input) =>
      Effect.sync(() => {
        written.push(input.step)
        return input.step.channels.flatMap((c) => (c.to === null ? [] : [{ postId: crypto.randomUUID(), channelId: c.channelId, status: c.to }]))
      })
  }),
  makeTestLayer(CreatePostRepo)({
    // a new post without tags is written in one statement: the step it writes is recorded the same way
    createInOneStatement: (input) =>
      Effect.sync(() => {
        written.push(input.step)
        const live = input.step.channels.flatMap((c) =>
          c.to === null ? [] : [{ postId: crypto.randomUUID(), channelId: c.channelId, status: c.to }]
        )
        return { leaseHeld: true, wentAhead: true, recorded: true, value: { keyTaken: false, channelsChanged: false, live } }
      })
  }),
  makeTestLayer(PostsReadRepo)({
    loadOr404: () => Effect.succeed(storedDraft),
    itemsOf: () =>
      Effect.succeed([
        {
          postId: storedDraft.posts[0]!.id,
          position: 0,
          content: "Our launch video",
          delayMinutes: 0,
          media: [
            { id: videoId, alt: "", url: video.path, mime: "video/mp4", name: "launch.mp4", size: 1000, type: "video", width: 1280, height: 720 }
          ]
        }
      ]),
    // the answer is rendered by the real store; here "not found" marks that the write happened first
    renderWholePost: () => Effect.fail(Errors.postNotFound())
  })
)

const Config = Layer.effect(AppConfig, appConfigFromEnv).pipe(
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ PUBLIC_URL: "http://127.0.0.1" })))
)

const WriterLive = PostWriter.Test.pipe(Layer.provide(TestStores), Layer.provide(Config))

const create = (body: unknown, as: Principal = editor) =>
  Effect.flatMap(PostWriter, (writer) => writer.create(new CreatePosts({ body, idempotencyKey: null }))).pipe(
    authorize("posts.write"),
    Effect.provideService(CurrentPrincipal, as),
    Effect.flip
  )

describe("PostWriter.create: POST /posts rules, without NATS or a database", () => {
  it.layer(WriterLive)((it) => {
    it.effect("a YouTube post needs a video: an image-only body is refused with the channel named", () =>
      Effect.gen(function* () {
        const error = yield* create({ content: "Launch", channels: [{ channelId: youtubeId, settings: { title: "Launch", type: "public" } }] })
        expect(error._tag).toBe("RuleViolations")
        expect(error.errors?.map((e) => e.message)).toEqual(["Our YouTube: this network needs a video on the post."])
      })
    )

    it.effect("the same post with the uploaded video passes every rule and is saved", () =>
      Effect.gen(function* () {
        const before = written.length
        const answer = yield* Effect.flatMap(PostWriter, (writer) =>
          writer.create(
            new CreatePosts({
              body: {
                type: "draft",
                content: "Launch",
                media: [videoId],
                channels: [{ channelId: youtubeId, settings: { title: "Launch", type: "public" } }]
              },
              idempotencyKey: null
            })
          )
        ).pipe(authorize("posts.write"), Effect.provideService(CurrentPrincipal, editor))
        expect(answer.statusCode).toBe(200)
        expect(written.length).toBe(before + 1)
      })
    )

    it.effect("a channel of another workspace (or none) is 404 before any rule", () =>
      Effect.gen(function* () {
        const error = yield* create({ content: "x", channels: ["3f2e1d0c-9b8a-4765-b432-10fedcba9876"] })
        expect(error._tag).toBe("ChannelNotFound")
      })
    )

    it.effect("X counts a link as 23 characters", () =>
      Effect.gen(function* () {
        const error = yield* create({ content: `${"a".repeat(257)} https://example.com/${"b".repeat(100)}`, channels: [xId] })
        expect(error.errors?.[0]?.message).toBe("Our X: the post is too long, 281 of 280 characters.")
      })
    )

    it.effect("a client may not write posts: 403 before anything is read", () =>
      Effect.gen(function* () {
        const error = yield* create({ content: "x", channels: [xId] }, { ...editor, role: "client" })
        expect(error._tag).toBe("Forbidden")
      })
    )

    it.effect("a stored YouTube draft with its uploaded video can be scheduled (the video stays a video)", () =>
      Effect.gen(function* () {
        const before = written.length
        const error = yield* Effect.flatMap(PostWriter, (writer) =>
          writer.setStatus(new SetPostStatus({ postId: groupId, status: "schedule" }))
        ).pipe(authorize("posts.write"), Effect.provideService(CurrentPrincipal, editor), Effect.flip)
        // the rule check passed: the step was written, then the Test store declines to render
        expect(error._tag).toBe("PostNotFound")
        expect(written.length).toBe(before + 1)
        expect(written.at(-1)?.channels[0]?.to).toBe("queued")
      })
    )
  })
})
