import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { type ApiError, errorBody } from "../../../domain/errors.js"
import type { Principal } from "../../../domain/roles.js"
import { statusOf } from "../../../protocol/http/errors.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { AppConfig } from "../../platform/config.js"
import { People } from "../../people/People.js"
import { csrfMatches, SESSION_COOKIE, Sessions, type Session } from "../../people/sessions.js"
import { messagePage, type Signed } from "./peoplePages.js"

/**
 * What every app page shares: the session cookie (HttpOnly, SameSite=Lax, Secure when
 * PUBLIC_URL is https), the signed-in person, CSRF checks of form posts, and the
 * headers of a page that must not be framed, cached or leak its address.
 */

export const pageHeaders = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
} as const

export const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: pageHeaders })

export const seeOther = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location, "cache-control": "no-store" } })

/** A form post's fields (the first of each name); an unreadable body reads as no fields. */
export const readForm = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  request.text.pipe(
    Effect.map((text) => {
      const fields: Record<string, string> = {}
      for (const [k, v] of new URLSearchParams(text)) if (!(k in fields)) fields[k] = v
      return fields
    }),
    Effect.orElseSucceed((): Record<string, string> => ({}))
  )
)

/** The query's parameters, each as text (the first when repeated). */
export const readQuery = Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
  const fields: Record<string, string> = {}
  for (const [k, v] of Object.entries(params)) {
    const first = Array.isArray(v) ? v[0] : v
    if (typeof first === "string") fields[k] = first
  }
  return fields
})

/** Only a path of this app may follow sign-in (no open redirect to another site). */
export const safeNext = (next: string | undefined, fallback: string): string =>
  next?.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : fallback

export interface SignedIn {
  readonly sessionId: string
  readonly session: Session
  readonly user: { readonly userId: string; readonly email: string }
  readonly signed: Signed
}

export const makeSessionEdge = Effect.gen(function* () {
  const sessions = yield* Sessions
  const people = yield* People
  const { publicUrl } = yield* AppConfig
  const secure = publicUrl.startsWith("https://")

  const withCookie = (response: HttpServerResponse.HttpServerResponse, id: string, maxAgeSeconds: number) =>
    HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: "lax",
      secure,
      path: "/",
      maxAge: `${maxAgeSeconds} seconds`
    })

  const clearCookie = (response: HttpServerResponse.HttpServerResponse) =>
    HttpServerResponse.expireCookie(response, SESSION_COOKIE, { httpOnly: true, sameSite: "lax", secure, path: "/" })

  const cookieOf = Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.cookies[SESSION_COOKIE])

  /** The visitor's session, or a new one: `respond` sets its cookie when it is new. */
  const visitor = Effect.gen(function* () {
    const id = yield* cookieOf
    const found = yield* sessions.find(id)
    if (Option.isSome(found) && id !== undefined) {
      return { sessionId: id, session: found.value, respond: (r: HttpServerResponse.HttpServerResponse) => r }
    }
    const started = yield* sessions.start(null)
    return {
      sessionId: started.id,
      session: started.session,
      respond: (r: HttpServerResponse.HttpServerResponse) => withCookie(r, started.id, started.maxAgeSeconds)
    }
  })

  /** The signed-in person (not suspended), or None. */
  const signedIn = Effect.gen(function* () {
    const id = yield* cookieOf
    const found = yield* sessions.find(id)
    if (Option.isNone(found) || found.value.userId === null || id === undefined) return Option.none<SignedIn>()
    const user = yield* people.person(found.value.userId)
    if (Option.isNone(user)) return Option.none<SignedIn>()
    return Option.some<SignedIn>({
      sessionId: id,
      session: found.value,
      user: user.value,
      signed: { publicUrl, csrf: found.value.csrf, email: user.value.email }
    })
  })

  /** Runs `page` for the signed-in person; anyone else goes to sign in and comes back here. */
  const requireSignIn = <E, R>(page: (who: SignedIn) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function* () {
      const who = yield* signedIn
      if (Option.isSome(who)) return yield* page(who.value)
      const request = yield* HttpServerRequest.HttpServerRequest
      // a form post cannot be replayed after sign-in: come back to the page it was sent from
      const next = request.method === "GET" ? request.url : "/apps"
      return seeOther(`${publicUrl}/sign-in?next=${encodeURIComponent(next)}`)
    })

  /** A signed-in form post: its CSRF token must be the session's (else 403, nothing done). */
  const requireForm = <E, R>(
    page: (who: SignedIn, form: Readonly<Record<string, string>>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
    requireSignIn((who) =>
      Effect.flatMap(readForm, (form) =>
        csrfMatches(who.session, form["csrf"] ?? "")
          ? page(who, form)
          : Effect.succeed(html(messagePage("Form expired", "This form has expired. Go back, reload the page and try again.", who.signed), 403))
      )
    )

  /**
   * Runs a service method as the person in one workspace (their role there, checked by
   * the method's policy); a refusal (not a member, paused, role) becomes a page.
   */
  const asMember = <A, E extends ApiError, R>(
    who: SignedIn,
    workspaceId: string,
    run: Effect.Effect<A, E, R>,
    answer: (a: A) => HttpServerResponse.HttpServerResponse
  ) =>
    people.principalIn(who.user, workspaceId).pipe(
      Effect.flatMap((principal: Principal) => Effect.provideService(run, CurrentPrincipal, principal)),
      Effect.either,
      Effect.map(
        Either.match({
          onLeft: (e: ApiError) => html(messagePage("Not allowed", `${errorBody(e).error} ${e.fix ?? ""}`.trim(), who.signed), statusOf(e)),
          onRight: answer
        })
      )
    )

  return { publicUrl, withCookie, clearCookie, visitor, signedIn, requireSignIn, requireForm, asMember }
})

export type SessionEdge = Effect.Effect.Success<typeof makeSessionEdge>
