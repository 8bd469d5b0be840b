import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { normalizeUserCode } from "../../../domain/oauth/deviceFlow.js"
import { OAuthPaths } from "../../../protocol/oauth/metadata.js"
import { OAuth, type AuthorizationRequest, type Fields } from "../../oauth/OAuth.js"
import { People } from "../../people/People.js"
import type { MembershipRow } from "../../people/peopleRepo.js"
import { authorize } from "../../platform/policy.js"
import { allowPage, devicePage, messagePage } from "./peoplePages.js"
import { html, makeSessionEdge, readQuery, seeOther, type SignedIn } from "./sessionEdge.js"

/** The workspaces a person can approve an app in: not those where their access is paused. */
const usable = (workspaces: ReadonlyArray<MembershipRow>) => workspaces.filter((w) => !w.paused || w.role === "owner")

const noWorkspace = (who: SignedIn) =>
  html(messagePage("No workspace", "You are not an active member of any workspace, so there is nothing to allow access to.", who.signed), 403)

/** The authorization request again, as the Allow form carries it. */
const requestParams = (r: AuthorizationRequest): ReadonlyArray<readonly [string, string]> => [
  ["response_type", "code"],
  ["client_id", r.clientId],
  ["redirect_uri", r.redirectUri],
  ["code_challenge", r.codeChallenge],
  ["code_challenge_method", "S256"],
  ...(r.state === null ? [] : [["state", r.state] as const])
]

/**
 * The pages of OAuth: GET /oauth/authorize (sign in if needed, then the Allow screen
 * naming the app and the workspace), POST /oauth/authorize (Allow or Cancel), and the
 * device flow's verification page /device. Page shape only: OAuth does the work.
 */
export const OAuthPageRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const edge = yield* makeSessionEdge
    const oauth = yield* OAuth
    const people = yield* People

    /** A request that names no trusted redirect address is a page; other faults go back to the app. */
    const checked = <R>(
      fields: Fields,
      redirectStatus: number,
      page: (request: AuthorizationRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
    ) =>
      oauth.checkAuthorization(fields).pipe(
        Effect.either,
        Effect.flatMap(
          Either.match({
            onLeft: (refusal) =>
              Effect.succeed(
                refusal._tag === "AuthorizeNotShown"
                  ? html(messagePage("This app cannot continue", refusal.message), 400)
                  : HttpServerResponse.empty({ status: redirectStatus, headers: { location: refusal.location, "cache-control": "no-store" } })
              ),
            onRight: page
          })
        )
      )

    yield* router.get(
      OAuthPaths.authorize,
      Effect.flatMap(readQuery, (query) =>
        checked(query, 302, (request) =>
          edge.requireSignIn((who) =>
            Effect.map(people.workspacesOf(who.user.userId), (all) => {
              const workspaces = usable(all)
              if (workspaces.length === 0) return noWorkspace(who)
              return html(
                allowPage(who.signed, {
                  clientName: request.clientName,
                  redirectUri: request.redirectUri,
                  params: requestParams(request),
                  workspaces
                })
              )
            })
          )
        )
      )
    )

    yield* router.post(
      OAuthPaths.authorize,
      edge.requireForm((who, form) =>
        checked(form, 303, (request) =>
          form["decision"] === "allow"
            ? edge.asMember(who, form["workspace"] ?? "", oauth.allow(request).pipe(authorize("apps.approve")), seeOther)
            : Effect.succeed(seeOther(oauth.cancel(request)))
        )
      )
    )

    yield* router.get(
      OAuthPaths.device,
      edge.requireSignIn((who) =>
        Effect.gen(function* () {
          const typed = (yield* readQuery)["user_code"] ?? ""
          const workspaces = usable(yield* people.workspacesOf(who.user.userId))
          if (workspaces.length === 0) return noWorkspace(who)
          const userCode = normalizeUserCode(typed)
          const pending = userCode === null ? false : yield* oauth.devicePending(userCode)
          const problem = typed !== "" && !pending ? "This code is unknown or has expired. Check the code the command line shows." : null
          return html(devicePage(who.signed, { userCode: userCode ?? typed, workspaces, problem }), problem === null ? 200 : 400)
        })
      )
    )

    yield* router.post(
      OAuthPaths.device,
      edge.requireForm((who, form) =>
        Effect.gen(function* () {
          const userCode = normalizeUserCode(form["user_code"] ?? "")
          const workspaces = usable(yield* people.workspacesOf(who.user.userId))
          const again = (problem: string) => html(devicePage(who.signed, { userCode: form["user_code"] ?? "", workspaces, problem }), 400)
          if (userCode === null) return again("A code has 8 letters, like BCDF-GHJK. Check the code the command line shows.")
          const decision = form["decision"] === "approve" ? "approved" : "denied"
          return yield* edge.asMember(
            who,
            form["workspace"] ?? "",
            oauth.decideDevice(userCode, decision).pipe(authorize("apps.approve")),
            (outcome) =>
              outcome === "ok"
                ? html(
                    messagePage(
                      decision === "approved" ? "Command line connected" : "Request denied",
                      decision === "approved"
                        ? "The command line is connected. You can go back to it. It is listed under Approved Apps as Command line."
                        : "The command line was not connected.",
                      who.signed
                    )
                  )
                : again(
                    outcome === "decided"
                      ? "This code was already approved or denied."
                      : "This code is unknown or has expired. Start again on the command line."
                  )
          )
        })
      )
    )
  })
)
