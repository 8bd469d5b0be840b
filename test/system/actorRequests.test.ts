import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { connect, createInbox } from "nats"
import { makeActorRequests, NoAnswer, NoOwner } from "../../services/sharding/actorRequests.js"
import { privateNats } from "../support/publishingProcesses.js"
import { urlsFromEnv } from "../support/servers.js"

/**
 * The gateway's request/reply to actor hosts (services/sharding/actorRequests.ts), on the
 * real NATS server: what the retry of actorClient.ts decides on. NoOwner means nothing ran
 * (ask again at once), NoAnswer that it may have run (ask again with the same command id).
 */
const natsConnection = Effect.acquireRelease(
  Effect.promise(() => connect({ servers: urlsFromEnv().natsUrl.split(",") })),
  (nc) => Effect.promise(() => nc.close())
)

describe("actor requests on the gateway's own inbox", () => {
  it.scopedLive("an answer comes back to the request that asked, each to its own", () =>
    Effect.gen(function* () {
      const nc = yield* natsConnection
      const subject = `test.actorRequests.${createInbox()}`
      nc.subscribe(subject, { callback: (_e, msg) => setTimeout(() => msg.respond(`re:${msg.string()}`), Number(msg.string()) % 7) })
      yield* Effect.promise(() => nc.flush())
      const requests = yield* makeActorRequests(nc)
      const answers = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => String(i)),
        (payload) => requests.request(subject, payload, undefined, 2_000).pipe(Effect.map((msg) => msg.string())),
        { concurrency: "unbounded" }
      )
      expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => `re:${i}`))
    })
  )

  it.scopedLive("nobody subscribed: NoOwner at once (the server's no-responders status), not after the timeout", () =>
    Effect.gen(function* () {
      const nc = yield* natsConnection
      const requests = yield* makeActorRequests(nc)
      const started = Date.now()
      const exit = yield* Effect.exit(requests.request(`test.actorRequests.${createInbox()}`, "x", undefined, 5_000))
      expect(exit).toEqual(Exit.fail(new NoOwner()))
      expect(Date.now() - started).toBeLessThan(4_000)
    })
  )

  it.scopedLive("taken but never answered: NoAnswer after the timeout; an answer that comes later is dropped", () =>
    Effect.gen(function* () {
      const nc = yield* natsConnection
      const subject = `test.actorRequests.${createInbox()}`
      const late: Array<() => void> = []
      nc.subscribe(subject, { callback: (_e, msg) => late.push(() => msg.respond(`late:${msg.string()}`)) })
      yield* Effect.promise(() => nc.flush())
      const requests = yield* makeActorRequests(nc)
      const exit = yield* Effect.exit(requests.request(subject, "slow", undefined, 300))
      expect(exit).toEqual(Exit.fail(new NoAnswer()))
      expect(requests.waiting()).toBe(0)
      // the late answer reaches the inbox and is ignored; the next request gets its own answer
      for (const answer of late.splice(0)) answer()
      nc.subscribe(`${subject}.next`, { callback: (_e, msg) => msg.respond("fresh") })
      yield* Effect.promise(() => nc.flush())
      const next = yield* requests.request(`${subject}.next`, "x", undefined, 2_000)
      expect(next.string()).toBe("fresh")
    })
  )

  it.scopedLive("a request given up (interrupted) leaves nothing waiting", () =>
    Effect.gen(function* () {
      const nc = yield* natsConnection
      const subject = `test.actorRequests.${createInbox()}`
      nc.subscribe(subject, { callback: () => undefined })
      yield* Effect.promise(() => nc.flush())
      const requests = yield* makeActorRequests(nc)
      const started = Date.now()
      const exit = yield* Effect.exit(requests.request(subject, "x", undefined, 10_000).pipe(Effect.timeout("200 millis")))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(requests.waiting()).toBe(0)
    })
  )

  it.scopedLive("the connection lost while a request waits: NoAnswer once it is back (its answer cannot come), not after the timeout", () =>
    Effect.gen(function* () {
      // a private server, killed and started again: the shared one is never touched
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => privateNats()),
        (s) => Effect.promise(() => s.stop())
      )
      const nc = yield* Effect.acquireRelease(
        Effect.promise(() => connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 })),
        (c) => Effect.promise(() => c.close())
      )
      const subject = `test.actorRequests.${createInbox()}`
      nc.subscribe(subject, { callback: () => undefined })
      yield* Effect.promise(() => nc.flush())
      const requests = yield* makeActorRequests(nc)
      const started = Date.now()
      const waiting = yield* Effect.fork(Effect.exit(requests.request(subject, "x", undefined, 60_000)))
      yield* Effect.promise(() => server.restart())
      const exit = yield* Fiber.join(waiting)
      expect(exit).toEqual(Exit.fail(new NoAnswer()))
      expect(Date.now() - started).toBeLessThan(30_000)
      expect(requests.waiting()).toBe(0)
    })
  )
})
