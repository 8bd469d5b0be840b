import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { signInPerQuarterHour } from "../../../domain/rateWindow.js"
import { isRole } from "../../../domain/roles.js"
import { RateWindows } from "../../actors/rateWindows.js"
import { clientIp } from "../../oauth/clientIp.js"
import { AppConfig } from "../../platform/config.js"
import { People } from "../../people/People.js"
import { csrfMatches, Sessions } from "../../people/sessions.js"
import { authorize } from "../../platform/policy.js"
import { approvedAppsPage, membersPage, messagePage, signInPage } from "./peoplePages.js"
import { html, makeSessionEdge, readForm, readQuery, safeNext, seeOther } from "./sessionEdge.js"

const SIGNED_IN_HOME = "/apps"

/**
 * People in the app: sign in and out, Approved Apps (revoke an app's or the command
 * line's token), and the members page of owners and admins. Page shape only: People
 * and the policy do the work.
 */
export const PeopleRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const edge = yield* makeSessionEdge
    const people = yield* People
    const sessions = yield* Sessions
    const windows = yield* RateWindows
    const { trustProxy } = yield* AppConfig
    const { publicUrl } = edge

    yield* router.get(
      "/sign-in",
      Effect.gen(function* () {
        const query = yield* readQuery
        const next = safeNext(query["next"], SIGNED_IN_HOME)
        const who = yield* edge.signedIn
        if (Option.isSome(who)) return seeOther(`${publicUrl}${next}`)
        const visitor = yield* edge.visitor
        return visitor.respond(html(signInPage({ publicUrl, csrf: visitor.session.csrf, next, email: "", problem: null })))
      })
    )

    yield* router.post(
      "/sign-in",
      Effect.gen(function* () {
        const form = yield* readForm
        const visitor = yield* edge.visitor
        const next = safeNext(form["next"], SIGNED_IN_HOME)
        const again = (problem: string, status: number) =>
          visitor.respond(html(signInPage({ publicUrl, csrf: visitor.session.csrf, next, email: form["email"] ?? "", problem }), status))
        const request = yield* HttpServerRequest.HttpServerRequest
        const window = yield* windows.take(clientIp(request, trustProxy), "signin", signInPerQuarterHour)
        if (!window.allowed) {
          const refused = Errors.tooManyRequests(window.retryAfterSeconds)
          return HttpServerResponse.setHeader(again(refused.error, 429), "retry-after", String(refused.retryAfter ?? window.retryAfterSeconds))
        }
        if (!csrfMatches(visitor.session, form["csrf"] ?? "")) return again("This form had expired. Please sign in again.", 403)
        const found = yield* people.signIn(form["email"] ?? "", form["password"] ?? "")
        if (Option.isNone(found)) return again("The email or password is wrong.", 400)
        // a new session for the signed-in person: an id known before sign-in is worth nothing
        yield* sessions.end(visitor.sessionId)
        const started = yield* sessions.start(found.value.userId)
        return edge.withCookie(seeOther(`${publicUrl}${next}`), started.id, started.maxAgeSeconds)
      })
    )

    yield* router.post(
      "/sign-out",
      edge.requireForm((who) => Effect.map(sessions.end(who.sessionId), () => edge.clearCookie(seeOther(`${publicUrl}/sign-in`))))
    )

    yield* router.get(
      "/apps",
      edge.requireSignIn((who) =>
        Effect.gen(function* () {
          const query = yield* readQuery
          const apps = yield* people.approvedApps(who.user.userId)
          return html(approvedAppsPage(who.signed, apps, query["revoked"] === "1" ? "Revoked: it stopped working." : null))
        })
      )
    )

    yield* router.post(
      "/apps/revoke",
      edge.requireForm((who, form) =>
        Effect.map(people.revokeApp(who.user.userId, form["token"] ?? ""), (revoked) =>
          revoked ? seeOther(`${publicUrl}/apps?revoked=1`) : html(messagePage("Not found", "That app is not approved (any more).", who.signed), 404)
        )
      )
    )

    yield* router.get(
      "/members",
      edge.requireSignIn((who) =>
        Effect.gen(function* () {
          const query = yield* readQuery
          const manageable = (yield* people.workspacesOf(who.user.userId)).filter((m) => m.role === "owner" || m.role === "admin")
          const workspace = manageable.find((m) => m.workspaceId === query["workspace"]) ?? manageable[0]
          if (workspace === undefined) {
            return html(messagePage("Members", "Only owners and admins manage members, and you are neither in any workspace.", who.signed), 403)
          }
          const done = query["done"] === "1" ? "Saved." : null
          return yield* edge.asMember(who, workspace.workspaceId, people.members.pipe(authorize("members.manage")), (members) =>
            html(membersPage(who.signed, { workspace, manageable, members, selfId: who.user.userId, done }))
          )
        })
      )
    )

    const change = (read: (form: Readonly<Record<string, string>>) => { role?: string; paused?: boolean }) =>
      edge.requireForm((who, form) => {
        const workspaceId = form["workspace"] ?? ""
        const { role, paused } = read(form)
        if (role !== undefined && !isRole(role)) return Effect.succeed(html(messagePage("Not saved", "Pick one of the roles.", who.signed), 400))
        const input = {
          userId: form["user"] ?? "",
          ...(role !== undefined && isRole(role) ? { role } : {}),
          ...(paused !== undefined ? { paused } : {})
        }
        return edge.asMember(who, workspaceId, people.changeMember(input).pipe(authorize("members.manage")), () =>
          seeOther(`${publicUrl}/members?workspace=${encodeURIComponent(workspaceId)}&done=1`)
        )
      })

    yield* router.post(
      "/members/role",
      change((form) => ({ role: form["role"] ?? "" }))
    )
    yield* router.post(
      "/members/pause",
      change((form) => ({ paused: form["paused"] === "true" }))
    )
  })
)
