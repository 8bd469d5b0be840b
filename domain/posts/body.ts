import { Either, Predicate, Schema } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { eitherFn } from "../eitherFn.js"
import { Errors, type InvalidDate, type InvalidId, type InvalidRequest } from "../errors.js"
import { isUuid } from "../ids.js"
import { objectWithAtMost } from "../requests.js"
import { isTooFarInPast, readZonedDate } from "./dates.js"
import { expecting, fieldProblem } from "../fieldProblem.js"
import { PostLimits } from "./limits.js"
import { PostMessages } from "./messages.js"
import type { CreationMethod, MediaRef, NormalizedPost, PostEntry, PostItem, PostType, TagRef } from "./normalizedPost.js"
import { htmlToPlainText, looksLikeHtml } from "./plainText.js"

/**
 * The POST /posts body as clients send it (spec "Posts", both forms) and its reading into
 * one NormalizedPost. Unknown fields are ignored: reference clients send extra ones.
 * `null` is read like a missing optional field, for clients that send every key.
 */

// ---- Raw body schemas -------------------------------------------------------------------

const optional = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.optional(Schema.NullOr(schema))

// Ids are plain strings here and checked after decoding, so a bad id answers the
// catalog's invalid-id error (with its fix) rather than a field message.
const Text = expecting(Schema.String, "a string")

const MediaRefBody = expecting(
  Schema.Union(Text, expecting(Schema.Struct({ id: optional(Text), path: optional(Text), alt: optional(Text) }), "an object")),
  "a media id or an object {id, path, alt}"
)
const MediaListBody = expecting(
  Schema.Array(MediaRefBody).pipe(Schema.maxItems(PostLimits.mediaPerItem)),
  `an array of at most ${PostLimits.mediaPerItem} media`
)

/** One channel's network settings (also PUT /posts/{id}/settings). */
export const SettingsObject = objectWithAtMost(PostLimits.settingsKeys)
export const SettingsBody = expecting(SettingsObject, `an object with at most ${PostLimits.settingsKeys} keys`)

const DelayBody = expecting(
  Schema.Number.pipe(Schema.int(), Schema.between(0, PostLimits.delayMinutes)),
  `a whole number of minutes from 0 to ${PostLimits.delayMinutes} (a year)`
)

const TypeBody = expecting(Schema.Literal("draft", "schedule", "now", "review", "update"), "one of draft, schedule, now, review")

const RepeatDaysBody = expecting(Schema.Number.pipe(Schema.int(), Schema.between(1, 365)), "a whole number of days from 1 to 365")

const CreationMethodBody = expecting(Schema.Literal("api", "cli", "mcp", "agent"), "one of api, cli, mcp, agent")

const TagBody = expecting(
  Schema.Union(Text, expecting(Schema.Struct({ value: optional(Text), label: optional(Text) }), "an object")),
  "a tag id or name, or an object {value, label}"
)

/** Fields both forms share. */
const commonFields = {
  type: optional(TypeBody),
  date: optional(Text),
  tags: optional(expecting(Schema.Array(TagBody).pipe(Schema.maxItems(PostLimits.tags)), `an array of at most ${PostLimits.tags} tags`)),
  shortLink: optional(expecting(Schema.Boolean, "true or false")),
  inter: optional(RepeatDaysBody),
  repeatDays: optional(RepeatDaysBody),
  groupId: optional(Text),
  creationMethod: optional(CreationMethodBody)
}

const ItemBody = expecting(
  Schema.Struct({
    content: Text,
    image: optional(MediaListBody),
    /** Alias of `image`. */
    media: optional(MediaListBody),
    delay: optional(DelayBody),
    /** An existing item's id, sent by reference clients when editing; ignored. */
    id: Schema.optional(Schema.Unknown)
  }),
  "an object {content, image, delay}"
)

const EntryBody = expecting(
  Schema.Struct({
    integration: optional(expecting(Schema.Struct({ id: Text }), "an object {id}")),
    channelId: optional(Text),
    value: expecting(
      Schema.Array(ItemBody).pipe(Schema.maxItems(PostLimits.itemsPerChannel)),
      `an array of at most ${PostLimits.itemsPerChannel} items`
    ),
    settings: optional(SettingsBody),
    group: optional(Text)
  }),
  "an object {integration, value, settings}"
)

/** The full form: one entry per channel, each with its own items. */
export const FullPostBody = expecting(
  Schema.Struct({
    posts: expecting(
      Schema.Array(EntryBody).pipe(Schema.maxItems(PostLimits.channels)),
      `an array of at most ${PostLimits.channels} entries, one per channel`
    ),
    ...commonFields
  }),
  "a JSON object"
)
export type FullPostBody = typeof FullPostBody.Type

const ThreadItemBody = expecting(
  Schema.Struct({ content: Text, delay: optional(DelayBody), media: optional(MediaListBody) }),
  "an object {content, delay}"
)
/** The follow-ups only: the post itself is the first of a channel's items. */
const MAX_FOLLOW_UPS = PostLimits.itemsPerChannel - 1
const ThreadBody = expecting(
  Schema.Array(ThreadItemBody).pipe(Schema.maxItems(MAX_FOLLOW_UPS)),
  `an array of at most ${MAX_FOLLOW_UPS} follow-up items`
)

const ChannelBody = expecting(
  Schema.Union(
    Text,
    expecting(
      Schema.Struct({
        channelId: Text,
        content: optional(Text),
        media: optional(MediaListBody),
        settings: optional(SettingsBody),
        thread: optional(ThreadBody)
      }),
      "an object {channelId, content, media, settings, thread}"
    )
  ),
  "a channel id or an object {channelId, content, media, settings, thread}"
)

/** The simpler form: one text for every channel; a channel object changes it for that channel. */
export const SimplePostBody = expecting(
  Schema.Struct({
    channels: expecting(Schema.Array(ChannelBody).pipe(Schema.maxItems(PostLimits.channels)), `an array of at most ${PostLimits.channels} channels`),
    content: optional(Text),
    /** Files of the post for every channel (an addition: `channels[].media` changes them per channel). */
    media: optional(MediaListBody),
    thread: optional(ThreadBody),
    ...commonFields
  }),
  "a JSON object"
)
export type SimplePostBody = typeof SimplePostBody.Type

// ---- Reading ----------------------------------------------------------------------------

/** What reading a body can refuse: a field (named), an id, a date. */
export type BodyError = InvalidRequest | InvalidId | InvalidDate
type Result<A> = Either.Either<A, BodyError>
type Common = Pick<FullPostBody, keyof typeof commonFields>
type RawMedia = typeof MediaRefBody.Type
type RawThreadItem = typeof ThreadItemBody.Type

const bad = (message: string): Result<never> => Either.left(Errors.badRequest(message))

const decode = <A, I>(schema: Schema.Schema<A, I>, raw: unknown): Result<A> =>
  Schema.decodeUnknownEither(schema, { errors: "first" })(raw).pipe(Either.mapLeft((e) => Errors.badRequest(fieldProblem(e, "The request body"))))

const id = (value: string): Result<string> => (isUuid(value) ? Either.right(value) : Either.left(Errors.invalidId()))

const readType = (type: Common["type"]): PostType => (type === "update" || type == null ? "schedule" : type)

/** Spec: ISO 8601 with a zone (years 1970 to 9999); ignored for `now`; now when left out; schedule and review not in the past. */
const readDate = (type: PostType, date: string | null | undefined, now: Date): Result<{ date: Date; dateGiven: boolean }> => {
  if (type === "now" || date == null) return Either.right({ date: now, dateGiven: false })
  return Either.flatMap(readZonedDate(date, "date", now), (parsed) =>
    (type === "schedule" || type === "review") && isTooFarInPast(parsed, now)
      ? bad(PostMessages.dateInPast)
      : Either.right({ date: parsed, dateGiven: true })
  )
}

const readTags = (tags: Common["tags"]): Result<ReadonlyArray<TagRef>> =>
  Either.all(
    (tags ?? []).map((tag, i): Result<TagRef> => {
      if (typeof tag === "string") {
        const value = tag.trim()
        return value === "" ? bad(PostMessages.tagEmpty(`tags[${i}]`)) : Either.right({ kind: "ref", value })
      }
      const label = (tag.label ?? "").trim()
      const value = (tag.value ?? "").trim()
      // reference clients send the name as label; either one alone is enough
      if (label === "" && value === "") return bad(PostMessages.tagEmpty(`tags[${i}].label`))
      return Either.right({ kind: "create", value: value === "" ? label : value, label: label === "" ? value : label })
    })
  )

const readRepeatDays = (inter: Common["inter"], repeatDays: Common["repeatDays"]): Result<number | null> =>
  inter != null && repeatDays != null && inter !== repeatDays ? bad(PostMessages.repeatConflict) : Either.right(inter ?? repeatDays ?? null)

/**
 * A file given only by `path` keeps id null. Reference CLIs send made-up ids next to a
 * public path, so an id that is not a UUID is dropped when a path is there; the rule
 * check decides whether the path is usable.
 */
const readMedia = (list: ReadonlyArray<RawMedia>, at: string): Result<ReadonlyArray<MediaRef>> =>
  Either.all(
    list.map((media, i): Result<MediaRef> => {
      const ref = typeof media === "string" ? { id: media, path: null, alt: null } : media
      const mediaId = ref.id == null || ref.id.trim() === "" ? null : ref.id.trim()
      const path = ref.path == null || ref.path.trim() === "" ? null : ref.path.trim()
      const alt = ref.alt ?? null
      if (mediaId !== null && isUuid(mediaId)) return Either.right({ id: mediaId, path, alt })
      if (path !== null) return Either.right({ id: null, path, alt })
      return mediaId === null ? bad(PostMessages.mediaRefEmpty(`${at}[${i}]`)) : Either.left(Errors.invalidId())
    })
  )

/** `image` and its alias `media`: whichever has files; both with files is ambiguous. */
const readItemMedia = (
  image: ReadonlyArray<RawMedia> | null | undefined,
  media: ReadonlyArray<RawMedia> | null | undefined,
  at: string
): Result<ReadonlyArray<MediaRef>> => {
  const fromImage = image ?? []
  const fromMedia = media ?? []
  if (fromImage.length > 0 && fromMedia.length > 0) return bad(PostMessages.mediaAliasConflict(at))
  return fromImage.length > 0 ? readMedia(fromImage, `${at}.image`) : readMedia(fromMedia, `${at}.media`)
}

/** `__type` names the network in reference clients; the channel already says which (also PUT /posts/{id}/settings). */
export const readSettings = (settings: Readonly<Record<string, unknown>> | null | undefined): Readonly<Record<string, unknown>> => {
  const { __type: _ignored, ...rest } = settings ?? {}
  return rest
}

/** Content is required: text that is empty once HTML is turned into text is no content. */
const readContent = (raw: string, at: string): Result<string> => {
  const text = htmlToPlainText(raw)
  if (text.trim() !== "") return Either.right(text)
  return bad(looksLikeHtml(raw) ? PostMessages.contentEmptyAfterHtml(at) : PostMessages.contentEmpty(at))
}

const withFirstDelayZero = (items: NonEmptyReadonlyArray<PostItem>): NonEmptyReadonlyArray<PostItem> => {
  const [first, ...rest] = items
  return [{ ...first, delay: 0 }, ...rest]
}

const nonEmpty = <A>(list: ReadonlyArray<A>): list is NonEmptyReadonlyArray<A> => list.length > 0

const checkNoDuplicateChannels = (entries: ReadonlyArray<PostEntry>, at: (i: number) => string): Result<void> => {
  const seen = new Set<string>()
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry.channelId)) return bad(PostMessages.duplicateChannel(at(i), entry.channelId))
    seen.add(entry.channelId)
  }
  return Either.void
}

/** The fields both forms share, once the entries are read. */
const readCommon: (body: Common, entries: NonEmptyReadonlyArray<PostEntry>, groupId: string | null, now: Date) => Result<NormalizedPost> = eitherFn(
  function* (body: Common, entries: NonEmptyReadonlyArray<PostEntry>, groupId: string | null, now: Date) {
    const type = readType(body.type)
    const { date, dateGiven } = yield* readDate(type, body.date, now)
    const tags = yield* readTags(body.tags)
    const repeatDays = yield* readRepeatDays(body.inter, body.repeatDays)
    const creationMethod: CreationMethod | null = body.creationMethod ?? null
    return {
      type,
      date,
      dateGiven,
      groupId,
      entries,
      tags,
      shortLink: body.shortLink ?? false,
      repeatDays,
      creationMethod
    }
  }
)

const readFull: (raw: unknown, now: Date) => Result<NormalizedPost> = eitherFn(function* (raw: unknown, now: Date) {
  const body = yield* decode(FullPostBody, raw)
  const entries: Array<PostEntry> = []
  for (const [i, entry] of body.posts.entries()) {
    const at = `posts[${i}]`
    const fromIntegration = entry.integration?.id ?? null
    const fromChannelId = entry.channelId ?? null
    const given = fromIntegration ?? fromChannelId
    if (given === null) return yield* bad(PostMessages.channelMissing(at))
    if (fromChannelId !== null && fromChannelId !== given) return yield* bad(PostMessages.channelConflict(at))
    const channelId = yield* id(given)
    const groupId = entry.group == null ? null : yield* id(entry.group)
    const items: Array<PostItem> = []
    for (const [j, item] of entry.value.entries()) {
      const media = yield* readItemMedia(item.image, item.media, `${at}.value[${j}]`)
      const content = yield* readContent(item.content, `${at}.value[${j}].content`)
      items.push({ content, media, delay: item.delay ?? 0 })
    }
    if (!nonEmpty(items)) return yield* bad(PostMessages.noItems(at))
    entries.push({ channelId, groupId, items: withFirstDelayZero(items), settings: readSettings(entry.settings) })
  }
  if (!nonEmpty(entries)) return yield* bad(PostMessages.noEntries)
  yield* checkNoDuplicateChannels(entries, (i) => `posts[${i}]`)
  // one request edits one post: groupId and every entry's group must agree
  const groupId = body.groupId == null ? null : yield* id(body.groupId)
  const target = groupId ?? entries.find((e) => e.groupId !== null)?.groupId ?? null
  const conflict = entries.findIndex((e) => e.groupId !== null && e.groupId !== target)
  if (conflict >= 0) return yield* bad(PostMessages.groupConflict(`posts[${conflict}]`))
  return yield* readCommon(body, entries, target, now)
})

const readThread = (thread: ReadonlyArray<RawThreadItem>, at: string): Result<ReadonlyArray<PostItem>> =>
  Either.all(
    thread.map((item, i) =>
      Either.all([readMedia(item.media ?? [], `${at}[${i}].media`), readContent(item.content, `${at}[${i}].content`)]).pipe(
        Either.map(([media, content]): PostItem => ({ content, media, delay: item.delay ?? 0 }))
      )
    )
  )

const readSimple: (raw: unknown, now: Date) => Result<NormalizedPost> = eitherFn(function* (raw: unknown, now: Date) {
  const body = yield* decode(SimplePostBody, raw)
  const sharedMedia = yield* readMedia(body.media ?? [], "media")
  const sharedThread = yield* readThread(body.thread ?? [], "thread")
  const entries: Array<PostEntry> = []
  for (const [i, channel] of body.channels.entries()) {
    const at = `channels[${i}]`
    const own = typeof channel === "string" ? null : channel
    const channelId = yield* id(typeof channel === "string" ? channel : channel.channelId)
    const given = own?.content ?? body.content
    if (given == null) return yield* bad(PostMessages.contentMissing)
    const content = yield* readContent(given, own?.content != null ? `${at}.content` : "content")
    const media = own?.media == null ? sharedMedia : yield* readMedia(own.media, `${at}.media`)
    const thread = own?.thread == null ? sharedThread : yield* readThread(own.thread, `${at}.thread`)
    const first: PostItem = { content, media, delay: 0 }
    entries.push({ channelId, groupId: null, items: [first, ...thread], settings: readSettings(own?.settings) })
  }
  if (!nonEmpty(entries)) return yield* bad(PostMessages.noChannels)
  yield* checkNoDuplicateChannels(entries, (i) => `channels[${i}]`)
  const groupId = body.groupId == null ? null : yield* id(body.groupId)
  return yield* readCommon(body, entries, groupId, now)
})

/**
 * Reads a POST /posts body in either form into one NormalizedPost, or the 400 to answer.
 * The full form is recognised by `posts`; the simpler one by `channels` or `content`.
 */
export const normalizePostBody = (raw: unknown, now: Date): Either.Either<NormalizedPost, BodyError> => {
  if (!Predicate.isRecord(raw)) return bad(PostMessages.bodyNotObject)
  return isSimplePostBody(raw) ? readSimple(raw, now) : readFull(raw, now)
}

/** Whether a body is written in the simpler form (SimplePostBody) rather than the full one. */
export const isSimplePostBody = (raw: Readonly<Record<string, unknown>>): boolean =>
  raw["posts"] == null && (raw["channels"] !== undefined || raw["content"] !== undefined)
