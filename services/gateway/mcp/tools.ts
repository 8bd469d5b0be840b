import { Effect, Option, ParseResult, Schema } from "effect"
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../../domain/idempotency.js"
import { ChannelId, CustomerId, PostRef, Uuid } from "../../../domain/ids.js"
import { rulesByIdentifier } from "../../../domain/networks/index.js"
import { networkList } from "../../networks/NetworkAdapters.js"
import { FullPostBody, isSimplePostBody, SettingsObject, SimplePostBody } from "../../../domain/posts/body.js"
import { Channel, ChannelHealth, Customer, IntegrationSettings, TriggerPayload } from "../../../protocol/http/account.js"
import { MediaItem, UploadFromUrlPayload } from "../../../protocol/http/media.js"
import { NetworkItem, NetworkRules, Notification } from "../../../protocol/http/networks.js"
import { CreatedPostRow, PostAttempt, PostPreview, PostRow, WholePost } from "../../../protocol/http/postResources.js"
import { StatisticsMetric, StatisticsMissing, type StatisticsAnswer } from "../../../protocol/http/analytics.js"
import { FreeSlot } from "../../../protocol/http/slots.js"
import { EventsPage } from "../../../protocol/http/events.js"
import { EventLog } from "../../webhooks/EventLog.js"
import { jsonSchemaOf } from "../../../protocol/mcp/jsonSchema.js"
import { checkAnalyticsRange } from "../../../domain/analytics.js"
import { Analytics } from "../../analytics/Analytics.js"
import { FreeSlots } from "../../slots/FreeSlots.js"
import { Channels } from "../../channels/Channels.js"
import { MediaLibrary } from "../../media/MediaLibrary.js"
import { Notifications } from "../../notifications/Notifications.js"
import { authorize } from "../../platform/policy.js"
import { Posts } from "../../posts/Posts.js"
import { PostsImport } from "../../posts/PostsImport.js"
import { ImportAnswer } from "../../../protocol/http/postsBulk.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { RateWindows } from "../../actors/rateWindows.js"
import { importAdmission } from "../http/postsBulkHttp.js"
import { defineTool, type Tool } from "./tool.js"

/**
 * The MCP tools: one entry each. An entry calls the same feature service method as its
 * REST handler (services/gateway/http/), inside the same `authorize` (domain/policy.ts),
 * so MCP has no rule of its own. To add a tool, add an entry to `mcpTools` (and, for a
 * new feature service, its layer to McpFeaturesLive in services/gateway/mcp/mcpRoute.ts).
 */

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const
const postChange = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const

const PostIdArg = PostRef.annotations({ description: "A per-channel post id or the id of the whole post (its group)" })
const ChannelIdArg = ChannelId.annotations({ description: "A channel id from list_channels" })
const PageArg = Schema.Number.pipe(Schema.int(), Schema.between(1, 1_000_000))

const IdempotencyKeyArg = Schema.String.pipe(Schema.maxLength(MAX_IDEMPOTENCY_KEY_LENGTH)).annotations({
  description:
    "Optional. Works like the REST Idempotency-Key header: send the same key with the same arguments again (after " +
    "a timeout, say) and you get the first answer with replayed: true and no second post; the same key with other " +
    "arguments is refused (idempotency_key_reused). Kept 24 hours."
})

const postBodyDescription = (intro: string) =>
  `${intro} Two forms, as in POST /public/v1/posts: the simple one, {content, channels: [channel ids], ` +
  `thread?: [{content, delay}]}, or the full one, {posts: [{integration: {id: channelId}, value: [{content, ` +
  `image?: [{id}]}, …follow-ups], settings?}]}. type: draft, schedule (default), now or review; date: ISO ` +
  `8601 with a time zone (for schedule and review not in the past). Every channel is checked against its ` +
  `network's rules before anything is saved; on a problem nothing is saved and the error lists each problem ` +
  `per channel (read get_channel_rules first). Media ids come from upload_media_from_url or list_media.`

const postBodyJsonSchema = (required: Readonly<Record<string, unknown>>) => ({
  type: "object",
  properties: { idempotencyKey: jsonSchemaOf(IdempotencyKeyArg), ...required },
  ...(Object.keys(required).length > 0 ? { required: Object.keys(required) } : {}),
  anyOf: [jsonSchemaOf(SimplePostBody, "allow"), jsonSchemaOf(FullPostBody, "allow")]
})

const PostsWritten = Schema.Struct({
  posts: Schema.Array(CreatedPostRow),
  replayed: Schema.Boolean.annotations({ description: "True when this is the kept answer of an earlier call with the same idempotencyKey" })
})
const decodeCreatedRows = Schema.decodeUnknown(Schema.Array(CreatedPostRow))

const Arguments = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * create_post / edit_post arguments: the POST /posts body itself (checked against both
 * forms here, so a wrong type is answered before the actor) plus `idempotencyKey`. The body goes
 * on to the actor exactly as written, like the REST body it mirrors.
 */
const postArgs = <F extends Schema.Struct.Fields>(required: F) => {
  const Required = Schema.Struct({ idempotencyKey: Schema.optional(IdempotencyKeyArg), ...required })
  return Schema.transformOrFail(Arguments, Schema.typeSchema(Schema.Struct({ idempotencyKey: Schema.optional(Schema.String), body: Arguments })), {
    strict: true,
    decode: (raw) =>
      Effect.gen(function* () {
        yield* ParseResult.decodeUnknown(Required)(raw)
        const { idempotencyKey, ...body } = raw
        // the form's field checks, picked as the actor's reader picks them
        if (isSimplePostBody(body)) yield* ParseResult.decodeUnknown(SimplePostBody)(body)
        else yield* ParseResult.decodeUnknown(FullPostBody)(body)
        return { idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined, body }
      }),
    encode: ({ body, idempotencyKey }) => ParseResult.succeed(idempotencyKey === undefined ? body : { ...body, idempotencyKey })
  })
}

/** POST /posts through the workspace actor: the same command as REST (rules, idempotency, 90 an hour), creationMethod `mcp`. */
const writePost = ({ body, idempotencyKey }: { readonly idempotencyKey?: string | undefined; readonly body: unknown }) =>
  Effect.gen(function* () {
    const posts = yield* Posts
    const answer = yield* posts.create(body, idempotencyKey ?? null, "mcp")
    return { posts: yield* Effect.orDie(decodeCreatedRows(answer.body)), replayed: answer.replayed }
  }).pipe(authorize("posts.write"))

/** Statistics as a tool answers them: an object (MCP structured output), the metrics or why there are none. */
const ToolStatistics = Schema.Union(Schema.Struct({ metrics: Schema.Array(StatisticsMetric) }), StatisticsMissing)
const toolStatistics = (answer: StatisticsAnswer) => ("missing" in answer ? answer : { metrics: answer })

/** What the tools' service calls need, all of it in the gateway (CurrentPrincipal is given per request). */
export type McpToolServices = Effect.Effect.Context<ReturnType<(typeof toolList)[number]["call"]>>

const toolList = [
  defineTool({
    name: "list_channels",
    title: "List channels",
    description:
      "Lists the workspace's channels (connected social accounts, pages or profiles): id, name, network " +
      "(identifier), whether it is disabled or must be reconnected, and its customer. Use a channel's id in " +
      "create_post. Give customerId to list one customer's channels.",
    annotations: readOnly,
    input: Schema.Struct({
      customerId: Schema.optional(CustomerId.annotations({ description: "Only this customer's channels (from list_customers)" }))
    }),
    output: Schema.Struct({ channels: Schema.Array(Channel) }),
    run: ({ customerId }) =>
      Effect.flatMap(Channels, (c) => c.list(customerId ?? null)).pipe(
        authorize("channels.read"),
        Effect.map((channels) => ({ channels }))
      )
  }),
  defineTool({
    name: "list_customers",
    title: "List customers",
    description: "Lists the workspace's customers (groups of channels, for example one per client of an agency), sorted by name.",
    annotations: readOnly,
    input: Schema.Struct({}),
    output: Schema.Struct({ customers: Schema.Array(Customer) }),
    run: () =>
      Effect.flatMap(Channels, (c) => c.listCustomers).pipe(
        authorize("channels.read"),
        Effect.map((customers) => ({ customers }))
      )
  }),
  defineTool({
    name: "list_networks",
    title: "List networks",
    description:
      "Lists every social network the service posts to: identifier, name, maximum post length, whether follow-up comments work, and what a post needs (media, video or nothing).",
    annotations: readOnly,
    input: Schema.Struct({}),
    output: Schema.Struct({ networks: Schema.Array(NetworkItem) }),
    run: () => Effect.map(networkList, (list) => ({ networks: list }))
  }),
  defineTool({
    name: "get_network_rules",
    title: "Rules of a network",
    description:
      "The posting rules of one network (by identifier, from list_networks): a plain-language summary, the maximum length and the settings a post may carry.",
    annotations: readOnly,
    input: Schema.Struct({ network: Schema.String.annotations({ description: "A network identifier, for example mastodon or x" }) }),
    output: NetworkRules,
    run: ({ network }) => rulesByIdentifier(network)
  }),
  defineTool({
    name: "get_channel_rules",
    title: "Rules and settings of a channel",
    description:
      "The rules of one channel's network as they apply to this channel: maximum length, what a post needs, how many " +
      "media, whether follow-ups work, the settings a post may carry (keys for create_post's settings) and the " +
      "helper tools run_channel_tool can run.",
    annotations: readOnly,
    input: Schema.Struct({ channelId: ChannelIdArg }),
    output: IntegrationSettings,
    run: ({ channelId }) => Effect.flatMap(Channels, (c) => c.settings(channelId)).pipe(authorize("channels.read"))
  }),
  defineTool({
    name: "get_channel_health",
    title: "Health of a channel",
    description:
      "Whether a channel keeps working (the same answer as GET /integrations/{id}/health): when its token expires, when a " +
      "post last went live on it, the last token refresh and its result (refreshed, refused, unavailable), the network's " +
      "publishing quota left where the network tells it, and how many queued posts are due before the token expires. Use " +
      "it before scheduling many posts on a channel, or to explain why a channel may stop.",
    annotations: readOnly,
    input: Schema.Struct({ channelId: ChannelIdArg }),
    output: ChannelHealth,
    run: ({ channelId }) => Effect.flatMap(Channels, (c) => c.health(channelId)).pipe(authorize("channels.read"))
  }),
  defineTool({
    name: "run_channel_tool",
    title: "Run a channel's helper tool",
    description:
      "Runs one of the helper tools a channel's network offers (names and their data keys are in get_channel_rules " +
      "under tools), for example listing a Discord server's channels. The answer is the network's, under output.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: Schema.Struct({ channelId: ChannelIdArg, ...TriggerPayload.fields }),
    output: Schema.Struct({ output: Schema.Unknown }),
    run: ({ channelId, methodName, data }) =>
      Effect.flatMap(Channels, (c) => c.trigger(channelId, methodName, data ?? {})).pipe(authorize("channels.runTool"))
  }),
  defineTool({
    name: "list_posts",
    title: "List posts",
    description:
      "Lists posts whose time is between startDate and endDate (ISO 8601; default 30 days back to 30 days ahead), " +
      "oldest first, one row per channel with its status (draft, queued, publishing, published, error, unconfirmed) " +
      "and error with a fix when it failed. Follow-up comments are not listed: read them with get_post.",
    annotations: readOnly,
    input: Schema.Struct({
      startDate: Schema.optional(Schema.String.annotations({ description: "ISO 8601, default 30 days ago" })),
      endDate: Schema.optional(Schema.String.annotations({ description: "ISO 8601, default 30 days from now" })),
      customerId: Schema.optional(Uuid.annotations({ description: "Only posts on this customer's channels" }))
    }),
    output: Schema.Struct({ posts: Schema.Array(PostRow) }),
    run: ({ customerId, endDate, startDate }) =>
      Effect.flatMap(Posts, (p) => p.list({ startDate, endDate, customer: customerId })).pipe(authorize("posts.read"))
  }),
  defineTool({
    name: "get_post",
    title: "Get a post",
    description:
      "The whole post by a per-channel id or its group id: status, time, every channel with its first item and follow-ups (each with state, live link, error and fix), comments and history.",
    annotations: readOnly,
    input: Schema.Struct({ postId: PostIdArg }),
    output: WholePost,
    run: ({ postId }) => Effect.flatMap(Posts, (p) => p.get(postId)).pipe(authorize("posts.read"))
  }),
  defineTool({
    name: "create_post",
    title: "Create a post",
    description: postBodyDescription(
      "Creates a post for one or more channels: a draft, scheduled for a time, published now, or sent to the client " +
        "for review. Answers one row per channel with postId, group (the whole post's id), status and a previewUrl " +
        "anyone can open. At most 90 calls an hour per workspace."
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: postArgs({}),
    inputJsonSchema: postBodyJsonSchema({}),
    output: PostsWritten,
    run: writePost
  }),
  defineTool({
    name: "preview_post",
    title: "Preview a post",
    description: postBodyDescription(
      "Saves nothing: answers, per channel, exactly what its network will receive (text as the network counts it, " +
        "short links, files and their preparation, settings), the problems create_post would refuse it for, warnings " +
        "close to a limit, and a planId. Call create_post with the same body plus planId to publish exactly that plan; " +
        "it is refused (409, naming what changed) if a channel, a rule or the body changed meanwhile."
    ),
    annotations: readOnly,
    input: postArgs({}),
    inputJsonSchema: postBodyJsonSchema({}),
    output: PostPreview,
    run: ({ body }) => Effect.flatMap(Posts, (posts) => posts.preview(body)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "edit_post",
    title: "Edit a post",
    description: postBodyDescription(
      "Replaces an existing post (groupId: the whole post's id from create_post or list_posts) with these channels " +
        "and texts; channels already published or publishing stay as they are. Same answer as create_post."
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: postArgs({ groupId: Uuid }),
    inputJsonSchema: postBodyJsonSchema({ groupId: jsonSchemaOf(Uuid.annotations({ description: "The id of the whole post to edit" })) }),
    output: PostsWritten,
    run: writePost
  }),
  defineTool({
    name: "move_post",
    title: "Move a post",
    description:
      "Moves a post to another time (ISO 8601 with a time zone, not in the past). Every channel that is draft, queued or failed moves; failed ones are queued again; published ones stay.",
    annotations: postChange,
    input: Schema.Struct({ postId: PostIdArg, date: Schema.String.annotations({ description: "ISO 8601 with a time zone" }) }),
    output: WholePost,
    run: ({ date, postId }) => Effect.flatMap(Posts, (p) => p.move(postId, date)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "set_post_status",
    title: "Switch a post between draft and scheduled",
    description:
      "draft stops the post's queued and failed channels and keeps them as drafts; schedule checks the drafts " +
      "against their networks' rules and queues them for the post's time (or now when that time has passed).",
    annotations: postChange,
    input: Schema.Struct({ postId: PostIdArg, status: Schema.Literal("draft", "schedule") }),
    output: WholePost,
    run: ({ postId, status }) => Effect.flatMap(Posts, (p) => p.setStatus(postId, status)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "set_post_settings",
    title: "Change a post's network settings",
    description:
      "Merges settings (keys from get_channel_rules) into one channel's post before it publishes; keys left out keep " +
      "their value. With a group id only the post's first channel changes, so give a per-channel id for a post on " +
      "several channels.",
    annotations: postChange,
    input: Schema.Struct({ postId: PostIdArg, settings: SettingsObject }),
    output: WholePost,
    run: ({ postId, settings }) => Effect.flatMap(Posts, (p) => p.setSettings(postId, settings)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "delete_post",
    title: "Delete a post",
    description: "Deletes the whole post on every channel, also when a per-channel id is given. Posts already live stay on the networks.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    input: Schema.Struct({ postId: PostIdArg }),
    output: Schema.Struct({ error: Schema.Literal(false), success: Schema.Literal(true) }),
    run: ({ postId }) => Effect.flatMap(Posts, (p) => p.remove(postId)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "retry_post",
    title: "Retry a failed post",
    description:
      "Queues again, now, every channel of the post that failed or is unconfirmed, and failed follow-ups. For an " +
      "unconfirmed channel first check with find_missing_post that the post is not live already.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: Schema.Struct({ postId: PostIdArg }),
    output: WholePost,
    run: ({ postId }) => Effect.flatMap(Posts, (p) => p.retry(postId)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "find_missing_post",
    title: "Search the network for a post",
    description:
      "Asks the channel's network for a recent post of the account with the same text as the post's first item (use " +
      "it for an unconfirmed post). matches holds 0 or 1 item {id, url}; networks that cannot search answer none.",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: Schema.Struct({ postId: PostIdArg }),
    output: Schema.Struct({ matches: Schema.Array(Schema.Struct({ id: Schema.String, url: Schema.String })) }),
    run: ({ postId }) =>
      Effect.flatMap(Posts, (p) => p.missing(postId)).pipe(
        authorize("posts.read"),
        Effect.map((matches) => ({ matches }))
      )
  }),
  defineTool({
    name: "set_release_id",
    title: "Link a live post",
    description:
      "Marks one channel's post as published with the network's id (and address) of the live post, for example one find_missing_post found; its waiting follow-ups then go out.",
    annotations: postChange,
    input: Schema.Struct({
      postId: PostIdArg,
      releaseId: Schema.String.annotations({ description: "The post's id on the network" }),
      releaseUrl: Schema.optional(Schema.String.annotations({ description: "The post's address on the network" }))
    }),
    output: WholePost,
    run: ({ postId, releaseId, releaseUrl }) =>
      Effect.flatMap(Posts, (p) => p.linkRelease(postId, releaseId, releaseUrl ?? null)).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "upload_media_from_url",
    title: "Import a file from an address",
    description:
      "Adds a file (JPG, PNG, GIF, WEBP, MP4, MOV or WEBM) from a public http or https address that opens the file " +
      "itself, not a page about it, to the media library. Use the answer's id in a post's image list.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: UploadFromUrlPayload,
    output: MediaItem,
    run: ({ url }) => Effect.flatMap(MediaLibrary, (m) => m.importUrl(url)).pipe(authorize("media.upload"))
  }),
  defineTool({
    name: "list_media",
    title: "List media",
    description:
      "The media library, newest first, 40 a page (a page with fewer is the last); search finds files whose name or alt text contains the text.",
    annotations: readOnly,
    input: Schema.Struct({
      page: Schema.optional(PageArg.annotations({ description: "Starts at 1 (default 1)" })),
      search: Schema.optional(Schema.String)
    }),
    output: Schema.Struct({ media: Schema.Array(MediaItem) }),
    run: ({ page, search }) =>
      Effect.flatMap(MediaLibrary, (m) => m.list({ page: page ?? 1, search: search ?? null })).pipe(Effect.map((media) => ({ media })))
  }),
  defineTool({
    name: "list_notifications",
    title: "List notifications",
    description: "What happened to the workspace's posts and channels (published, failed, unconfirmed, disconnected…), newest first, 50 a page.",
    annotations: readOnly,
    input: Schema.Struct({ page: Schema.optional(PageArg.annotations({ description: "Starts at 1 (default 1)" })) }),
    output: Schema.Struct({ notifications: Schema.Array(Notification), page: Schema.Number }),
    run: ({ page }) => Effect.flatMap(Notifications, (n) => n.list(page ?? 1)).pipe(authorize("notifications.read"))
  }),
  defineTool({
    name: "find_free_slot",
    title: "Find the next free posting time",
    description:
      "The next free time to post (UTC), from the channels' posting times: the same answer as GET /find-slot (or " +
      "/find-slot/{id} with channelId) for the same input. Times already taken by a queued or draft post are " +
      "skipped; at least 5 minutes from now, at most 90 days ahead. tzOffsetMinutes (-840 to 840, minutes to add to " +
      "UTC for local time) overrides the profile's time zone.",
    annotations: readOnly,
    input: Schema.Struct({
      channelId: Schema.optional(ChannelIdArg.annotations({ description: "Only this channel's posting times (default: every channel)" })),
      tzOffsetMinutes: Schema.optional(Schema.Number.annotations({ description: "Minutes to add to UTC to get local time, -840 to 840" }))
    }),
    output: FreeSlot,
    run: ({ channelId, tzOffsetMinutes }) =>
      Effect.flatMap(FreeSlots, (slots) =>
        slots.find({ channelId: Option.fromNullable(channelId), tzOffsetMinutes: Option.fromNullable(tzOffsetMinutes) })
      ).pipe(authorize("channels.read"))
  }),
  defineTool({
    name: "get_channel_analytics",
    title: "Channel statistics",
    description:
      "Daily statistics of a channel from its network (the same answer as GET /analytics/{channel}): each metric " +
      "with its daily totals and percentageChange against the previous period. days: 7, 30 (default) or 90; a " +
      "network that keeps less answers its longest range. {missing: true, message} when the network shares no " +
      "statistics.",
    annotations: { ...readOnly, openWorldHint: true },
    input: Schema.Struct({
      channelId: ChannelIdArg,
      days: Schema.optional(Schema.Number.annotations({ description: "7, 30 or 90 (default 30)" }))
    }),
    output: ToolStatistics,
    run: ({ channelId, days }) =>
      Effect.gen(function* () {
        const range = yield* checkAnalyticsRange(days)
        const analytics = yield* Analytics
        return toolStatistics(yield* analytics.channel(channelId, Option.some(range)))
      }).pipe(authorize("channels.read"))
  }),
  defineTool({
    name: "get_post_analytics",
    title: "Post statistics",
    description:
      "Statistics of a published post on its channel (the same answer as GET /analytics/post/{id}): one point dated " +
      "today per metric, short-link clicks included. {missing: true, message} before the post is published or when " +
      "the network shares nothing.",
    annotations: { ...readOnly, openWorldHint: true },
    input: Schema.Struct({ postId: PostIdArg }),
    output: ToolStatistics,
    run: ({ postId }) => Effect.flatMap(Analytics, (analytics) => analytics.post(postId)).pipe(Effect.map(toolStatistics), authorize("posts.read"))
  }),
  defineTool({
    name: "get_post_attempts",
    title: "Post attempt timeline",
    description:
      "Every publish attempt of a post (per-channel id or group id; the same answer as GET /posts/{id}/attempts): for each " +
      "channel and item, when it started, what was asked of the network (publish, follow-up, continue, search), how long it " +
      "took, the network's status and error text as received, the outcome and each network call. Use it to explain a failure.",
    annotations: readOnly,
    input: Schema.Struct({ postId: PostIdArg }),
    output: Schema.Struct({ attempts: Schema.Array(PostAttempt) }),
    run: ({ postId }) =>
      Effect.flatMap(Posts, (p) => p.attempts(postId)).pipe(
        Effect.map((attempts) => ({ attempts })),
        authorize("posts.read")
      )
  }),
  defineTool({
    name: "import_posts",
    title: "Import posts from a file",
    description:
      "Schedules many posts at once from the text of a CSV file (header date,channels,content,media,settings,tags; channels, " +
      "media and tags separated by ;, settings as JSON) or of JSON lines (one object a line with the same fields); the same " +
      "answer as POST /public/v1/posts/import. Every row is checked with the rules of create_post first and answered saved, " +
      "valid (dryRun) or refused with create_post's error. Run it with dryRun: true first. 100 rows count as one create_post " +
      "call of the 90 an hour; over it nothing is saved. idempotencyKey covers the whole file.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: Schema.Struct({
      file: Schema.String.annotations({ description: "The CSV or JSON lines text, at most 5000 rows" }),
      format: Schema.optional(Schema.Literal("csv", "jsonl").annotations({ description: "csv (default) or jsonl" })),
      dryRun: Schema.optional(Schema.Boolean.annotations({ description: "true: check every row, save nothing" })),
      idempotencyKey: Schema.optional(IdempotencyKeyArg)
    }),
    output: ImportAnswer,
    run: ({ dryRun, file, format, idempotencyKey }) =>
      Effect.gen(function* () {
        const importer = yield* PostsImport
        const { workspaceId } = yield* CurrentPrincipal
        const admit = importAdmission(yield* RateWindows)(workspaceId)
        return yield* importer.run({ text: file, format: format ?? "csv", dryRun: dryRun === true, idempotencyKey: idempotencyKey ?? null, admit })
      }).pipe(authorize("posts.write"))
  }),
  defineTool({
    name: "list_events",
    title: "List events",
    description:
      "The workspace's event log (the same answer as GET /public/v1/events): post.published, post.failed, post.unconfirmed, " +
      "approval and channel events, billing.changed, numbered 1, 2, 3 … with no gaps, oldest first after `after` (default 0). " +
      "Continue from `cursor` while `more` is true. Kept 30 days; use it to catch up on what happened since a sequence number.",
    annotations: readOnly,
    input: Schema.Struct({
      after: Schema.optional(
        Schema.Number.annotations({ description: "The last sequence number already seen; 0 or left out: from the oldest kept" })
      ),
      limit: Schema.optional(Schema.Number.annotations({ description: "How many events, 1 to 1000 (default 100)" }))
    }),
    output: EventsPage,
    run: ({ after, limit }) =>
      Effect.flatMap(EventLog, (log) => log.list({ after, limit: limit === undefined ? undefined : String(limit) })).pipe(
        authorize("webhooks.manage")
      )
  })
]

export const mcpTools: ReadonlyArray<Tool<McpToolServices>> = toolList
