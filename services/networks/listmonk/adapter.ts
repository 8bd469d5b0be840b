import { Effect, Option, type Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
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
import { listmonk } from "../../../domain/networks/publishing.js"
import { checkSettings, firstLineOf, textSetting } from "../articleSettings.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, multipart, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Listmonk, self-hosted (listmonk.app/docs/apis): an API user and its token
 * (`Authorization: token user:token`) on the instance in the credentials. A post is a
 * campaign to one mailing list, made in two steps: `POST /api/campaigns` (a draft, Markdown
 * body, the image uploaded first with `POST /api/media` and shown at the top), then `PUT
 * /api/campaigns/{id}/status` `running`, which sends it. Listmonk has no duplicate guard of
 * its own: the campaign's name carries the item's key, asked for (`GET
 * /api/campaigns?query=<key>`) before every create and by the search after a lost answer: a
 * campaign that runs (or ran) is the post; a draft is continued (started), never made
 * again, and a campaign is never started twice.
 */
const NAME = "Listmonk"
/** Listmonk's standard inputs (the subject) take up to 200 characters. */
const SUBJECT_MAX = 200

const ListId = Schema.Union(Schema.Number, Schema.NumberFromString).pipe(Schema.int(), Schema.positive())
const Given = Schema.Struct({
  instance: Schema.String,
  username: Schema.String.pipe(Schema.minLength(1)),
  token: Schema.String.pipe(Schema.minLength(1)),
  listId: ListId
})
const Stored = Schema.Struct({ instance: Schema.String, username: Schema.String, token: Schema.String, listId: Schema.Number })
type Stored = typeof Stored.Type

const Envelope = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ data })
const MailingList = Schema.Struct({ id: Schema.Number, name: Schema.String, subscriber_count: Schema.optional(Schema.NullOr(Schema.Number)) })
const Lists = Envelope(Schema.Struct({ results: Schema.Array(MailingList) }))
const OneList = Envelope(MailingList)
const Campaign = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  status: Schema.String,
  views: Schema.optional(Schema.Number),
  clicks: Schema.optional(Schema.Number),
  bounces: Schema.optional(Schema.Number),
  sent: Schema.optional(Schema.Number),
  to_send: Schema.optional(Schema.Number)
})
const OneCampaign = Envelope(Campaign)
const Campaigns = Envelope(Schema.Struct({ results: Schema.Array(Campaign) }))
const Media = Envelope(Schema.Struct({ id: Schema.Number, url: Schema.String }))
const ErrorBody = Schema.Struct({ message: Schema.String })

/** What a publish left with Listmonk: the campaign made, not yet known to be started. */
const Progress = Schema.Struct({ campaignId: Schema.Number })

/** Statuses of a campaign that was started (or will send at its time): it is the post, never started again. */
const STARTED = new Set(["scheduled", "running", "finished", "paused", "cancelled"])

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(ErrorBody, response), { onNone: () => `HTTP ${response.status}`, onSome: (b) => b.message })
  if (response.status === 403) {
    return {
      message: `Listmonk refused this channel's API user: ${reason}.`,
      fix: "Reconnect the channel with an API user and token that may manage campaigns, then retry."
    }
  }
  return { message: `Listmonk refused the campaign: ${reason}.`, fix: "Change the campaign as the message says, then retry." }
}

/** A campaign's address in Listmonk's admin (campaigns have no public address unless archived). */
const campaignUrl = (instance: string, id: number) => `${instance}/admin/campaigns/${id}`

/** The item's key in the campaign's name: letters and digits only, so that Listmonk's search takes it as one word. */
const keyOf = (itemId: string) => `ps${itemId.replace(/[^A-Za-z0-9]/g, "")}`

/** Listmonk's answer to the start (`PUT …/status`): the campaign, running. */
export const classifyListmonk =
  (instance: string) =>
  (answer: NetworkAnswer): PublishAnswer => {
    if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
    const { response } = answer
    if (isSuccess(response)) {
      const campaign = decodeBody(OneCampaign, response)
      if (Option.isSome(campaign) && STARTED.has(campaign.value.data.status)) {
        return PublishAnswer.Published({ releaseId: String(campaign.value.data.id), releaseUrl: campaignUrl(instance, campaign.value.data.id) })
      }
    }
    return statusAnswer(NAME, response, rejection)
  }

/** An instance address without a trailing slash; None when it is not http(s). */
const instanceOf = (text: string): Option.Option<string> => {
  if (!URL.canParse(text)) return Option.none()
  const url = new URL(text)
  return url.protocol === "https:" || url.protocol === "http:" ? Option.some(trimBase(`${url.origin}${url.pathname}`)) : Option.none()
}

const refuse = (message: string, fix: string) => Effect.fail(PublishAnswer.Rejected({ message, fix }))

export const makeListmonkAdapter = Effect.gen(function* () {
  const { media, outbound } = yield* NetworkDeps
  const credentialsOf = readCredentials(Stored, NAME)
  const auth = (c: Pick<Stored, "username" | "token">) => ({ authorization: `token ${c.username}:${c.token}`, accept: "application/json" })
  const get = (c: Stored, path: string) => call(outbound, { url: `${c.instance}${path}`, headers: auth(c) })
  const json = (c: Stored, method: "POST" | "PUT", path: string, body: unknown) =>
    call(outbound, {
      url: `${c.instance}${path}`,
      method,
      headers: { ...auth(c), "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
    answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

  const verify = (input: unknown) =>
    Effect.gen(function* () {
      const given = yield* decodeForVerify(Given, NAME, "instance (its address), username and token (an API user's) and listId")(input)
      const instance = instanceOf(given.instance)
      if (Option.isNone(instance)) return yield* new ConnectFailed({ message: `Listmonk instance ${given.instance} is not an address.` })
      const stored: Stored = { instance: instance.value, username: given.username, token: given.token, listId: given.listId }
      const answer = yield* get(stored, `/api/lists/${given.listId}`)
      const list = read(OneList, answer)
      if (Option.isNone(list)) {
        if (answer._tag === "Response" && answer.response.status === 404) {
          return yield* new ConnectFailed({ message: `Listmonk has no mailing list ${given.listId}: choose one of the instance's lists.` })
        }
        return yield* connectFailedFrom(`The Listmonk instance ${instance.value}`, answer)
      }
      return {
        credentials: stored,
        profile: {
          accountId: `${instance.value}#${given.listId}`,
          name: list.value.data.name,
          profile: `${given.username}@${new URL(instance.value).host}`,
          picture: null
        },
        defaultSettings: { list: String(given.listId) }
      }
    })

  /** The image uploaded to the instance's media, shown at the top of the body. */
  const withImage = (c: Stored, request: PublishRequest) =>
    Effect.gen(function* () {
      const files = yield* readAllMedia(media, request.media)
      const [file] = files
      if (file === undefined) return request.item.content
      if (!file.mime.startsWith("image/")) {
        return yield* refuse("Listmonk campaigns take an image, not a video.", "Attach a photo instead, or none, then retry.")
      }
      const form = multipart([{ name: "file", filename: file.name || "image", mime: file.mime, bytes: file.bytes }])
      const answer = yield* call(outbound, {
        url: `${c.instance}/api/media`,
        method: "POST",
        headers: { ...auth(c), "content-type": form.contentType },
        body: form.body,
        timeoutMs: 120_000
      })
      const uploaded = read(Media, answer)
      if (Option.isNone(uploaded)) {
        // no campaign exists yet: an upload without an answer sent nothing to anyone
        const failed = answer._tag === "Failed" ? transportAnswer(NAME, answer.error) : statusAnswer(NAME, answer.response, rejection)
        return yield* Effect.fail(
          failed._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `the image upload got no answer: ${failed.reason}` }) : failed
        )
      }
      const alt = (request.media[0]?.alt ?? "").replace(/[[\]]/g, "")
      return `![${alt}](${uploaded.value.data.url})\n\n${request.item.content}`
    })

  const start = (c: Stored, campaignId: number) =>
    Effect.map(json(c, "PUT", `/api/campaigns/${campaignId}/status`, { status: "running" }), classifyListmonk(c.instance))

  /** A campaign an earlier attempt made: started when still a draft; one already started is the post (never started twice). */
  const continueWith = (c: Stored, campaignId: number) =>
    Effect.gen(function* () {
      const answer = yield* get(c, `/api/campaigns/${campaignId}`)
      const current = read(OneCampaign, answer)
      if (Option.isNone(current)) {
        if (answer._tag === "Response" && answer.response.status === 404) {
          return PublishAnswer.Rejected({
            message: `The Listmonk campaign ${campaignId} this post made is gone (deleted on the instance).`,
            fix: "Check the instance's campaigns, then retry the post to make a new one."
          })
        }
        if (answer._tag === "Response" && (answer.response.status === 401 || answer.response.status === 403)) {
          return PublishAnswer.Rejected(rejection(answer.response))
        }
        // its state is unknown: starting it blind could be a second start
        return answer._tag === "Failed"
          ? transportAnswer(NAME, answer.error)
          : PublishAnswer.NoAnswer({ reason: `Listmonk answered ${answer.response.status} about the campaign` })
      }
      if (STARTED.has(current.value.data.status)) {
        return PublishAnswer.Published({ releaseId: String(campaignId), releaseUrl: campaignUrl(c.instance, campaignId) })
      }
      return yield* start(c, campaignId)
    })

  const create = (c: Stored, request: PublishRequest) =>
    Effect.gen(function* () {
      const settings = request.channel.settings
      const list = Number(textSetting(settings, "list") ?? c.listId)
      // a subject setting is at most SUBJECT_MAX (checked by publish); the first line is cut to it
      const subject = textSetting(settings, "subject") ?? firstLineOf(request.item.content, SUBJECT_MAX)
      if (subject === "") return yield* refuse("A Listmonk campaign needs a subject.", "Set the post's subject setting, then retry.")
      const body = yield* withImage(c, request)
      const answer = yield* json(c, "POST", "/api/campaigns", {
        name: `${subject.slice(0, 150)} (${keyOf(request.item.id)})`,
        subject,
        lists: [list],
        type: "regular",
        content_type: "markdown",
        body,
        messenger: "email"
      })
      const campaign = read(OneCampaign, answer)
      if (Option.isNone(campaign)) {
        const failed = answer._tag === "Failed" ? transportAnswer(NAME, answer.error) : statusAnswer(NAME, answer.response, rejection)
        return yield* Effect.fail(failed)
      }
      return campaign.value.data.id
    })

  /** The campaign named with the item's key: Some, None (none was made), or why Listmonk could not be asked. */
  const campaignOf = (c: Stored, itemId: string) =>
    Effect.map(get(c, `/api/campaigns?query=${encodeURIComponent(keyOf(itemId))}&per_page=20`), (answer) => {
      const campaigns = read(Campaigns, answer)
      if (Option.isNone(campaigns)) {
        const why = answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status} ${excerpt(answer.response, 120)}`
        return { _tag: "CannotTell" as const, reason: `Listmonk did not answer with its campaigns (${why})` }
      }
      const found = campaigns.value.data.results.find((x) => x.name.includes(`(${keyOf(itemId)})`))
      return { _tag: "Asked" as const, found: Option.fromNullable(found) }
    })

  const publish = (request: PublishRequest) =>
    answerOf(
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials)
        // a campaign an earlier attempt made (found by the search) is started, never made again
        const progress = Option.fromNullable(request.progress).pipe(Option.flatMap((p) => Schema.decodeUnknownOption(Progress)(p)))
        if (Option.isSome(progress)) return yield* continueWith(c, progress.value.campaignId)
        yield* checkSettings(listmonk, request.channel.settings)
        // the item's key is the duplicate guard: asked before every create, so even a plain
        // retry of a post whose campaign exists never makes (or sends) a second one
        const existing = yield* campaignOf(c, request.item.id)
        if (existing._tag === "CannotTell") return PublishAnswer.FailedBeforeSending({ reason: existing.reason })
        if (Option.isSome(existing.found)) return yield* continueWith(c, existing.found.value.id)
        return yield* start(c, yield* create(c, request))
      })
    )

  const search = (request: PublishRequest) =>
    Effect.gen(function* () {
      const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
      if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
      const asked = yield* campaignOf(c.value, request.item.id)
      if (asked._tag === "CannotTell") return SearchAnswer.CannotTell({ reason: asked.reason })
      if (Option.isNone(asked.found)) return SearchAnswer.NotFound()
      const found = asked.found.value
      if (STARTED.has(found.status)) return SearchAnswer.Found({ releaseId: String(found.id), releaseUrl: campaignUrl(c.value.instance, found.id) })
      // a draft campaign was made but never started: the publish goes on by starting it
      return SearchAnswer.Unfinished({ progress: { campaignId: found.id } })
    })

  const missing = (message: string) => Statistics.Missing({ message })
  const statistics = {
    channel: (credentials: Redacted.Redacted<Credentials>) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(credentials).pipe(Effect.option)
        if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
        const list = read(OneList, yield* get(c.value, `/api/lists/${c.value.listId}`))
        if (Option.isNone(list)) return missing("Listmonk did not answer with the list's numbers.")
        return Statistics.Metrics({
          metrics: [metricToday("Subscribers", list.value.data.subscriber_count ?? 0, "Subscribers of the channel's list")]
        })
      }),
    post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(credentials).pipe(Effect.option)
        if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
        const campaign = read(OneCampaign, yield* get(c.value, `/api/campaigns/${encodeURIComponent(releaseId)}`))
        if (Option.isNone(campaign)) return missing("Listmonk did not answer with the campaign's numbers.")
        const x = campaign.value.data
        return Statistics.Metrics({
          metrics: [
            metricToday("Sent", x.sent ?? 0, "E-mails sent so far"),
            metricToday("Views", x.views ?? 0, "Opens counted by Listmonk"),
            metricToday("Clicks", x.clicks ?? 0),
            metricToday("Bounces", x.bounces ?? 0)
          ]
        })
      })
  }

  const runTool: NetworkAdapter["runTool"] = ({ credentials, methodName }) =>
    Effect.gen(function* () {
      if (methodName !== "lists") return yield* unknownTool(methodName, NAME, ["lists"])
      const c = yield* credentialsOf(credentials).pipe(
        Effect.mapError(() => Errors.badRequest("The channel's Listmonk connection must be reconnected before its lists can be read."))
      )
      const lists = read(Lists, yield* get(c, "/api/lists?per_page=all"))
      if (Option.isNone(lists)) return yield* Effect.fail(Errors.badRequest("Listmonk did not answer with its lists. Try again in a minute."))
      return {
        lists: lists.value.data.results.map((l) => ({
          id: String(l.id),
          name: l.name,
          subscribers: l.subscriber_count ?? 0,
          default: l.id === c.listId
        }))
      }
    })

  const adapter: NetworkAdapter = {
    identifier: "listmonk",
    connect: { kind: "form" },
    verify,
    // API tokens do not expire; a revoked one is refused (reconnect)
    tokensNeverExpire: true,
    refresh: () => Effect.succeed(Refresh.Unchanged()),
    publish,
    // a campaign takes no replies (the catalog refuses follow-ups before saving)
    publishFollowUp: () =>
      Effect.succeed(
        PublishAnswer.Rejected({ message: "Listmonk campaigns take no follow-ups.", fix: "Remove the follow-ups of Listmonk posts, then retry." })
      ),
    search,
    statistics,
    runTool,
    // the start's answer; the instance's address is in the credentials, so the campaign's address is made by publish
    classify: (answer) => classifyListmonk("")(answer)
  }
  return adapter
})
