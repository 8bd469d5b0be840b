import { Effect, Layer } from "effect"

export const WebhooksLive = Layer.scopedDiscard(Effect.logInfo("webhook dispatcher started"))
