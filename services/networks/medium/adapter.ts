import { Config, Effect, Option, Schema } from "effect"
import { type Connected, type NetworkAdapter, type NetworkAnswer, PublishAnswer, type PublishRequest, Refresh } from "../adapter.js"
import { answerOf, cannotSearch, connectFailedFrom, decodeForVerify, noStatistics, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { bearerJson, call, decodeBody, excerpt, isSuccess, multipart, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Medium's API (github.com/Medium/medium-api-docs): an integration token (Medium issues no
 * new ones; existing tokens keep working and never expire), GET /me for the author id,
 * POST /users/{authorId}/posts with title, contentFormat, content, tags, canonicalUrl and
 * publishStatus; an image is uploaded with POST /images and placed in the content by the
 * address Medium answers. The API cannot list an author's posts and has no duplicate
 * guard: a lost answer ends `unconfirmed`. No comments, no statistics.
 */
const NAME = "Medium"

export interface MediumOptions {
  readonly apiUrl: string
}

const Stored = Schema.Struct({ integrationToken: Schema.NonEmptyTrimmedString, authorId: Schema.optional(Schema.String) })
type Stored = typeof Stored.Type

const User = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    username: Schema.String,
    name: Schema.optional(Schema.String),
    url: Schema.optional(Schema.String),
    imageUrl: Schema.optional(Schema.String)
  })
})
const Post = Schema.Struct({ data: Schema.Struct({ id: Schema.NonEmptyString, url: Schema.NonEmptyString }) })
const Image = Schema.Struct({ data: Schema.Struct({ url: Schema.NonEmptyString }) })
/** Medium's errors: `{errors: [{message, code}]}`. */
const Problem = Schema.Struct({ errors: Schema.NonEmptyArray(Schema.Struct({ message: Schema.String, code: Schema.optional(Schema.Number) })) })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(Problem, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => p.errors.map((e) => e.message).join("; ")
  })
  if (response.status === 403)
    return {
      message: `Medium refused the article: ${reason}`,
      fix: "Check that the integration token's account may publish, or reconnect the channel with a token of the author, then retry."
    }
  return { message: `Medium refused the article: ${reason}`, fix: "Change the title, tags or text as the message says, then retry." }
}

export const classifyMedium = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const post = isSuccess(answer.response) ? decodeBody(Post, answer.response) : Option.none()
  if (Option.isSome(post)) return PublishAnswer.Published({ releaseId: post.value.data.id, releaseUrl: post.value.data.url })
  return statusAnswer(NAME, answer.response, rejection)
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** Medium uses the first three tags and ignores those longer than 25 characters. */
const tagsOf = (value: unknown): ReadonlyArray<string> =>
  (Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [])
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.trim())
    .filter((t) => t !== "" && t.length <= 25)
    .slice(0, 3)

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * The article's content: the title as its heading (Medium shows a title only when the
 * content has it), the image, then the text.
 */
export const articleContent = (format: "markdown" | "html", title: string, body: string, image: { url: string; alt: string } | null) =>
  format === "markdown"
    ? [`# ${title.replace(/\s+/g, " ")}`, ...(image === null ? [] : [`![${image.alt.replace(/[[\]]/g, "")}](${image.url})`]), body].join("\n\n")
    : [
        `<h1>${escapeHtml(title)}</h1>`,
        ...(image === null ? [] : [`<img src="${escapeHtml(image.url)}" alt="${escapeHtml(image.alt)}">`]),
        body
      ].join("")

export const makeMediumAdapterWith = (options: MediumOptions) =>
  Effect.gen(function* () {
    const deps = yield* NetworkDeps
    const { outbound } = deps
    const api = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "integrationToken (from Medium's settings, Integration tokens)")(input)
        const answer = yield* call(outbound, { url: `${api}/me`, headers: bearerJson(given.integrationToken) })
        const user = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(User, answer.response) : Option.none()
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const u = user.value.data
        const connected: Connected = {
          credentials: { integrationToken: given.integrationToken, authorId: u.id },
          profile: { accountId: u.id, name: u.name ?? u.username, profile: u.username, picture: u.imageUrl ?? null }
        }
        return connected
      })

    /** The author id stored at connect; an older channel asks GET /me for it. */
    const authorOf = (c: Stored) =>
      Effect.gen(function* () {
        if (c.authorId !== undefined && c.authorId !== "") return c.authorId
        const answer = yield* call(outbound, { url: `${api}/me`, headers: bearerJson(c.integrationToken) })
        const user = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(User, answer.response) : Option.none()
        if (Option.isSome(user)) return user.value.data.id
        const why = classifyMedium(answer)
        // nothing is posted before the author is known: safe to send again unless Medium refused
        return yield* Effect.fail(
          why._tag === "Rejected" || why._tag === "RateLimited"
            ? why
            : PublishAnswer.FailedBeforeSending({ reason: "Medium did not name the author" })
        )
      })

    /** POST /images with the file's bytes (field `image`): the address Medium keeps it at. */
    const uploadImage = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const stored = request.media[0]
        if (stored === undefined) return null
        if (stored.type === "video" || stored.mime.startsWith("video/"))
          return yield* Effect.fail(
            PublishAnswer.Rejected({ message: "Medium takes images, not videos.", fix: "Replace the video with an image, then retry." })
          )
        const file = yield* deps.media
          .read(stored)
          .pipe(
            Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
          )
        const form = multipart([{ name: "image", filename: file.name || "image", mime: file.mime, bytes: file.bytes }])
        const answer = yield* call(outbound, {
          url: `${api}/images`,
          method: "POST",
          headers: { authorization: `Bearer ${c.integrationToken}`, "content-type": form.contentType, accept: "application/json" },
          body: form.body,
          timeoutMs: 120_000
        })
        const image = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Image, answer.response) : Option.none()
        if (Option.isSome(image)) return { url: image.value.data.url, alt: stored.alt ?? "" }
        const why = classifyMedium(answer)
        // an image without an article is harmless: the article was not sent, so a retry is safe
        return yield* Effect.fail(
          why._tag === "Rejected" || why._tag === "RateLimited"
            ? why
            : PublishAnswer.FailedBeforeSending({ reason: `uploading the image failed: ${why._tag === "NoAnswer" ? why.reason : "no address"}` })
        )
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const settings = request.channel.settings
          const title = text(settings["title"])
          if (title === undefined) return PublishAnswer.Rejected({ message: "A Medium article needs a title.", fix: "Set the title, then retry." })
          const format = settings["contentFormat"] === "html" ? "html" : "markdown"
          const status = text(settings["publishStatus"]) ?? "public"
          const canonicalUrl = text(settings["canonicalUrl"])
          const tags = tagsOf(settings["tags"])
          const author = yield* authorOf(c)
          const image = yield* uploadImage(c, request)
          const answer = yield* call(outbound, {
            url: `${api}/users/${encodeURIComponent(author)}/posts`,
            method: "POST",
            headers: bearerJson(c.integrationToken),
            body: JSON.stringify({
              title: title.slice(0, 100),
              contentFormat: format,
              content: articleContent(format, title, request.item.content, image),
              publishStatus: status,
              ...(tags.length === 0 ? {} : { tags }),
              ...(canonicalUrl === undefined ? {} : { canonicalUrl })
            })
          })
          return classifyMedium(answer)
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "medium",
      connect: { kind: "form" },
      verify,
      // integration tokens do not expire (they may be revoked: publishing then says to reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      publishFollowUp: () =>
        Effect.succeed(PublishAnswer.Rejected({ message: "Medium takes no follow-up comments through its API.", fix: "Remove the follow-up." })),
      // Medium's API cannot list an author's posts: a lost answer ends unconfirmed
      search: () => cannotSearch(NAME),
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyMedium
    }
    return adapter
  })

export const makeMediumAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.string("MEDIUM_API_URL").pipe(Config.withDefault("https://api.medium.com/v1"), Effect.orDie)
  return yield* makeMediumAdapterWith({ apiUrl })
})
