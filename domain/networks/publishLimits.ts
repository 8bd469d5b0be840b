/**
 * How hard the publisher may press on a network (docs/publishing.md, "Limits"). Each
 * publisher process keeps these limits itself; a network's 429 pauses the channel for every
 * process (its Retry-After is stored with the channel).
 */
export interface PublishLimits {
  /** Calls (publish or search) to the network in flight at once in one publisher process. */
  readonly concurrency: number
  /** Calls in flight at once for one channel (one account on the network) in one process. */
  readonly channelConcurrency: number
  /** Calls started per channel in any minute (0: no limit of ours; the network's 429 still holds). */
  readonly channelPerMinute: number
}

export const defaultPublishLimits: PublishLimits = { concurrency: 32, channelConcurrency: 4, channelPerMinute: 0 }

/** Where a network documents a tighter limit than the default. */
export const networkPublishLimits: Readonly<Record<string, Partial<PublishLimits>>> = {
  // Telegram bots: "no more than 20 messages per minute to the same group"
  telegram: { channelPerMinute: 20 },
  // Discord: 5 messages per 5 seconds per channel
  discord: { channelPerMinute: 60 }
}

/** The limits of a network: the defaults, the network's own, then the operator's overrides. */
export const publishLimitsOf = (network: string, overrides: Readonly<Record<string, Partial<PublishLimits>>> = {}): PublishLimits => ({
  ...defaultPublishLimits,
  ...overrides["default"],
  ...networkPublishLimits[network],
  ...overrides[network]
})

const MINUTE_MS = 60_000

/**
 * How long a call must wait before a per-minute window lets it start, given when the recent
 * calls started (0: it may start now).
 */
export const windowWaitMs = (startedAt: ReadonlyArray<number>, perMinute: number, now: number): number => {
  if (perMinute <= 0) return 0
  const inWindow = startedAt.filter((t) => t > now - MINUTE_MS).sort((a, b) => a - b)
  if (inWindow.length < perMinute) return 0
  // the call that leaves the window first makes room
  return inWindow[inWindow.length - perMinute]! + MINUTE_MS - now
}
