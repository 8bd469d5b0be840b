import { Config, Effect, Option, Redacted, Schema } from "effect"
import {
  type Choice,
  ConnectFailed,
  type Connected,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { connectFailedFrom, decodeForVerify, metricToday, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, sameText, trimBase } from "../networkHttp.js"
import { classifyLinkedIn, type LinkedInOptions, makeLinkedInAdapterWith } from "./adapter.js"

/**
 * LinkedIn Pages: the LinkedIn adapter (services/networks/linkedin/adapter.ts) posting as
 * an organization the member administers. Sign-in lists them with
 * GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED: one connects
 * at once, several are choices. Publishing, comments and token refresh are the member
 * adapter's, with the organization as author; an organization's posts can be listed
 * (GET /rest/posts?q=author), so a lost answer is settled by a search.
 */
const NAME = "LinkedIn Page"
const SCOPES = "openid profile email w_member_social w_organization_social r_organization_social rw_organization_admin"

/** A connected page (the `--credentials` fields). */
const PageStored = Schema.Struct({ accessToken: Schema.String, refreshToken: Schema.String, expiresAt: Schema.String, organization: Schema.String })
type PageStored = typeof PageStored.Type
/** Signed in, the organization not chosen yet (or chosen): what the token refresh needs. */
const Tokens = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  organization: Schema.optional(Schema.String)
})
const Acls = Schema.Struct({
  elements: Schema.Array(
    Schema.Struct({
      organization: Schema.optional(Schema.String),
      organizationalTarget: Schema.optional(Schema.String),
      role: Schema.optional(Schema.String),
      state: Schema.optional(Schema.String)
    })
  )
})
const Organization = Schema.Struct({ localizedName: Schema.optional(Schema.String), vanityName: Schema.optional(Schema.String) })
const AuthorPosts = Schema.Struct({ elements: Schema.Array(Schema.Struct({ id: Schema.String, commentary: Schema.optional(Schema.String) })) })
const ShareStatistics = Schema.Struct({
  elements: Schema.Array(
    Schema.Struct({
      totalShareStatistics: Schema.Struct({
        impressionCount: Schema.optional(Schema.Number),
        uniqueImpressionsCount: Schema.optional(Schema.Number),
        clickCount: Schema.optional(Schema.Number),
        likeCount: Schema.optional(Schema.Number),
        commentCount: Schema.optional(Schema.Number),
        shareCount: Schema.optional(Schema.Number)
      })
    })
  )
})

/** LinkedIn's "little text" as the member adapter escapes it, read back for comparing. */
const plainText = (commentary: string) => commentary.replace(/\\(.)/g, "$1")

export const makeLinkedInPageAdapterWith = (options: LinkedInOptions) =>
  Effect.gen(function* () {
    const { outbound } = yield* NetworkDeps
    const member = yield* makeLinkedInAdapterWith(options)
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const clientId = Option.getOrUndefined(options.clientId)
    const rest = (token: string) => ({
      authorization: `Bearer ${token}`,
      "linkedin-version": options.version,
      "x-restli-protocol-version": "2.0.0",
      accept: "application/json"
    })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const reason = (answer: NetworkAnswer) =>
      answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}: ${excerpt(answer.response, 120)}`

    /** The organizations the member administers, with their names. */
    const organizationsOf = (accessToken: string) =>
      Effect.gen(function* () {
        const answer = yield* call(outbound, {
          url: `${api}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&count=100`,
          headers: rest(accessToken)
        })
        const acls = read(Acls, answer)
        if (Option.isNone(acls)) return yield* connectFailedFrom(NAME, answer)
        const urns = [
          ...new Set(
            acls.value.elements.flatMap((a) => [a.organization ?? a.organizationalTarget ?? ""]).filter((u) => u.startsWith("urn:li:organization:"))
          )
        ]
        return yield* Effect.forEach(urns, (urn) =>
          Effect.gen(function* () {
            const id = urn.replace("urn:li:organization:", "")
            const org = read(
              Organization,
              yield* call(outbound, { url: `${api}/rest/organizations/${encodeURIComponent(id)}`, headers: rest(accessToken) })
            )
            const name = Option.match(org, { onNone: () => urn, onSome: (o) => o.localizedName ?? o.vanityName ?? urn })
            return { id: urn, name, picture: null } satisfies Choice
          })
        )
      })

    const pageConnection = (tokens: Omit<PageStored, "organization">, org: Choice): Connected => ({
      credentials: { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, organization: org.id },
      profile: { accountId: org.id, name: org.name, profile: org.name, picture: org.picture }
    })

    const noOrganization = new ConnectFailed({
      message: "This LinkedIn member administers no LinkedIn Page. Ask a page's administrator to add you, then connect again."
    })

    const exchange: Extract<NetworkAdapter["connect"], { kind: "link" }>["exchange"] = (input) =>
      Effect.gen(function* () {
        if (member.connect.kind !== "link") return yield* new ConnectFailed({ message: `${NAME} cannot be connected on this server.` })
        const signedIn = yield* member.connect.exchange(input)
        const tokens = Schema.decodeUnknownOption(Tokens)(signedIn.credentials)
        if (Option.isNone(tokens)) return yield* new ConnectFailed({ message: "LinkedIn answered the sign-in without tokens." })
        const organizations = yield* organizationsOf(tokens.value.accessToken)
        if (organizations.length === 0) return yield* noOrganization
        if (organizations.length === 1) return pageConnection(tokens.value, organizations[0]!)
        const { organization: _none, ...memberTokens } = tokens.value
        const connected: Connected = { credentials: memberTokens, profile: signedIn.profile, choices: organizations }
        return connected
      })

    const choose = (credentials: Redacted.Redacted<Credentials>, choiceId: string) =>
      Effect.gen(function* () {
        const tokens = Schema.decodeUnknownOption(Tokens)(Redacted.value(credentials))
        if (Option.isNone(tokens))
          return yield* new ConnectFailed({ message: "This LinkedIn connection has no sign-in to choose with. Connect again." })
        const organizations = yield* organizationsOf(tokens.value.accessToken)
        const org = organizations.find((o) => o.id === choiceId)
        if (org === undefined)
          return yield* new ConnectFailed({ message: "That page is not among the LinkedIn Pages this member administers. Connect again." })
        return pageConnection(tokens.value, org)
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(
          PageStored,
          NAME,
          "accessToken, refreshToken, expiresAt (ISO 8601) and organization (urn:li:organization:…)"
        )(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "LinkedIn Page credentials: expiresAt is not an ISO 8601 date." })
        const organizations = yield* organizationsOf(given.accessToken)
        const org = organizations.find((o) => o.id === given.organization)
        if (org === undefined)
          return yield* new ConnectFailed({ message: `The member of this token does not administer ${given.organization} on LinkedIn.` })
        return pageConnection(given, org)
      })

    /** The request as the member adapter takes it: the organization is the author. */
    const asMember = (request: PublishRequest): PublishRequest => {
      const c = Redacted.value(request.channel.credentials)
      const author = typeof c["organization"] === "string" ? c["organization"] : ""
      return { ...request, channel: { ...request.channel, credentials: Redacted.make({ ...c, author }) } }
    }

    const hasOrganization = (request: PublishRequest) =>
      Option.isSome(Schema.decodeUnknownOption(PageStored)(Redacted.value(request.channel.credentials)))
    const chooseFirst = PublishAnswer.Rejected({
      message: "This LinkedIn Page channel has no organization chosen yet.",
      fix: "Reconnect the channel and choose the LinkedIn Page it posts to, then retry the post."
    })

    const refresh = (credentials: Redacted.Redacted<Credentials>) =>
      Effect.gen(function* () {
        const tokens = Schema.decodeUnknownOption(Tokens)(Redacted.value(credentials))
        if (Option.isNone(tokens)) return Refresh.Failed({ reason: "the stored credentials cannot be read" })
        // the member adapter refreshes any author's tokens; the organization (or none yet) stays
        const answer = yield* member.refresh(Redacted.make({ ...tokens.value, author: tokens.value.organization ?? "" }))
        if (answer._tag !== "Refreshed") return answer
        const { author: _author, ...fresh } = answer.credentials
        return Refresh.Refreshed({ credentials: { ...tokens.value, ...fresh } })
      })

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = Schema.decodeUnknownOption(PageStored)(Redacted.value(request.channel.credentials))
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the stored credentials cannot be read" })
        // comments cannot be listed by their author: only the post itself is searched
        if (request.item.position > 0) return SearchAnswer.CannotTell({ reason: "LinkedIn cannot search a page's comments" })
        const answer = yield* call(outbound, {
          url: `${api}/rest/posts?${new URLSearchParams({ q: "author", author: c.value.organization, count: "20", sortBy: "LAST_MODIFIED" }).toString()}`,
          headers: { ...rest(c.value.accessToken), "x-restli-method": "FINDER" }
        })
        const posts = read(AuthorPosts, answer)
        if (Option.isNone(posts)) return SearchAnswer.CannotTell({ reason: reason(answer) })
        const found = posts.value.elements.find((p) => sameText(plainText(p.commentary ?? ""), request.item.content))
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.id, releaseUrl: `https://www.linkedin.com/feed/update/${found.id}/` })
      })

    /** Lifetime share statistics of the organization, or of one of its posts (organizationalEntityShareStatistics). */
    const shareStatistics = (credentials: Redacted.Redacted<Credentials>, share: string | null) =>
      Effect.gen(function* () {
        const c = Schema.decodeUnknownOption(PageStored)(Redacted.value(credentials))
        if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's LinkedIn Page connection cannot be read; reconnect it." })
        const list = share === null ? "" : `&${share.startsWith("urn:li:ugcPost:") ? "ugcPosts" : "shares"}=List(${encodeURIComponent(share)})`
        const answer = yield* call(outbound, {
          url: `${api}/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(c.value.organization)}${list}`,
          headers: rest(c.value.accessToken)
        })
        const stats = read(ShareStatistics, answer)
        const totals = Option.flatMap(stats, (s) => Option.fromNullable(s.elements[0]?.totalShareStatistics))
        if (Option.isNone(totals)) return Statistics.Missing({ message: `LinkedIn did not share the page's statistics (${reason(answer)}).` })
        const t = totals.value
        return Statistics.Metrics({
          metrics: [
            metricToday("Impressions", t.impressionCount ?? 0),
            metricToday("Unique impressions", t.uniqueImpressionsCount ?? 0),
            metricToday("Clicks", t.clickCount ?? 0),
            metricToday("Likes", t.likeCount ?? 0),
            metricToday("Comments", t.commentCount ?? 0),
            metricToday("Shares", t.shareCount ?? 0)
          ]
        })
      })

    const adapter: NetworkAdapter = {
      identifier: "linkedin-page",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(
                new ConnectFailed({ message: "LinkedIn Pages are not set up on this server (LINKEDIN_PAGE_CLIENT_ID or LINKEDIN_CLIENT_ID)." })
              )
            : Effect.succeed(
                `${auth}/oauth/v2/authorization?${new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, state, scope: SCOPES }).toString()}`
              ),
        exchange
      },
      verify,
      choose,
      refresh,
      publish: (request) => (hasOrganization(request) ? member.publish(asMember(request)) : Effect.succeed(chooseFirst)),
      publishFollowUp: (request) => (hasOrganization(request) ? member.publishFollowUp(asMember(request)) : Effect.succeed(chooseFirst)),
      search,
      // LinkedIn keeps share statistics for the past 12 months (lifetime totals here)
      statistics: { longestRangeDays: 365, channel: (credentials) => shareStatistics(credentials, null), post: shareStatistics },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyLinkedIn
    }
    return adapter
  })

/** LINKEDIN_PAGE_* settings, each falling back to the LINKEDIN_* one (one LinkedIn app may serve both). */
export const makeLinkedInPageAdapter = Effect.gen(function* () {
  const either = (name: string) =>
    Config.option(Config.string(`LINKEDIN_PAGE_${name}`)).pipe(
      Config.zipWith(Config.option(Config.string(`LINKEDIN_${name}`)), (page, plain) => Option.orElse(page, () => plain))
    )
  const apiUrl = yield* either("API_URL").pipe(Effect.orDie)
  const authUrl = yield* either("AUTH_URL").pipe(Effect.orDie)
  const clientId = yield* either("CLIENT_ID").pipe(Effect.orDie)
  const clientSecret = yield* either("CLIENT_SECRET").pipe(Effect.orDie)
  const version = yield* Config.string("LINKEDIN_VERSION").pipe(Config.withDefault("202411"), Effect.orDie)
  const api = Option.getOrElse(apiUrl, () => "https://api.linkedin.com")
  return yield* makeLinkedInPageAdapterWith({
    apiUrl: api,
    authUrl: Option.getOrElse(authUrl, () => (Option.isSome(apiUrl) ? api : "https://www.linkedin.com")),
    version,
    clientId,
    clientSecret: Option.map(clientSecret, Redacted.make)
  })
})
