import { Effect, Fiber, Option } from "effect"
import { describe, expect, it } from "vitest"
import { defaultPublishLimits, publishLimitsOf, windowWaitMs } from "../../domain/networks/publishLimits.js"
import { MAX_WAITING_PER_NETWORK, makePublishLimiter, publishLimitsConfig, SLOT_RETRY_MS } from "../../services/publisher/publishLimiter.js"
import { ConfigProvider } from "effect"

const admit = (limiter: ReturnType<typeof makePublishLimiter>, network: string, channel: string) => Effect.runSync(limiter.admit(network, channel))

describe("publish limits: which apply", () => {
  it("defaults, then the network's documented limit, then the operator's overrides", () => {
    expect(publishLimitsOf("mastodon")).toEqual(defaultPublishLimits)
    expect(publishLimitsOf("telegram").channelPerMinute).toBe(20)
    expect(publishLimitsOf("telegram", { telegram: { channelPerMinute: 5 } }).channelPerMinute).toBe(5)
    expect(publishLimitsOf("x", { default: { concurrency: 3 } }).concurrency).toBe(3)
  })

  it("PUBLISH_LIMITS is read as JSON; anything else stops the start", () => {
    const read = (value: string) =>
      Effect.runSync(Effect.either(Effect.withConfigProvider(publishLimitsConfig, ConfigProvider.fromMap(new Map([["PUBLISH_LIMITS", value]])))))
    expect(read(`{"x":{"channelPerMinute":3}}`)).toMatchObject({ _tag: "Right", right: { x: { channelPerMinute: 3 } } })
    expect(read(`{"x":{"concurrency":0}}`)._tag).toBe("Left")
    expect(read("nope")._tag).toBe("Left")
  })
})

describe("publish limits: a per-minute window", () => {
  it("lets calls go while the last minute holds fewer than the limit", () => {
    expect(windowWaitMs([], 2, 1_000_000)).toBe(0)
    expect(windowWaitMs([999_000], 2, 1_000_000)).toBe(0)
    expect(windowWaitMs([1, 2, 3], 0, 1_000_000)).toBe(0)
  })
  it("else waits until the call that leaves the window first has left it", () => {
    expect(windowWaitMs([990_000, 995_000], 2, 1_000_000)).toBe(50_000)
    expect(windowWaitMs([900_000, 990_000, 995_000], 2, 1_000_000)).toBe(50_000)
  })
})

describe("publish limiter: slots per network and per channel", () => {
  it("a full channel turns its next job away with a short delay; another channel and another network still go", () => {
    const limiter = makePublishLimiter({ default: { channelConcurrency: 1, concurrency: 2 } })
    const first = admit(limiter, "mastodon", "a")
    expect(first._tag).toBe("Admitted")
    const turned = admit(limiter, "mastodon", "a")
    expect(turned._tag).toBe("Wait")
    if (turned._tag === "Wait") expect(turned.delayMs).toBeGreaterThanOrEqual(SLOT_RETRY_MS)
    expect(admit(limiter, "mastodon", "b")._tag).toBe("Admitted")
    // the network's two slots are taken: a third channel waits, another network does not
    expect(admit(limiter, "mastodon", "c")._tag).toBe("Wait")
    expect(admit(limiter, "bluesky", "d")._tag).toBe("Admitted")
    if (first._tag === "Admitted") {
      Effect.runSync(first.release)
      Effect.runSync(first.release) // giving a slot back twice frees it once
    }
    expect(admit(limiter, "mastodon", "a")._tag).toBe("Admitted")
    expect(admit(limiter, "mastodon", "c")._tag).toBe("Wait")
  })

  it("a channel over its per-minute limit waits until the window has room", () => {
    let now = 1_000_000
    const limiter = makePublishLimiter({ telegram: { channelPerMinute: 2, channelConcurrency: 10 } }, () => now)
    for (const _ of [1, 2]) {
      const a = admit(limiter, "telegram", "chat")
      expect(a._tag).toBe("Admitted")
      if (a._tag === "Admitted") Effect.runSync(a.release)
      now += 1000
    }
    const third = admit(limiter, "telegram", "chat")
    expect(third._tag).toBe("Wait")
    if (third._tag === "Wait") expect(third.delayMs).toBeGreaterThanOrEqual(58_000)
    expect(admit(limiter, "telegram", "other chat")._tag).toBe("Admitted")
    now += 60_000
    expect(admit(limiter, "telegram", "chat")._tag).toBe("Admitted")
  })
})

describe("publish limiter: jobs that wait their turn in the process", () => {
  it("a full network queues the next jobs, first come first served, each woken when a slot is given back", async () => {
    const limiter = makePublishLimiter({ default: { concurrency: 1, channelConcurrency: 4 } })
    const first = Effect.runSync(limiter.acquire("mastodon", "a"))
    expect(first._tag).toBe("Admitted")
    const order: Array<string> = []
    const waiters = ["b", "c"].map((channel) =>
      Effect.runPromise(
        limiter.acquire("mastodon", channel).pipe(
          Effect.tap(() => Effect.sync(() => order.push(channel))),
          Effect.flatMap((a) => (a._tag === "Admitted" ? a.release : Effect.void))
        )
      )
    )
    await new Promise((r) => setTimeout(r, 10))
    expect(limiter.waitingFor("mastodon")).toBe(2)
    expect(order).toEqual([])
    if (first._tag === "Admitted") Effect.runSync(first.release)
    await Promise.all(waiters)
    expect(order).toEqual(["b", "c"])
    expect(limiter.waitingFor("mastodon")).toBe(0)
  })

  it("a job whose channel is full lets a later job of a free channel go first; an interrupted wait leaves the queue", async () => {
    const limiter = makePublishLimiter({ default: { concurrency: 2, channelConcurrency: 1 } })
    const a = Effect.runSync(limiter.acquire("mastodon", "a"))
    const b = Effect.runSync(limiter.acquire("mastodon", "b"))
    expect([a._tag, b._tag]).toEqual(["Admitted", "Admitted"])
    const fiber = Effect.runFork(limiter.acquire("mastodon", "a"))
    const other = Effect.runPromise(limiter.acquire("mastodon", "c"))
    await new Promise((r) => setTimeout(r, 10))
    expect(limiter.waitingFor("mastodon")).toBe(2)
    // b's slot frees the network, not channel a: the job for c goes
    if (b._tag === "Admitted") Effect.runSync(b.release)
    expect((await other)._tag).toBe("Admitted")
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(limiter.waitingFor("mastodon")).toBe(0)
  })
  it("past MAX_WAITING_PER_NETWORK jobs waiting for a network, a new job is sent back before it opens anything; other networks still have room", async () => {
    const limiter = makePublishLimiter({ default: { concurrency: 1, channelConcurrency: 1 } })
    const first = Effect.runSync(limiter.acquire("mastodon", "a"))
    expect(first._tag).toBe("Admitted")
    expect(Option.isNone(limiter.queueFull("mastodon"))).toBe(true)
    const fibers = Array.from({ length: MAX_WAITING_PER_NETWORK }, (_, n) => Effect.runFork(limiter.acquire("mastodon", `c${n}`)))
    await new Promise((r) => setTimeout(r, 10))
    expect(limiter.waitingFor("mastodon")).toBe(MAX_WAITING_PER_NETWORK)
    const full = limiter.queueFull("mastodon")
    expect(Option.isSome(full) && full.value >= 1000).toBe(true)
    expect(Option.isNone(limiter.queueFull("bluesky"))).toBe(true)
    // a job already past the check still queues (the cap is checked before the attempt opens, not here)
    const late = Effect.runFork(limiter.acquire("mastodon", "late"))
    await new Promise((r) => setTimeout(r, 10))
    expect(limiter.waitingFor("mastodon")).toBe(MAX_WAITING_PER_NETWORK + 1)
    await Effect.runPromise(Fiber.interruptAll([...fibers, late]))
    expect(limiter.waitingFor("mastodon")).toBe(0)
    expect(Option.isNone(limiter.queueFull("mastodon"))).toBe(true)
  })
})
