import { Config, Effect, Option, type Redacted, Schema } from "effect"
import {
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readCredentials, unknownTool } from "../adapterKit.js"
import { devto } from "../../../domain/networks/publishing.js"
import { checkSettings, listSetting, textSetting } from "../articleSettings.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { call, decodeBody, isSuccess, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * dev.to, the Forem API v1 (developers.forem.com/api/v1): an API key in the `api-key`
 * header; an article is `POST /articles` with its Markdown body, title, tags, canonical
 * URL, series and cover image (`main_image`, an address dev.to fetches). There is no
 * duplicate guard to send (though Forem refuses a second article of the same user with the
 * same title and body) and no API for comments (no follow-ups); a lost answer is settled by
 * the account's own articles (`GET /articles/me/all`), matched by title and body.
 */
const NAME = "dev.to"

export interface DevtoOptions {
  /** DEVTO_API_URL (default https://dev.to/api). */
  readonly apiUrl: string
}

const Given = Schema.Struct({ apiKey: Schema.String.pipe(Schema.minLength(1)) })
const Stored = Schema.Struct({ apiKey: Schema.String, userId: Schema.optional(Schema.Number), username: Schema.optional(Schema.String) })

const User = Schema.Struct({
  id: Schema.Number,
  username: Schema.String,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  profile_image: Schema.optional(Schema.NullOr(Schema.String))
})
const Article = Schema.Struct({ id: Schema.Number, url: Schema.String })
const MyArticle = Schema.Struct({
  id: Schema.Number,
  title: Schema.String,
  url: Schema.String,
  body_markdown: Schema.optional(Schema.NullOr(Schema.String)),
  page_views_count: Schema.optional(Schema.Number),
  public_reactions_count: Schema.optional(Schema.Number),
  comments_count: Schema.optional(Schema.Number)
})
const ErrorBody = Schema.Struct({ error: Schema.String })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(ErrorBody, response), { onNone: () => `HTTP ${response.status}`, onSome: (b) => b.error })
  if (/already been taken/i.test(reason)) {
    return {
      message: `dev.to refused the article: the account already has one with this title and text (${reason}).`,
      fix: "Find the article on dev.to, or change the title or text, then retry."
    }
  }
  if (/tag/i.test(reason)) {
    return { message: `dev.to refused the article's tags: ${reason}.`, fix: "Use at most 4 tags of letters and digits, then retry." }
  }
  return { message: `dev.to refused the article: ${reason}.`, fix: "Change the article as the message says, then retry." }
}

/** dev.to's answer to POST /articles: 201 with the article's id and address. */
export const classifyDevto = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const article = decodeBody(Article, response)
    if (Option.isSome(article) && article.value.url !== "") {
      return PublishAnswer.Published({ releaseId: String(article.value.id), releaseUrl: article.value.url })
    }
  }
  return statusAnswer(NAME, response, rejection)
}

const refuse = (message: string, fix: string) => Effect.fail(PublishAnswer.Rejected({ message, fix }))

/** The article's fields from the post's settings, checked against the catalog's rules first (dev.to would refuse them). */
const articleOf = (request: PublishRequest) =>
  Effect.gen(function* () {
    const settings = request.channel.settings
    yield* checkSettings(devto, settings)
    const title = textSetting(settings, "title") ?? ""
    const canonical = textSetting(settings, "canonical_url")
    const series = textSetting(settings, "series")
    const description = textSetting(settings, "description")
    return {
      title,
      body_markdown: request.item.content,
      published: true,
      tags: listSetting(settings, "tags").map((t) => t.replace(/^#/, "").toLowerCase()),
      ...(canonical === undefined ? {} : { canonical_url: canonical }),
      ...(series === undefined ? {} : { series }),
      ...(description === undefined ? {} : { description })
    }
  })

export const makeDevtoAdapterWith = (options: DevtoOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const base = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const headers = (apiKey: string) => ({
      "api-key": apiKey,
      accept: "application/vnd.forem.api-v1+json",
      "content-type": "application/json"
    })
    const get = (apiKey: string, path: string) => call(outbound, { url: `${base}${path}`, headers: headers(apiKey) })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "apiKey (from Settings → Extensions → DEV Community API Keys)")(input)
        const answer = yield* get(given.apiKey, "/users/me")
        const user = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(User, answer.response) : Option.none()
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const u = user.value
        return {
          credentials: { apiKey: given.apiKey, userId: u.id, username: u.username },
          profile: { accountId: String(u.id), name: u.name || u.username, profile: u.username, picture: u.profile_image ?? null }
        }
      })

    /** The cover by its signed public address (dev.to fetches it); photos only. */
    const coverOf = (request: PublishRequest) =>
      Effect.gen(function* () {
        const [file] = request.media
        if (file === undefined) return {}
        if (file.type === "video" || file.mime.startsWith("video/")) {
          return yield* refuse("dev.to takes a photo as the article's cover, not a video.", "Attach a photo instead, then retry.")
        }
        const address = yield* publicMedia
          .addressOf(file, PUBLIC_MEDIA_TTL_SECONDS)
          .pipe(Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, then retry." })))
        return { main_image: address }
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const article = yield* articleOf(request)
          const cover = yield* coverOf(request)
          const answer = yield* call(outbound, {
            url: `${base}/articles`,
            method: "POST",
            headers: headers(c.apiKey),
            body: JSON.stringify({ article: { ...article, ...cover } })
          })
          return classifyDevto(answer)
        })
      )

    /** The account's articles, newest first (published and not). */
    const myArticles = (apiKey: string, perPage: number) =>
      Effect.map(get(apiKey, `/articles/me/all?per_page=${perPage}`), (answer) =>
        answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Schema.Array(MyArticle), answer.response) : Option.none()
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const title = textSetting(request.channel.settings, "title")
        if (title === undefined) return SearchAnswer.NotFound()
        const articles = yield* myArticles(c.value.apiKey, 30)
        if (Option.isNone(articles)) return SearchAnswer.CannotTell({ reason: "dev.to did not answer with the account's articles" })
        const found = articles.value.find(
          (a) => a.title === title && (a.body_markdown === undefined || a.body_markdown === null || sameText(a.body_markdown, request.item.content))
        )
        return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: String(found.id), releaseUrl: found.url })
      })

    const missing = (message: string) => Statistics.Missing({ message })
    const statistics = {
      channel: (credentials: Redacted.Redacted<Credentials>) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
          const articles = yield* myArticles(c.value.apiKey, 1000)
          if (Option.isNone(articles)) return missing("dev.to did not answer with the account's articles.")
          const all = articles.value
          const sum = (f: (a: (typeof all)[number]) => number | undefined) => all.reduce((n, a) => n + (f(a) ?? 0), 0)
          return Statistics.Metrics({
            metrics: [
              metricToday("Articles", all.length),
              metricToday(
                "Views",
                sum((a) => a.page_views_count),
                "Page views of every article"
              ),
              metricToday(
                "Reactions",
                sum((a) => a.public_reactions_count)
              ),
              metricToday(
                "Comments",
                sum((a) => a.comments_count)
              )
            ]
          })
        }),
      post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
          // page views are shared only in the author's own list, not in GET /articles/{id}
          const articles = yield* myArticles(c.value.apiKey, 1000)
          const article = Option.flatMap(articles, (all) => Option.fromNullable(all.find((a) => String(a.id) === releaseId)))
          if (Option.isNone(article)) return missing("dev.to did not answer with the article's numbers.")
          return Statistics.Metrics({
            metrics: [
              metricToday("Views", article.value.page_views_count ?? 0),
              metricToday("Reactions", article.value.public_reactions_count ?? 0),
              metricToday("Comments", article.value.comments_count ?? 0)
            ]
          })
        })
    }

    const adapter: NetworkAdapter = {
      identifier: "devto",
      connect: { kind: "form" },
      verify,
      // API keys do not expire; a revoked one answers 401 (reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      // the Forem API cannot post comments (the catalog refuses follow-ups before saving)
      publishFollowUp: () =>
        Effect.succeed(
          PublishAnswer.Rejected({
            message: "dev.to's API does not post comments.",
            fix: "Remove the follow-ups of dev.to posts, then retry."
          })
        ),
      search,
      statistics,
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyDevto
    }
    return adapter
  })

export const makeDevtoAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.string("DEVTO_API_URL").pipe(Config.withDefault("https://dev.to/api"), Effect.orDie)
  return yield* makeDevtoAdapterWith({ apiUrl })
})
