import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { can } from "../../domain/policy.js"
import { pausedReason, receives, TEST_MESSAGE, webhookLimitMessage, webhookLimits } from "../../domain/webhooks.js"
import { parseAfter, REPLAY_MAX_EVENTS } from "../../domain/eventLog.js"
import { isUuid } from "../../domain/ids.js"
import { EventMessage, eventNames, isSubscribableEvent, TEST_EVENT } from "../../protocol/events.js"
import type { CreateWebhookBody, ReplayBody, UpdateWebhookBody, Webhook, WebhookDelivery } from "../../protocol/http/webhooks.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { AppConfig } from "../platform/config.js"
import { outboundAllowFromEnv } from "../platform/outbound/allowList.js"
import { KeptAliveOutboundHttpLive, OutboundHttp } from "../platform/outbound/outboundHttp.js"
import { systemResolver } from "../platform/outbound/resolver.js"
import { policyRequire } from "../platform/policy.js"
import { existingChannelIds } from "../repos/channelsRepo.js"
import { decryptSecret, encryptSecret } from "../platform/secrets.js"
import { runAttempt } from "./attempt.js"
import { type LogEntry, makeDeliveriesRepo } from "./deliveriesRepo.js"
import { leaseMsOf, webhookSettings } from "./settings.js"
import { newWebhookSecret } from "./signatures.js"
import { checkWebhookUrl } from "./webhookUrl.js"
import { makeWebhooksRepo, type WebhookFields, type WebhookRow } from "./webhooksRepo.js"
import { makeEventLogRepo } from "./eventLogRepo.js"
import { channelsOf } from "./fanout.js"
import { withSpan } from "../platform/tracing.js"

const decodeMessage = Schema.decodeUnknown(EventMessage)

/** Webhook delivery (log entry) as the API answers it. */
export const deliveryResource = (e: LogEntry): WebhookDelivery => ({
  id: e.id,
  deliveryId: e.deliveryId,
  createdAt: e.createdAt.toISOString(),
  event: e.event,
  status: e.status,
  error: e.error,
  attempt: e.attempt,
  ok: e.ok
})

/**
 * The webhooks of a workspace (spec: Configuring a webhook, Webhook management): the app
 * API at /api/webhooks and the admin CLI call these methods. Every change is checked
 * here: a public http(s) address, events of the 8 (not `test`), channels of the
 * workspace, the plan's number of webhooks (402 with a fix).
 */
export class Webhooks extends Effect.Service<Webhooks>()("webhooks/Webhooks", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* makeWebhooksRepo
    const store = yield* makeDeliveriesRepo
    const eventLog = yield* makeEventLogRepo
    const outbound = yield* OutboundHttp
    const { secretKey } = yield* AppConfig
    const settings = yield* webhookSettings.pipe(Effect.orDie)
    const allow = yield* outboundAllowFromEnv(systemResolver).pipe(Effect.orDie)

    const resource = (row: WebhookRow, withSecret: boolean): Webhook => ({
      id: row.id,
      name: row.name,
      url: row.url,
      events: row.events,
      channelIds: row.channelIds,
      active: row.active,
      pausedReason: pausedReason(row.plan, row.rank),
      ...(withSecret ? { secret: decryptSecret(secretKey, row.secret) } : {}),
      createdAt: row.createdAt.toISOString()
    })

    const found = (workspaceId: string, id: string) =>
      repo
        .find(workspaceId, id)
        .pipe(Effect.orDie, Effect.flatMap(Option.match({ onNone: () => Effect.fail(Errors.webhookNotFound()), onSome: Effect.succeed })))

    /** Events: each one of the 8; `test` is the Send Test action's only. Duplicates dropped. */
    const checkEvents = (events: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        for (const e of events) {
          if (e === TEST_EVENT) {
            return yield* Effect.fail(
              Errors.badRequest("`test` cannot be chosen as an event.", "Use Send Test (POST /api/webhooks/{id}/test) to send a test delivery.")
            )
          }
          if (!isSubscribableEvent(e)) {
            return yield* Effect.fail(Errors.badRequest(`Unknown event ${JSON.stringify(e)}.`, `Choose from ${eventNames.join(", ")}.`))
          }
        }
        return [...new Set(events)]
      })

    /** Channels: each one of the workspace's. */
    const checkChannels = (workspaceId: string, channelIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const unique = [...new Set(channelIds)]
        if (unique.length === 0) return unique
        const known = yield* existingChannelIds(workspaceId, unique).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)
        const missing = unique.find((c) => !known.some((k) => k.id === c))
        if (missing !== undefined) {
          return yield* Effect.fail(
            Errors.badRequest(
              `Unknown channel ${missing}.`,
              "Use channel ids from GET /public/v1/integrations, or leave channelIds empty for all channels."
            )
          )
        }
        return unique
      })

    const checkFields = (workspaceId: string, input: WebhookFields) =>
      Effect.gen(function* () {
        const url = yield* checkWebhookUrl(input.url, allow, systemResolver)
        const events = yield* checkEvents(input.events)
        const channelIds = yield* checkChannels(workspaceId, input.channelIds)
        if (input.name.includes("\u0000")) return yield* Effect.fail(Errors.nulCharacter("name"))
        return { ...input, url, events, channelIds }
      })

    /** GET /api/webhooks: owners and admins with each secret, others without, clients an empty list. */
    const list = Effect.gen(function* () {
      const { workspaceId, role } = yield* CurrentPrincipal
      if (role === "client") return []
      const rows = yield* repo.list(workspaceId).pipe(Effect.orDie)
      return rows.map((r) => resource(r, can(role, "webhooks.manage")))
    }).pipe(withSpan("Webhooks.list"), policyRequire("webhooks.list"))

    const create = (body: CreateWebhookBody) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const fields = yield* checkFields(workspaceId, body)
        const secret = newWebhookSecret()
        const id = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const current = yield* repo.countForCreate(workspaceId).pipe(Effect.orDie)
              if (Option.isNone(current)) return yield* Effect.fail(Errors.invalidApiKey())
              if (current.value.count >= webhookLimits[current.value.plan]) {
                const { message, fix } = webhookLimitMessage(current.value.plan)
                return yield* Effect.fail(Errors.planLimit(message, fix))
              }
              return yield* repo.insert(workspaceId, fields, encryptSecret(secretKey, secret)).pipe(Effect.orDie)
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
        return resource(yield* found(workspaceId, id), true)
      }).pipe(withSpan("Webhooks.create"), policyRequire("webhooks.manage"))

    const update = (id: string, body: UpdateWebhookBody) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const current = yield* found(workspaceId, id)
        const fields = yield* checkFields(workspaceId, {
          name: body.name ?? current.name,
          url: body.url ?? current.url,
          events: body.events ?? current.events,
          channelIds: body.channelIds ?? current.channelIds,
          active: body.active ?? current.active
        })
        yield* repo.update(workspaceId, id, fields).pipe(Effect.orDie)
        return resource(yield* found(workspaceId, id), true)
      }).pipe(withSpan("Webhooks.update"), policyRequire("webhooks.manage"))

    /** Deletes the webhook; its waiting retries stop with it. */
    const remove = (id: string) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const deleted = yield* repo.remove(workspaceId, id).pipe(Effect.orDie)
        if (!deleted) return yield* Effect.fail(Errors.webhookNotFound())
        return { success: true as const }
      }).pipe(withSpan("Webhooks.remove"), policyRequire("webhooks.manage"))

    /** A new secret; attempts read the secret when they are sent, so waiting retries use the new one. */
    const rotateSecret = (id: string) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const changed = yield* repo.setSecret(workspaceId, id, encryptSecret(secretKey, newWebhookSecret())).pipe(Effect.orDie)
        if (!changed) return yield* Effect.fail(Errors.webhookNotFound())
        return resource(yield* found(workspaceId, id), true)
      }).pipe(withSpan("Webhooks.rotateSecret"), policyRequire("webhooks.manage"))

    /** The last 50 attempts, newest first. */
    const deliveries = (id: string) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        yield* found(workspaceId, id)
        return (yield* store.log(id).pipe(Effect.orDie)).map(deliveryResource)
      }).pipe(withSpan("Webhooks.deliveries"), policyRequire("webhooks.manage"))

    /**
     * Send Test: event `test` with the fixed message, one attempt made now (also to a webhook
     * switched off: the owner is checking it), answered with its log entry.
     */
    const sendTest = (id: string) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        yield* found(workspaceId, id)
        const now = new Date()
        const claimed = yield* store
          .insertClaimed(
            {
              workspaceId,
              webhookId: id,
              eventId: null,
              event: TEST_EVENT,
              data: JSON.stringify({ message: TEST_MESSAGE }),
              eventCreatedAt: now,
              maxAttempts: 1
            },
            leaseMsOf(settings)
          )
          .pipe(Effect.orDie)
        if (claimed === undefined) return yield* Effect.fail(Errors.webhookNotFound())
        const result = yield* runAttempt({ ...claimed, active: true, rank: 1 }, { store, outbound, secretKey, settings }).pipe(Effect.orDie)
        if (result === undefined) return yield* Effect.fail(Errors.webhookNotFound())
        return {
          id: result.id,
          deliveryId: claimed.id,
          createdAt: result.sentAt.toISOString(),
          event: TEST_EVENT,
          status: result.status,
          error: result.error,
          attempt: 1,
          ok: result.ok
        }
      }).pipe(withSpan("Webhooks.sendTest"), policyRequire("webhooks.manage"))

    /**
     * Sends one delivery of an event again (same `webhook-id`, a new signature), for one
     * more attempt made by the dispatcher. 404 for a delivery the webhook does not have; a
     * delivery still pending keeps its own schedule.
     */
    const redeliver = (id: string, deliveryId: string) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        yield* found(workspaceId, id)
        if (!isUuid(deliveryId)) return yield* Effect.fail(Errors.deliveryNotFound())
        const state = yield* store.hasDelivery(id, deliveryId).pipe(Effect.orDie)
        if (state === null) return yield* Effect.fail(Errors.deliveryNotFound())
        const queued = state === "pending" ? false : yield* store.redeliver(id, deliveryId).pipe(Effect.orDie)
        return { deliveryId, queued: queued || state === "pending" }
      }).pipe(withSpan("Webhooks.redeliver"), policyRequire("webhooks.manage"))

    /**
     * Sends again every event after `after` that the webhook receives as it is set now
     * (its events and channels), each with the `webhook-id` it had; at most
     * REPLAY_MAX_EVENTS per call (`more` says whether to call again from `cursor`).
     */
    const replay = (id: string, body: ReplayBody) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const webhook = yield* found(workspaceId, id)
        const after = parseAfter(body.after)
        if (Either.isLeft(after)) return yield* Effect.fail(Errors.badRequest(after.left.message, after.left.fix))
        const rows = yield* eventLog.after(workspaceId, after.right, REPLAY_MAX_EVENTS + 1).pipe(Effect.orDie)
        const page = rows.slice(0, REPLAY_MAX_EVENTS)
        const matching = yield* Effect.filter(page, (row) =>
          decodeMessage({ id: row.id, workspaceId, createdAt: row.createdAt.toISOString(), event: row.event, data: row.data }).pipe(
            Effect.map((message) => receives(webhook, message.event, channelsOf(message))),
            // an event this version cannot read is not sent
            Effect.orElseSucceed(() => false)
          )
        )
        const queued = yield* store
          .replay({
            workspaceId,
            webhookId: id,
            events: matching.map((row) => ({ eventId: row.id, event: row.event, data: row.dataText, createdAt: row.createdAt }))
          })
          .pipe(Effect.orDie)
        const last = page[page.length - 1]
        return { queued, cursor: String(last === undefined ? after.right : last.sequence), more: rows.length > REPLAY_MAX_EVENTS }
      }).pipe(withSpan("Webhooks.replay"), policyRequire("webhooks.manage"))

    return { list, create, update, remove, rotateSecret, deliveries, sendTest, redeliver, replay }
  }),
  dependencies: [Layer.orDie(KeptAliveOutboundHttpLive)]
}) {}
