import { Effect, Layer } from "effect"

/**
 * The webhook dispatcher's place in the process. Delivery (EVENTS → matching webhooks,
 * signed, retried, logged) is the webhooks work; until it lands, events wait in the
 * EVENTS stream (kept 7 days), so none is lost by starting this service later.
 */
export const WebhooksLive = Layer.scopedDiscard(Effect.logInfo("webhook dispatcher started"))
