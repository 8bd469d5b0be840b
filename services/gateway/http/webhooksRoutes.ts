import { HttpApiBuilder, HttpApiError, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import { isUuid } from "../../../domain/ids.js"
import { CreateWebhookBody, ReplayBody, UpdateWebhookBody } from "../../../protocol/http/webhooks.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { authorize } from "../../platform/policy.js"
import { Webhooks } from "../../webhooks/Webhooks.js"
import { makeAuthenticate } from "../authentication.js"
import { decodeErrorToApiError, readJsonBody } from "../errorResponse.js"

/**
 * The app's webhook API at /api/webhooks (spec: Webhook management; "not part of the
 * /public/v1 API"). Raw routes on the gateway's one router rather than a second HttpApi
 * (a second HttpApi on the router skips the API-level middleware) or a group of PublicApi
 * (its prefix and its OpenAPI document are the public API's): they share the router's
 * error middleware, so every failure has the spec's body, and they authenticate with the
 * same function as the public API (same keys, billing gate, messages). Each route maps
 * the request to one Webhooks method and nothing else.
 */

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

const decodeBody = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(readJsonBody, (body) =>
    Schema.decodeUnknown(schema)(body).pipe(
      Effect.catchTag("ParseError", (e) =>
        Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (d) => Effect.fail(decodeErrorToApiError(d)))
      )
    )
  )

const pathId = Effect.flatMap(HttpRouter.params, (params) => {
  const id = params["id"] ?? ""
  return isUuid(id) ? Effect.succeed(id.toLowerCase()) : Effect.fail(Errors.invalidId())
})

export const WebhooksRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const authenticate = yield* makeAuthenticate

    /** Authenticates the Authorization header, then runs the route as that principal. */
    const authenticated = <A, E, R>(route: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const principal = yield* authenticate(request.headers["authorization"] ?? "")
        return yield* Effect.provideService(route, CurrentPrincipal, principal)
      })

    const withId = <A, E, R>(route: (id: string) => Effect.Effect<A, E, R>) => authenticated(Effect.flatMap(pathId, route))

    yield* router.get(
      "/api/webhooks",
      authenticated(
        webhooks.list.pipe(
          authorize("webhooks.list"),
          Effect.map((list) => json(list))
        )
      )
    )
    yield* router.post(
      "/api/webhooks",
      authenticated(
        decodeBody(CreateWebhookBody).pipe(
          Effect.flatMap((body) => webhooks.create(body).pipe(authorize("webhooks.manage"))),
          Effect.map((w) => json(w, 201))
        )
      )
    )
    const update = withId((id) =>
      decodeBody(UpdateWebhookBody).pipe(
        Effect.flatMap((body) => webhooks.update(id, body).pipe(authorize("webhooks.manage"))),
        Effect.map((w) => json(w))
      )
    )
    yield* router.put("/api/webhooks/:id", update)
    yield* router.patch("/api/webhooks/:id", update)
    yield* router.del(
      "/api/webhooks/:id",
      withId((id) =>
        webhooks.remove(id).pipe(
          authorize("webhooks.manage"),
          Effect.map((r) => json(r))
        )
      )
    )
    yield* router.post(
      "/api/webhooks/:id/rotate-secret",
      withId((id) =>
        webhooks.rotateSecret(id).pipe(
          authorize("webhooks.manage"),
          Effect.map((w) => json(w))
        )
      )
    )
    yield* router.get(
      "/api/webhooks/:id/deliveries",
      withId((id) =>
        webhooks.deliveries(id).pipe(
          authorize("webhooks.manage"),
          Effect.map((log) => json(log))
        )
      )
    )
    yield* router.post(
      "/api/webhooks/:id/deliveries/:deliveryId/redeliver",
      withId((id) =>
        Effect.flatMap(HttpRouter.params, (params) => webhooks.redeliver(id, (params["deliveryId"] ?? "").toLowerCase())).pipe(
          authorize("webhooks.manage"),
          Effect.map((r) => json(r, 202))
        )
      )
    )
    yield* router.post(
      "/api/webhooks/:id/replay",
      withId((id) =>
        decodeBody(ReplayBody).pipe(
          Effect.flatMap((body) => webhooks.replay(id, body).pipe(authorize("webhooks.manage"))),
          Effect.map((r) => json(r, 202))
        )
      )
    )
    yield* router.post(
      "/api/webhooks/:id/test",
      withId((id) =>
        webhooks.sendTest(id).pipe(
          authorize("webhooks.manage"),
          Effect.map((d) => json(d))
        )
      )
    )
  })
)
