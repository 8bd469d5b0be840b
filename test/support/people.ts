import { createHash, randomBytes } from "node:crypto"
import { Schema } from "effect"
import { decode } from "./http.js"
import { closedPort } from "./ports.js"
import { startServices, type ServiceName, type TestWorld } from "./system.js"

/**
 * A person in a browser, headless: sign in, read a page's forms, press their buttons
 * (with the session cookie and the form's CSRF token), and the OAuth flows on top.
 */

/**
 * Services whose PUBLIC_URL is the address they listen on (the issuer must be exact for an
 * OAuth client library), trusting one proxy so a test can pick its client address with
 * X-Forwarded-For (each test its own per-IP window).
 */
export const startAtOwnAddress = async (world: TestWorld, services: ReadonlyArray<ServiceName>, extra: Record<string, string> = {}) => {
  const port = await closedPort()
  return startServices(world, services, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, TRUST_PROXY: "1", ...extra })
}

let ipCounter = 0
/** A client address of its own for a test (sent as X-Forwarded-For). */
export const uniqueIp = () => {
  ipCounter += 1
  return `10.${(process.pid % 250) + 1}.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`
}

const htmlUnescaped = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

/** The hidden fields of the first form on a page with a CSRF token (the page's form to press). */
export const hiddenFields = (html: string): Record<string, string> => {
  const fields: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    const name = htmlUnescaped(m[1] ?? "")
    if (!(name in fields)) fields[name] = htmlUnescaped(m[2] ?? "")
  }
  return fields
}

/** What a browser sends for a page's form untouched: its hidden fields and each select's selected (else first) option. */
export const formDefaults = (html: string): Record<string, string> => {
  const fields = hiddenFields(html)
  for (const m of html.matchAll(/<select[^>]* name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const name = htmlUnescaped(m[1] ?? "")
    const options = [...(m[2] ?? "").matchAll(/<option value="([^"]*)"( selected)?>/g)]
    const chosen = options.find((o) => o[2] !== undefined) ?? options[0]
    if (chosen !== undefined && !(name in fields)) fields[name] = htmlUnescaped(chosen[1] ?? "")
  }
  return fields
}

export const sessionCookie = (res: Response): string | null => {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="))
  return set === undefined ? null : (set.split(";")[0] ?? null)
}

export const getPage = (url: string, cookie: string | null) => fetch(url, { redirect: "manual", headers: cookie === null ? {} : { cookie } })

export const postForm = (url: string, cookie: string | null, fields: Record<string, string>, ip = uniqueIp()) =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip, ...(cookie === null ? {} : { cookie }) },
    body: new URLSearchParams(fields).toString()
  })

/** Signs in through the sign-in page; the signed-in session's cookie. */
export const signIn = async (base: string, email: string, password: string): Promise<string> => {
  const page = await getPage(`${base}/sign-in`, null)
  const visitor = sessionCookie(page)
  const { csrf = "" } = hiddenFields(await page.text())
  const res = await postForm(`${base}/sign-in`, visitor, { csrf, email, password, next: "/apps" })
  const cookie = sessionCookie(res)
  if (res.status !== 303 || cookie === null) throw new Error(`sign-in failed: ${res.status}`)
  return cookie
}

/** Opens a page with a form and presses one of its buttons (with its hidden fields, CSRF included). */
export const pressButton = async (pageUrl: string, action: string, cookie: string, extra: Record<string, string>) => {
  const page = await getPage(pageUrl, cookie)
  const fields = formDefaults(await page.text())
  return postForm(action, cookie, { ...fields, ...extra })
}

export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

export const registerApp = async (base: string, body: Record<string, unknown>, ip = uniqueIp()) => {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

export const authorizeUrl = (base: string, params: Record<string, string>) => `${base}/oauth/authorize?${new URLSearchParams(params).toString()}`

/** Where Allow (or Cancel) sends the browser, for the given authorize URL. */
export const pressAllow = async (base: string, cookie: string, url: string, decision: "allow" | "cancel" = "allow", workspace?: string) => {
  const res = await pressButton(url, `${base}/oauth/authorize`, cookie, { decision, ...(workspace !== undefined ? { workspace } : {}) })
  if (res.status !== 303) throw new Error(`Allow answered ${res.status}: ${await res.text()}`)
  return new URL(res.headers.get("location") ?? "")
}

export const tokenRequest = (base: string, fields: Record<string, string>, ip = uniqueIp(), asJson = false) =>
  fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": asJson ? "application/json" : "application/x-www-form-urlencoded", "x-forwarded-for": ip },
    body: asJson ? JSON.stringify(fields) : new URLSearchParams(fields).toString()
  })

/** The whole code flow without a library: an OAuth token of the signed-in person, in the workspace picked at Allow. */
export const oauthToken = async (base: string, cookie: string, workspace?: string, clientName = "Test app") => {
  const redirectUri = "http://127.0.0.1:9/callback"
  const app = await registerApp(base, { client_name: clientName, redirect_uris: [redirectUri] })
  const clientId = String(app.json["client_id"])
  const { verifier, challenge } = pkcePair()
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s"
  })
  const back = await pressAllow(base, cookie, url, "allow", workspace)
  const code = back.searchParams.get("code") ?? ""
  const res = await tokenRequest(base, {
    grant_type: "authorization_code",
    code,
    client_id: clientId,
    redirect_uri: redirectUri,
    code_verifier: verifier
  })
  const body = (await res.json()) as { access_token: string }
  return body.access_token
}

/** A JSON answer decoded with its schema (see test/support/http.ts's `decode`). */
export const bodyOf = async <A, I>(res: Response, schema: Schema.Schema<A, I, never>): Promise<A> =>
  decode(schema, await res.json(), `The ${res.status} answer of ${res.url}`)

/** An OAuth endpoint's failure (protocol/oauth/errors.ts, OAuthErrorBody). */
export const OAuthFailure = Schema.Struct({ error: Schema.String, error_description: Schema.String, msg: Schema.String })

/** The token endpoint's answer. */
export const TokenAnswer = Schema.Struct({ access_token: Schema.String, token_type: Schema.String, scope: Schema.String })

/** The device authorization endpoint's answer (RFC 8628 3.2). */
export const DeviceCodeAnswer = Schema.Struct({
  device_code: Schema.String,
  user_code: Schema.String,
  verification_uri: Schema.String,
  verification_uri_complete: Schema.String,
  expires_in: Schema.Number,
  interval: Schema.Number
})
