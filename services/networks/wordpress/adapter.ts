import { Effect, Option, type Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type Connected,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, noStatistics, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, multipart, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * A self-hosted WordPress site through its REST API (developer.wordpress.org/rest-api):
 * the site's address and an application password (HTTP Basic), GET /wp/v2/users/me to
 * check them, POST /wp/v2/media for the featured image, POST /wp/v2/posts with title,
 * content, status, categories, tags and featured_media. WordPress has no duplicate guard:
 * a lost answer is settled by the author's recent posts with the same title and text.
 */
const NAME = "WordPress"
const TOOLS = ["categories", "tags"] as const

const Stored = Schema.Struct({
  site: Schema.NonEmptyTrimmedString,
  username: Schema.NonEmptyTrimmedString,
  applicationPassword: Schema.NonEmptyTrimmedString,
  userId: Schema.optional(Schema.Number)
})
type Stored = typeof Stored.Type

const User = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  slug: Schema.String,
  avatar_urls: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
const Post = Schema.Struct({ id: Schema.Number, link: Schema.NonEmptyString })
const Media = Schema.Struct({ id: Schema.Number })
const Listed = Schema.Array(
  Schema.Struct({
    id: Schema.Number,
    link: Schema.String,
    title: Schema.Struct({ raw: Schema.optional(Schema.String), rendered: Schema.String }),
    content: Schema.Struct({ raw: Schema.optional(Schema.String), rendered: Schema.String })
  })
)
const Terms = Schema.Array(Schema.Struct({ id: Schema.Number, name: Schema.String, slug: Schema.optional(Schema.String) }))
/** WordPress's errors: `{code, message, data: {status}}`. */
const Problem = Schema.Struct({ code: Schema.String, message: Schema.String })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const problem = decodeBody(Problem, response)
  const reason = Option.match(problem, { onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`, onSome: (p) => p.message })
  const code = Option.match(problem, { onNone: () => "", onSome: (p) => p.code })
  if (response.status === 403 || /cannot|forbidden/.test(code))
    return {
      message: `WordPress refused the post: ${reason}`,
      fix: "Give the user a role that may publish (Author or above), or choose the status draft or pending, then retry."
    }
  if (/categor|tag|term/i.test(reason))
    return {
      message: `WordPress refused the post: ${reason}`,
      fix: "Choose categories and tags the site has (the categories and tags tools), then retry."
    }
  return { message: `WordPress refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

export const classifyWordPress = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const post = isSuccess(answer.response) ? decodeBody(Post, answer.response) : Option.none()
  if (Option.isSome(post)) return PublishAnswer.Published({ releaseId: String(post.value.id), releaseUrl: post.value.link })
  return statusAnswer(NAME, answer.response, rejection)
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** Term ids from a setting: "3, 7" or [3, 7]; None when one is not a whole number. */
export const termIds = (value: unknown): Option.Option<ReadonlyArray<number>> => {
  const parts = (Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : []).map((v) =>
    typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "?"
  )
  const given = parts.filter((p) => p !== "")
  return given.every((p) => /^\d+$/.test(p)) ? Option.some(given.map(Number)) : Option.none()
}

/** The REST API's root under the site's address (pretty permalinks: /wp-json). */
const restOf = (site: string) => `${trimBase(site)}/wp-json`

const basic = (c: Stored) => `Basic ${Buffer.from(`${c.username}:${c.applicationPassword}`).toString("base64")}`

export const makeWordPressAdapter = Effect.gen(function* () {
  const deps = yield* NetworkDeps
  const { outbound } = deps
  const credentialsOf = readCredentials(Stored, NAME)
  const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
    answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
  const get = (c: Stored, path: string) =>
    call(outbound, { url: `${restOf(c.site)}${path}`, headers: { authorization: basic(c), accept: "application/json" } })

  const verify = (input: unknown) =>
    Effect.gen(function* () {
      const given = yield* decodeForVerify(Stored, NAME, "site (the site's address), username and applicationPassword")(input)
      if (!URL.canParse(given.site) || !/^https?:$/.test(new URL(given.site).protocol))
        return yield* new ConnectFailed({ message: `WordPress credentials: site must be the site's http(s) address, not ${given.site}.` })
      const answer = yield* get(given, "/wp/v2/users/me?context=edit")
      const user = read(User, answer)
      if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
      const u = user.value
      const avatars = Object.entries(u.avatar_urls ?? {}).sort(([a], [b]) => Number(b) - Number(a))
      const connected: Connected = {
        credentials: { site: trimBase(given.site), username: given.username, applicationPassword: given.applicationPassword, userId: u.id },
        profile: { accountId: `${new URL(given.site).host} ${u.id}`, name: u.name, profile: u.slug, picture: avatars[0]?.[1] ?? null }
      }
      return connected
    })

  /** The featured image: POST /wp/v2/media (multipart `file`, with its alt text); its media id. */
  const uploadFeatured = (c: Stored, request: PublishRequest) =>
    Effect.gen(function* () {
      const stored = request.media[0]
      if (stored === undefined) return null
      if (stored.type === "video" || stored.mime.startsWith("video/"))
        return yield* Effect.fail(
          PublishAnswer.Rejected({ message: "A WordPress featured image cannot be a video.", fix: "Replace the video with an image, then retry." })
        )
      const file = yield* deps.media
        .read(stored)
        .pipe(
          Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
        )
      const form = multipart([
        { name: "file", filename: file.name || "image", mime: file.mime, bytes: file.bytes },
        ...(stored.alt === undefined || stored.alt === "" ? [] : [{ name: "alt_text", value: stored.alt }])
      ])
      const answer = yield* call(outbound, {
        url: `${restOf(c.site)}/wp/v2/media`,
        method: "POST",
        headers: { authorization: basic(c), "content-type": form.contentType, accept: "application/json" },
        body: form.body,
        timeoutMs: 120_000
      })
      const media = read(Media, answer)
      if (Option.isSome(media)) return media.value.id
      const why = classifyWordPress(answer)
      // an image without a post is harmless: the post was not sent, so a retry is safe
      return yield* Effect.fail(
        why._tag === "Rejected" || why._tag === "RateLimited"
          ? why
          : PublishAnswer.FailedBeforeSending({
              reason: `uploading the featured image failed: ${why._tag === "NoAnswer" ? why.reason : "no media id"}`
            })
      )
    })

  const publish = (request: PublishRequest) =>
    answerOf(
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials)
        const settings = request.channel.settings
        const title = text(settings["title"])
        if (title === undefined) return PublishAnswer.Rejected({ message: "A WordPress post needs a title.", fix: "Set the title, then retry." })
        const categories = termIds(settings["categories"])
        const tags = termIds(settings["tags"])
        if (Option.isNone(categories) || Option.isNone(tags))
          return PublishAnswer.Rejected({
            message: "WordPress categories and tags are given by their ids.",
            fix: "List the ids with the categories and tags tools, set them comma-separated, then retry."
          })
        const featured = yield* uploadFeatured(c, request)
        const answer = yield* call(outbound, {
          url: `${restOf(c.site)}/wp/v2/posts`,
          method: "POST",
          headers: { authorization: basic(c), "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            title,
            content: request.item.content,
            status: text(settings["status"]) ?? "publish",
            ...(categories.value.length === 0 ? {} : { categories: categories.value }),
            ...(tags.value.length === 0 ? {} : { tags: tags.value }),
            ...(featured === null ? {} : { featured_media: featured })
          })
        })
        return classifyWordPress(answer)
      })
    )

  /** The author's recent posts of any status with the post's title, compared by title and text. */
  const search = (request: PublishRequest) =>
    Effect.gen(function* () {
      const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
      if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
      const title = text(request.channel.settings["title"]) ?? ""
      const query = new URLSearchParams({
        search: title,
        status: "publish,future,draft,pending,private",
        context: "edit",
        per_page: "20",
        orderby: "date",
        order: "desc"
      })
      if (c.value.userId !== undefined) query.set("author", String(c.value.userId))
      const answer = yield* get(c.value, `/wp/v2/posts?${query.toString()}`)
      const posts = read(Listed, answer)
      if (Option.isNone(posts))
        return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
      const found = posts.value.find(
        (p) => sameText(p.title.raw ?? p.title.rendered, title) && sameText(p.content.raw ?? p.content.rendered, request.item.content)
      )
      return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: String(found.id), releaseUrl: found.link })
    })

  const listTerms = (credentials: Redacted.Redacted<Credentials>, taxonomy: "categories" | "tags", word: string | undefined) =>
    Effect.gen(function* () {
      const c = yield* credentialsOf(credentials).pipe(
        Effect.mapError(() => Errors.badRequest("The channel's WordPress connection cannot be read. Reconnect it."))
      )
      const query = new URLSearchParams({ per_page: "100", orderby: "name", ...(word === undefined ? {} : { search: word }) })
      const terms = read(Terms, yield* get(c, `/wp/v2/${taxonomy}?${query.toString()}`))
      if (Option.isNone(terms))
        return yield* Effect.fail(Errors.badRequest(`WordPress did not answer with the site's ${taxonomy}. Try again in a minute.`))
      return { [taxonomy]: terms.value.map((t) => ({ id: t.id, name: t.name })) }
    })

  const adapter: NetworkAdapter = {
    identifier: "wordpress",
    connect: { kind: "form" },
    verify,
    // application passwords do not expire (they may be revoked: publishing then says to reconnect)
    tokensNeverExpire: true,
    refresh: () => Effect.succeed(Refresh.Unchanged()),
    publish,
    publishFollowUp: () =>
      Effect.succeed(
        PublishAnswer.Rejected({ message: "WordPress posts take no follow-up comments from this service.", fix: "Remove the follow-up." })
      ),
    search,
    // WordPress core keeps no statistics (they come from plugins)
    statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
    runTool: ({ credentials, methodName, data }) =>
      methodName === "categories" || methodName === "tags"
        ? listTerms(credentials, methodName, text(data["word"]))
        : unknownTool(methodName, NAME, TOOLS),
    classify: classifyWordPress
  }
  return adapter
})
