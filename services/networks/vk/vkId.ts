import { createHash, randomBytes } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import { ConnectFailed, type NetworkAnswer, type Refresh } from "../adapter.js"
import type { OutboundHttpShape } from "../../platform/outbound/outboundHttp.js"
import { refreshOAuth } from "../oauthRefresh.js"
import { call, decodeBody, excerpt, isSuccess } from "../networkHttp.js"

/**
 * VK ID sign-in (OAuth 2.1 with PKCE; id.vk.com/about/business/go/docs, "api-description"):
 * `GET {VK_AUTH_URL}/authorize` with the S256 challenge; the callback brings `code`,
 * `state` and `device_id`; `POST {VK_AUTH_URL}/oauth2/auth` exchanges them (and later the
 * refresh token, with the same device_id) for a user access token that lives an hour.
 */

/** API rights the post needs: the user's wall and its photos. */
const SCOPE = "wall photos"
/** Access tokens live an hour: refresh ten minutes ahead. */
const REFRESH_MARGIN_MS = 10 * 60_000
const DEFAULT_LIFETIME_SECONDS = 3600

const VkIdToken = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  expires_in: Schema.optional(Schema.Number),
  user_id: Schema.Number
})
const VkIdError = Schema.Struct({ error: Schema.String, error_description: Schema.optional(Schema.String) })

/** What a VK ID sign-in adds to the channel's credentials. */
export const VkIdSession = Schema.Struct({ refreshToken: Schema.String, expiresAt: Schema.String, deviceId: Schema.String })

export const makeVkId = (outbound: OutboundHttpShape, options: { readonly authUrl: string; readonly clientId: Option.Option<string> }) => {
  const clientId = Option.match(options.clientId, {
    onNone: () => Effect.fail(new ConnectFailed({ message: "VK ID sign-in needs VK_CLIENT_ID (the VK ID app's id)." })),
    onSome: Effect.succeed
  })
  const token = (form: Readonly<Record<string, string>>) =>
    call(outbound, {
      url: `${options.authUrl}/oauth2/auth`,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString()
    })

  const authorizeUrl = (input: { readonly state: string; readonly redirectUri: string; readonly codeVerifier: string }) =>
    Effect.map(clientId, (id) => {
      const query = new URLSearchParams({
        response_type: "code",
        client_id: id,
        redirect_uri: input.redirectUri,
        state: input.state,
        code_challenge: createHash("sha256").update(input.codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
        scope: SCOPE
      })
      return `${options.authUrl}/authorize?${query.toString()}`
    })

  /** The callback's code and device_id → the user's token, their id (the wall) and the refresh session. */
  const exchange = (input: {
    readonly code: string
    readonly redirectUri: string
    readonly codeVerifier: string
    readonly query: Readonly<Record<string, string>>
  }) =>
    Effect.gen(function* () {
      const id = yield* clientId
      const deviceId = input.query["device_id"] ?? ""
      if (deviceId === "") return yield* new ConnectFailed({ message: "VK ID came back without a device_id: sign in again." })
      const answer = yield* token({
        grant_type: "authorization_code",
        code: input.code,
        code_verifier: input.codeVerifier,
        redirect_uri: input.redirectUri,
        client_id: id,
        device_id: deviceId,
        state: input.query["state"] ?? ""
      })
      const t = answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(VkIdToken, answer.response) : Option.none()
      if (Option.isNone(t)) return yield* new ConnectFailed({ message: `VK ID refused the sign-in: ${reasonOf(answer)}.` })
      return {
        accessToken: t.value.access_token,
        ownerId: t.value.user_id,
        refreshToken: t.value.refresh_token,
        expiresAt: new Date(Date.now() + (t.value.expires_in ?? DEFAULT_LIFETIME_SECONDS) * 1000).toISOString(),
        deviceId
      }
    })

  /** A new token an hour at a time; VK ID gives a new refresh token with each (the old one stops working). */
  const refresh = (current: Readonly<Record<string, unknown>> & typeof VkIdSession.Type): Effect.Effect<Refresh> =>
    Effect.gen(function* () {
      const id = yield* Effect.option(clientId)
      return yield* refreshOAuth(current, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: DEFAULT_LIFETIME_SECONDS,
        exchange: (refreshToken) =>
          token({
            grant_type: "refresh_token",
            refresh_token: refreshToken,
            client_id: Option.getOrElse(id, () => ""),
            device_id: current.deviceId,
            state: randomBytes(16).toString("base64url")
          })
      })
    })

  return { authorizeUrl, exchange, refresh }
}

const reasonOf = (answer: NetworkAnswer) =>
  answer._tag === "Failed"
    ? `it could not be reached (${answer.error._tag})`
    : Option.match(decodeBody(VkIdError, answer.response), {
        onNone: () => `HTTP ${answer.response.status}: ${excerpt(answer.response, 120)}`,
        onSome: (e) => e.error_description ?? e.error
      })
