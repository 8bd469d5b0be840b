import { Effect, Option, Redacted, Schema } from "effect"
import { type Choice, ConnectFailed, type Connected, type NetworkAdapter, Refresh } from "../adapter.js"
import { decodeForVerify, readCredentials, networkAppConfig } from "../adapterKit.js"
import { connectFailedGraph, GRAPH_VERSION, graphGet, readGraph } from "../metaGraph.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, trimBase } from "../networkHttp.js"
import { instagramAdapterMethods, makeInstagramPublishing } from "./graphPublishing.js"

/**
 * Instagram through Facebook Login (developers.facebook.com/docs/instagram-platform):
 * the person signs in with Facebook, the code becomes a long-lived user token, and the
 * Instagram professional accounts linked to their Pages are listed (`/me/accounts` with
 * `instagram_business_account`); one is connected at once, several are offered as choices.
 * The channel keeps the Page's token, which does not expire, and the account's id.
 */
const NAME = "Instagram"
const SCOPES = [
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_comments",
  "instagram_manage_insights",
  "pages_show_list",
  "pages_read_engagement",
  "business_management"
].join(",")

export interface InstagramOptions {
  /** graph.facebook.com */
  readonly apiUrl: string
  /** www.facebook.com (the sign-in dialog) */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({ accessToken: Schema.String, igUserId: Schema.String })
const Token = Schema.Struct({ access_token: Schema.String })
const IgAccount = Schema.Struct({
  id: Schema.String,
  username: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  profile_picture_url: Schema.optional(Schema.String)
})
type IgAccount = typeof IgAccount.Type
const Pages = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      name: Schema.optional(Schema.String),
      access_token: Schema.optional(Schema.String),
      instagram_business_account: Schema.optional(IgAccount)
    })
  )
})
const Me = Schema.Struct({ id: Schema.String, name: Schema.optional(Schema.String) })

const profileOf = (ig: IgAccount) => ({
  accountId: ig.id,
  name: ig.name ?? ig.username ?? ig.id,
  profile: ig.username ?? ig.id,
  picture: ig.profile_picture_url ?? null
})

export const makeInstagramAdapterWith = (options: InstagramOptions) =>
  Effect.gen(function* () {
    const deps = yield* NetworkDeps
    const { outbound } = deps
    const graph = `${trimBase(options.apiUrl)}/${GRAPH_VERSION}`
    const auth = trimBase(options.authUrl)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const credentialsOf = readCredentials(Stored, NAME)
    const publishing = makeInstagramPublishing({ name: NAME, graph, deps })

    const tokenCall = (form: Record<string, string>) =>
      call(outbound, {
        url: `${graph}/oauth/access_token`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    /** The Instagram professional accounts linked to the person's Pages, with each Page's token. */
    const linkedAccounts = (userToken: string) =>
      Effect.gen(function* () {
        const answer = yield* graphGet(
          outbound,
          `${graph}/me/accounts?fields=${encodeURIComponent("id,name,access_token,instagram_business_account{id,username,name,profile_picture_url}")}`,
          userToken
        )
        const pages = readGraph(Pages, answer)
        if (Option.isNone(pages)) return yield* connectFailedGraph(NAME, answer)
        return pages.value.data.flatMap((page) =>
          page.instagram_business_account === undefined ? [] : [{ ig: page.instagram_business_account, token: page.access_token ?? userToken }]
        )
      })

    const connectedTo = (account: { readonly ig: IgAccount; readonly token: string }): Connected => ({
      credentials: { accessToken: account.token, igUserId: account.ig.id },
      profile: profileOf(account.ig)
    })

    const none = new ConnectFailed({
      message:
        "No Instagram Business or Creator account is linked to your Facebook Pages. Switch the Instagram account to a professional one, link it to a Page, then connect again."
    })

    const exchange = (code: string, redirectUri: string) =>
      Effect.gen(function* () {
        const short = yield* tokenCall({ code, redirect_uri: redirectUri })
        const t = readGraph(Token, short)
        if (Option.isNone(t)) return yield* connectFailedGraph(NAME, short)
        // the short-lived user token (1 hour) becomes a long-lived one, whose Page tokens never expire
        const long = yield* tokenCall({ grant_type: "fb_exchange_token", fb_exchange_token: t.value.access_token })
        const userToken = Option.getOrElse(
          Option.map(readGraph(Token, long), (l) => l.access_token),
          () => t.value.access_token
        )
        const accounts = yield* linkedAccounts(userToken)
        const [first] = accounts
        if (first === undefined) return yield* none
        if (accounts.length === 1) return connectedTo(first)
        const meAnswer = yield* graphGet(outbound, `${graph}/me?fields=id,name`, userToken)
        const me = Option.getOrElse(readGraph(Me, meAnswer), () => ({ id: "me", name: undefined }))
        const choices: ReadonlyArray<Choice> = accounts.map((a) => ({
          id: a.ig.id,
          name: a.ig.username ?? a.ig.name ?? a.ig.id,
          picture: a.ig.profile_picture_url ?? null
        }))
        return {
          // until one is chosen: the person's token, no account
          credentials: { accessToken: userToken, igUserId: "" },
          profile: { accountId: `facebook:${me.id}`, name: me.name ?? "Facebook account", profile: me.name ?? me.id, picture: null },
          choices
        } satisfies Connected
      })

    const choose = (credentials: Redacted.Redacted<Record<string, unknown>>, choiceId: string) =>
      Effect.gen(function* () {
        const c = yield* Effect.mapError(
          credentialsOf(credentials),
          () => new ConnectFailed({ message: "Connect Instagram again: the sign-in is missing." })
        )
        const accounts = yield* linkedAccounts(c.accessToken)
        const chosen = accounts.find((a) => a.ig.id === choiceId)
        if (chosen === undefined)
          return yield* new ConnectFailed({ message: `The Instagram account ${choiceId} is not linked to your Facebook Pages.` })
        return connectedTo(chosen)
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken and igUserId (the Instagram professional account's id)")(input)
        const answer = yield* graphGet(
          outbound,
          `${graph}/${encodeURIComponent(given.igUserId)}?fields=id,username,name,profile_picture_url`,
          given.accessToken
        )
        const ig = readGraph(IgAccount, answer)
        if (Option.isNone(ig)) return yield* connectFailedGraph(NAME, answer)
        return { credentials: given, profile: profileOf(ig.value) } satisfies Connected
      })

    const adapter: NetworkAdapter = {
      identifier: "instagram",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Instagram is not set up on this server (INSTAGRAM_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/${GRAPH_VERSION}/dialog/oauth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, state, response_type: "code", scope: SCOPES }).toString()}`
              ),
        exchange: ({ code, redirectUri }) => exchange(code, redirectUri)
      },
      verify,
      choose,
      // a Page token made from a long-lived user token does not expire
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      ...instagramAdapterMethods(NAME, credentialsOf, publishing)
    }
    return adapter
  })

export const makeInstagramAdapter = Effect.gen(function* () {
  const settings = yield* networkAppConfig("instagram", { apiUrl: "https://graph.facebook.com", authUrl: "https://www.facebook.com" })
  return yield* makeInstagramAdapterWith(settings)
})
