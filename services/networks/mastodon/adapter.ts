import { Config, Effect, Option, Redacted, Schedule, Schema } from "effect"
import {
  ConnectFailed,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readAllMedia, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { bearerJson, call, decodeBody, isSuccess, multipart, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { InstanceLimitKeys } from "../../../domain/networks/instanceLimits.js"
import { htmlToText } from "./htmlText.js"
import { detect, InstanceV1, limitsOf, NodeInfo, NodeInfoLinks, nodeInfoHref, StoredSoftware, type Variant } from "./software.js"

/**
 * Mastodon, any instance (docs.joinmastodon.org): this server registers an app on each
 * instance (POST /api/v1/apps, kept in network_apps), signs in with OAuth
 * (/oauth/authorize + /oauth/token), posts with POST /api/v1/statuses (Idempotency-Key =
 * the item id, which Mastodon honours for an hour), uploads with POST /api/v2/media, and
 * searches the account's own statuses. The same adapter serves the other servers that speak
 * the Mastodon API (Pixelfed, GoToSocial, Pleroma, Akkoma, Friendica, Misskey forks): the
 * software is read at connect and its differences applied (./software.ts).
 */
const NAME = "Mastodon"

export interface MastodonOptions {
  /** MASTODON_URL: the instance GET /social signs in to when the caller names none. */
  readonly defaultInstance: string
  /** MASTODON_APP_NAME: the app's name shown on the instance's consent page. */
  readonly appName: string
  /** MASTODON_CLIENT_ID / MASTODON_CLIENT_SECRET: an app registered by hand on the default instance. */
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const StoredCredentials = Schema.Struct({
  instance: Schema.String,
  accessToken: Schema.String,
  accountId: Schema.optional(Schema.String),
  username: Schema.optional(Schema.String),
  /** Which server software the instance runs, read at connect (absent on channels connected before: Mastodon). */
  software: Schema.optional(StoredSoftware)
})
const GivenCredentials = Schema.Struct({ instance: Schema.String, accessToken: Schema.String })

const Account = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  acct: Schema.optional(Schema.String),
  display_name: Schema.optional(Schema.String),
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  followers_count: Schema.optional(Schema.Number),
  following_count: Schema.optional(Schema.Number),
  statuses_count: Schema.optional(Schema.Number)
})
const Status = Schema.Struct({
  id: Schema.String,
  url: Schema.optional(Schema.NullOr(Schema.String)),
  uri: Schema.optional(Schema.String),
  content: Schema.optional(Schema.String),
  created_at: Schema.optional(Schema.String),
  favourites_count: Schema.optional(Schema.Number),
  reblogs_count: Schema.optional(Schema.Number),
  replies_count: Schema.optional(Schema.Number)
})
const MediaAttachment = Schema.Struct({ id: Schema.String, url: Schema.optional(Schema.NullOr(Schema.String)) })
const App = Schema.Struct({ client_id: Schema.String, client_secret: Schema.String })
const Token = Schema.Struct({ access_token: Schema.String })
/** Mastodon, GoToSocial, Pleroma and Friendica answer `{error}`; Pixelfed (Laravel) answers `{message}`. */
const ErrorBody = Schema.Union(Schema.Struct({ error: Schema.String }), Schema.Struct({ message: Schema.String }))
const reasonOf = (response: OutboundResponse) => Option.map(decodeBody(ErrorBody, response), (b) => ("error" in b ? b.error : b.message))

/** An instance address as the key of its app and its channels: origin and path, no trailing slash. */
const instanceOf = (text: string): Option.Option<string> => {
  try {
    const url = new URL(text.includes("://") ? text : `https://${text}`)
    if (url.protocol !== "https:" && url.protocol !== "http:") return Option.none()
    return Option.some(trimBase(`${url.origin}${url.pathname}`))
  } catch {
    return Option.none()
  }
}

/** Mastodon's own reason → plain language and a fix. */
const rejection = (response: OutboundResponse) => {
  const reason = Option.getOrElse(reasonOf(response), () => `HTTP ${response.status}`)
  if (/character limit/i.test(reason)) {
    return { message: `Mastodon refused the post: ${reason}.`, fix: "Shorten the text to the instance's limit (500 characters on most), then retry." }
  }
  if (/empty statuses are not allowed/i.test(reason)) {
    return { message: `The server refused the post: ${reason} (Pixelfed posts are photos or videos).`, fix: "Attach a photo or video, then retry." }
  }
  if (/record not found/i.test(reason)) {
    return {
      message: `Mastodon refused the follow-up: the post it answers is gone (${reason}).`,
      fix: "Check that the first post is still on Mastodon, then retry."
    }
  }
  return { message: `Mastodon refused the post: ${reason}.`, fix: "Change the post as the message says, then retry." }
}

/** Pixelfed's answer to a repeated Idempotency-Key: 400 "Duplicate idempotency key." (the first one was taken). */
const isRepeatRefused = (answer: NetworkAnswer) =>
  answer._tag === "Response" &&
  answer.response.status === 400 &&
  Option.exists(reasonOf(answer.response), (r) => /duplicate idempotency key/i.test(r))

/** What the instance's software would refuse, told before anything is uploaded. */
const beforeSending = (request: PublishRequest, variant: Variant, maxCharacters: number | null, maxMedia: number | null, visibility: string) => {
  const length = [...request.item.content].length
  if (maxCharacters !== null && length > maxCharacters)
    return PublishAnswer.Rejected({
      message: `This ${variant.label} instance's character limit is ${maxCharacters}; the post has ${length}.`,
      fix: `Shorten the text to ${maxCharacters} characters, then retry.`
    })
  if (maxMedia !== null && request.media.length > maxMedia)
    return PublishAnswer.Rejected({
      message: `This ${variant.label} instance takes at most ${maxMedia} files in a post; the post has ${request.media.length}.`,
      fix: `Keep ${maxMedia} files, then retry.`
    })
  if (variant.mediaRequired && request.media.length === 0 && request.previousReleaseId === null)
    return PublishAnswer.Rejected({
      message: `${variant.label} posts are photos or videos: a post without one is refused.`,
      fix: "Attach a photo or video, then retry (follow-up comments may be text only)."
    })
  if (!variant.visibilities.includes(visibility))
    return PublishAnswer.Rejected({
      message: `${variant.label} does not take the visibility "${visibility}".`,
      fix: `Choose one of ${variant.visibilities.join(", ")}, then retry.`
    })
  return null
}

/** Mastodon's answer to POST /api/v1/statuses. */
export const classifyMastodon = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const status = decodeBody(Status, response)
    if (Option.isSome(status) && status.value.id !== "") {
      const url = status.value.url ?? status.value.uri ?? ""
      return PublishAnswer.Published({ releaseId: status.value.id, releaseUrl: url })
    }
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeMastodonAdapterWith = (options: MastodonOptions) =>
  Effect.gen(function* () {
    const { apps, media, outbound } = yield* NetworkDeps
    const credentialsOf = readCredentials(StoredCredentials, NAME)

    const whoAmI = (instance: string, accessToken: string) =>
      call(outbound, { url: `${instance}/api/v1/accounts/verify_credentials`, headers: bearerJson(accessToken) })

    /** GET answers decoded, None for anything else (no answer, an error, another shape). */
    const readJson = <A, I>(schema: Schema.Schema<A, I>, url: string) =>
      Effect.map(call(outbound, { url, headers: { accept: "application/json" } }), (answer) =>
        answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
      )

    /** Which software the instance runs (NodeInfo first, then /api/v1/instance's version) and the limits it announces. */
    const softwareAt = (instance: string) =>
      Effect.gen(function* () {
        const links = yield* readJson(NodeInfoLinks, `${instance}/.well-known/nodeinfo`)
        const href = Option.flatMap(links, nodeInfoHref)
        const nodeInfo = Option.isSome(href) && /^https?:\/\//.test(href.value) ? yield* readJson(NodeInfo, href.value) : Option.none()
        return detect(nodeInfo, yield* readJson(InstanceV1, `${instance}/api/v1/instance`))
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(GivenCredentials, NAME, "instance (the server's address) and accessToken")(input)
        const instance = instanceOf(given.instance)
        if (Option.isNone(instance)) return yield* new ConnectFailed({ message: `Mastodon instance ${given.instance} is not an address.` })
        const answer = yield* whoAmI(instance.value, given.accessToken)
        const account = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Account, answer.response) : Option.none()
        if (Option.isNone(account)) return yield* connectFailedFrom(NAME, answer)
        const a = account.value
        const software = yield* softwareAt(instance.value)
        const limits = limitsOf(software)
        return {
          credentials: { instance: instance.value, accessToken: given.accessToken, accountId: a.id, username: a.username, software },
          // the server's own limits, so that a post is checked against them before saving (domain/networks/instanceLimits.ts)
          defaultSettings: {
            ...(limits.maxCharacters === null ? {} : { [InstanceLimitKeys.maxCharacters]: limits.maxCharacters }),
            ...(limits.maxMedia === null ? {} : { [InstanceLimitKeys.maxMedia]: limits.maxMedia }),
            ...(limits.variant.mediaRequired ? { [InstanceLimitKeys.needsMedia]: true } : {})
          },
          profile: { accountId: `${instance.value}#${a.id}`, name: a.display_name || a.username, profile: a.username, picture: a.avatar ?? null }
        }
      })

    /** This server's app on the instance, registered on first use. */
    const appFor = (instance: string, redirectUri: string) =>
      Effect.gen(function* () {
        if (instance === options.defaultInstance && Option.isSome(options.clientId) && Option.isSome(options.clientSecret)) {
          return { clientId: options.clientId.value, clientSecret: Redacted.value(options.clientSecret.value) }
        }
        const key = { network: "mastodon", instance, redirectUri }
        const known = yield* apps.find(key)
        if (Option.isSome(known)) return known.value
        const answer = yield* call(outbound, {
          url: `${instance}/api/v1/apps`,
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ client_name: options.appName, redirect_uris: redirectUri, scopes: "read write" })
        })
        const app = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(App, answer.response) : Option.none()
        if (Option.isNone(app)) return yield* connectFailedFrom(`The Mastodon instance ${instance}`, answer)
        const registered = { clientId: app.value.client_id, clientSecret: app.value.client_secret }
        yield* apps.save(key, registered)
        return (yield* apps.find(key)).pipe(Option.getOrElse(() => registered))
      })

    const instanceFor = (given: string | null) =>
      Option.match(instanceOf(given ?? options.defaultInstance), {
        onNone: () => Effect.fail(new ConnectFailed({ message: `Mastodon instance ${given ?? ""} is not an address.` })),
        onSome: Effect.succeed
      })

    const uploadAll = (instance: string, token: string, request: PublishRequest, variant: Variant) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media)
        const ids: Array<string> = []
        for (const [index, file] of files.entries()) {
          const form = multipart([
            { name: "file", filename: file.name || `file-${index}`, mime: file.mime, bytes: file.bytes },
            { name: "description", value: request.media[index]?.alt ?? "" }
          ])
          const upload = (version: "v1" | "v2") =>
            call(outbound, {
              url: `${instance}/api/${version}/media`,
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, accept: "application/json" },
              body: form.body,
              timeoutMs: 120_000
            })
          const first = yield* upload(variant.v2Media ? "v2" : "v1")
          // servers without /api/v2/media (Friendica, older Pixelfed) answer 404: the v1 upload does the same
          const answer = variant.v2Media && first._tag === "Response" && first.response.status === 404 ? yield* upload("v1") : first
          const attachment = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(MediaAttachment, answer.response) : Option.none()
          if (Option.isNone(attachment)) {
            // nothing is posted before the status itself: a failed upload sent no post
            const failed = answer._tag === "Failed" ? transportAnswer(NAME, answer.error) : statusAnswer(NAME, answer.response, rejection)
            return yield* Effect.fail(
              failed._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `a file upload got no answer: ${failed.reason}` }) : failed
            )
          }
          // 202: still processing; a status naming it before it is ready is refused (422), so wait for it
          if (answer._tag === "Response" && answer.response.status === 202) yield* untilProcessed(instance, token, attachment.value.id)
          ids.push(attachment.value.id)
        }
        return ids
      })

    /** GET /api/v1/media/:id answers 200 with a url once the file is processed (206 while it is not). */
    const untilProcessed = (instance: string, token: string, id: string) =>
      call(outbound, { url: `${instance}/api/v1/media/${encodeURIComponent(id)}`, headers: bearerJson(token) }).pipe(
        Effect.map(
          (answer) =>
            answer._tag === "Response" &&
            answer.response.status === 200 &&
            Option.exists(decodeBody(MediaAttachment, answer.response), (m) => typeof m.url === "string" && m.url !== "")
        ),
        Effect.repeat({ until: (ready) => ready, schedule: Schedule.spaced("1 second"), times: 60 }),
        Effect.flatMap((ready) =>
          ready
            ? Effect.void
            : Effect.fail(PublishAnswer.FailedBeforeSending({ reason: "Mastodon did not finish processing a file within a minute" }))
        )
      )

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const credentials = yield* credentialsOf(request.channel.credentials)
          const { maxCharacters, maxMedia, variant } = limitsOf(credentials.software)
          const given = request.channel.settings["visibility"]
          const visibility = typeof given === "string" ? given : "public"
          const problem = beforeSending(request, variant, maxCharacters, maxMedia, visibility)
          if (problem !== null) return problem
          const mediaIds = yield* uploadAll(credentials.instance, credentials.accessToken, request, variant)
          const answer = yield* call(outbound, {
            url: `${credentials.instance}/api/v1/statuses`,
            method: "POST",
            headers: {
              ...bearerJson(credentials.accessToken),
              // only where the server honours it: elsewhere a lost answer is settled by the search
              ...(variant.idempotency === "none" ? {} : { "idempotency-key": request.item.id })
            },
            body: JSON.stringify({
              status: request.item.content,
              ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}),
              ...(request.previousReleaseId !== null ? { in_reply_to_id: request.previousReleaseId } : {}),
              visibility
            })
          })
          // Pixelfed refuses a repeated key instead of answering the first status: it is live, so find it
          if (variant.idempotency === "refuses-repeat" && isRepeatRefused(answer)) {
            const found = yield* search(request)
            return found._tag === "Found"
              ? PublishAnswer.Published({ releaseId: found.releaseId, releaseUrl: found.releaseUrl })
              : PublishAnswer.NoAnswer({ reason: `${variant.label} says this post was already sent, and it is not listed yet` })
          }
          return classifyMastodon(answer)
        })
      )

    /** Channels connected before the account id was kept ask the instance for it. */
    const accountIdOf = (instance: string, accessToken: string) =>
      Effect.map(whoAmI(instance, accessToken), (answer) =>
        answer._tag === "Response" && isSuccess(answer.response)
          ? Option.getOrUndefined(Option.map(decodeBody(Account, answer.response), (a) => a.id))
          : undefined
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const credentials = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(credentials)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const { accessToken, instance } = credentials.value
        const accountId = credentials.value.accountId ?? (yield* accountIdOf(instance, accessToken))
        if (accountId === undefined) return SearchAnswer.CannotTell({ reason: "the account could not be read" })
        const answer = yield* call(outbound, {
          url: `${instance}/api/v1/accounts/${encodeURIComponent(accountId)}/statuses?limit=40&exclude_reblogs=true`,
          headers: bearerJson(accessToken)
        })
        if (answer._tag === "Failed" || !isSuccess(answer.response)) {
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        }
        const statuses = decodeBody(Schema.Array(Status), answer.response)
        if (Option.isNone(statuses)) return SearchAnswer.CannotTell({ reason: "the statuses could not be read" })
        const found = statuses.value.find((s) => sameText(htmlToText(s.content ?? ""), request.item.content))
        return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: found.id, releaseUrl: found.url ?? found.uri ?? "" })
      })

    const adapter: NetworkAdapter = {
      identifier: "mastodon",
      connect: {
        kind: "link",
        authorizeUrl: ({ instance, redirectUri, state }) =>
          Effect.gen(function* () {
            const server = yield* instanceFor(instance)
            const app = yield* appFor(server, redirectUri)
            const query = new URLSearchParams({
              client_id: app.clientId,
              redirect_uri: redirectUri,
              response_type: "code",
              scope: "read write",
              state
            })
            return `${server}/oauth/authorize?${query.toString()}`
          }),
        exchange: ({ code, instance, redirectUri }) =>
          Effect.gen(function* () {
            const server = yield* instanceFor(instance)
            const app = yield* appFor(server, redirectUri)
            const answer = yield* call(outbound, {
              url: `${server}/oauth/token`,
              method: "POST",
              headers: { "content-type": "application/json", accept: "application/json" },
              body: JSON.stringify({
                grant_type: "authorization_code",
                code,
                client_id: app.clientId,
                client_secret: app.clientSecret,
                redirect_uri: redirectUri,
                scope: "read write"
              })
            })
            const token = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Token, answer.response) : Option.none()
            if (Option.isNone(token)) return yield* connectFailedFrom(NAME, answer)
            return yield* verify({ instance: server, accessToken: token.value.access_token })
          })
      },
      verify,
      // Mastodon tokens do not expire; a revoked one answers 401 (reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search,
      statistics: {
        channel: (credentials: Redacted.Redacted<Credentials>) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const answer = yield* whoAmI(c.value.instance, c.value.accessToken)
            const account = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Account, answer.response) : Option.none()
            if (Option.isNone(account)) return Statistics.Missing({ message: "Mastodon did not answer with the account's numbers." })
            return Statistics.Metrics({
              metrics: [
                metricToday("Followers", account.value.followers_count ?? 0, "People who follow the account"),
                metricToday("Following", account.value.following_count ?? 0, "Accounts it follows"),
                metricToday("Posts", account.value.statuses_count ?? 0, "Posts the account has made")
              ]
            })
          }),
        post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const answer = yield* call(outbound, {
              url: `${c.value.instance}/api/v1/statuses/${encodeURIComponent(releaseId)}`,
              headers: bearerJson(c.value.accessToken)
            })
            const status = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(Status, answer.response) : Option.none()
            if (Option.isNone(status)) return Statistics.Missing({ message: "Mastodon did not answer with the post's numbers." })
            return Statistics.Metrics({
              metrics: [
                metricToday("Favourites", status.value.favourites_count ?? 0),
                metricToday("Boosts", status.value.reblogs_count ?? 0),
                metricToday("Replies", status.value.replies_count ?? 0)
              ]
            })
          })
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyMastodon
    }
    return adapter
  })

/** The adapter with MASTODON_URL, MASTODON_APP_NAME, MASTODON_CLIENT_ID and MASTODON_CLIENT_SECRET. */
export const makeMastodonAdapter = Effect.gen(function* () {
  const options = yield* Config.all({
    defaultInstance: Config.string("MASTODON_URL").pipe(Config.withDefault("https://mastodon.social")),
    appName: Config.string("MASTODON_APP_NAME").pipe(Config.withDefault("Post Scheduler")),
    clientId: Config.option(Config.string("MASTODON_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("MASTODON_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  return yield* makeMastodonAdapterWith({
    ...options,
    defaultInstance: Option.getOrElse(instanceOf(options.defaultInstance), () => "https://mastodon.social")
  })
})
