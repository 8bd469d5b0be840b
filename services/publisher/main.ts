import { Effect, Layer } from "effect"

export const PublisherLive = Layer.scopedDiscard(Effect.logInfo("publisher started"))
