import { Data, Effect, type Scope } from "effect"
import { createInbox, Events, type MsgHdrs, type Msg, type NatsConnection } from "nats"
import { ReleasingMap } from "../platform/releasingMap.js"

/** Nobody took the command, or its host said it no longer owns the shard: nothing ran. */
export class NoOwner extends Data.TaggedError("NoOwner") {}
/** The command was taken but not answered in time (its host may have died or paused). */
export class NoAnswer extends Data.TaggedError("NoAnswer") {}

/** An answer as the client reads it (a NATS message is one). */
export interface ActorAnswer {
  readonly string: () => string
}

/** Request/reply to the host serving a subject: on NATS (makeActorRequests) or in memory (shardBus.ts). */
export interface ActorRequests {
  readonly request: (
    subject: string,
    payload: string,
    headers: MsgHdrs | undefined,
    timeoutMs: number
  ) => Effect.Effect<ActorAnswer, NoOwner | NoAnswer>
  /** Requests sent and not answered, timed out or given up yet. */
  readonly waiting: () => number
}

/**
 * NATS request/reply for the gateway's commands, on one subscription to an inbox of this
 * connection: what `connection.request` does, without what it costs on every request
 * (two promises raced, a timer promise, and a NatsError built with its stack to reject a
 * promise nobody reads once the answer came: together a few percent of the gateway's CPU
 * on POST /posts). An answer arrives as a message to `<inbox>.<token>`; the server's
 * "no responders" status (an empty message with code 503) means nobody took the command.
 * A request answered by nobody within `timeoutMs` is NoAnswer; a reconnect re-subscribes
 * the inbox, and requests whose answers were lost meanwhile end in NoAnswer.
 */
export const makeActorRequests = (connection: NatsConnection): Effect.Effect<ActorRequests, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const prefix = `${createInbox()}.`
      // a ReleasingMap: an entry per request, for a few milliseconds (see releasingMap.ts)
      const waiting = new ReleasingMap<string, Waiting>()
      let next = 0
      const subscription = connection.subscribe(`${prefix}*`, {
        callback: (error, msg) => {
          if (error !== null) return
          const token = msg.subject.slice(prefix.length)
          const answered = waiting.get(token)
          if (answered === undefined) return // answered too late: the request was given up
          waiting.delete(token)
          answered.answer(msg)
        }
      })
      // answers sent while the connection was down are lost: the requests waiting then are
      // sent again at once (same command id) instead of after their attempt's time
      const watch = { stopped: false }
      void (async () => {
        for await (const status of connection.status()) {
          if (watch.stopped) break
          if (status.type === Events.Reconnect) for (const request of [...waiting.values()]) request.lost()
        }
      })()
      const requests: ActorRequests = {
        request: (subject, payload, headers, timeoutMs) =>
          Effect.async<Msg, NoOwner | NoAnswer>((resume) => {
            const token = (next++).toString(36)
            const lost = () => {
              clearTimeout(timer)
              waiting.delete(token)
              resume(Effect.fail(new NoAnswer()))
            }
            const timer = setTimeout(lost, timeoutMs)
            waiting.set(token, {
              answer: (msg) => {
                clearTimeout(timer)
                resume(msg.data.length === 0 && msg.headers?.code === 503 ? Effect.fail(new NoOwner()) : Effect.succeed(msg))
              },
              lost
            })
            try {
              connection.publish(subject, payload, { reply: prefix + token, ...(headers === undefined ? {} : { headers }) })
            } catch (e) {
              // a closed or draining connection: nothing was sent
              clearTimeout(timer)
              waiting.delete(token)
              resume(Effect.die(e))
            }
            return Effect.sync(() => {
              clearTimeout(timer)
              waiting.delete(token)
            })
          }),
        waiting: () => waiting.size
      }
      return { requests, subscription, watch }
    }),
    ({ subscription, watch }) =>
      Effect.sync(() => {
        watch.stopped = true
        subscription.unsubscribe()
      })
  ).pipe(Effect.map(({ requests }) => requests))

/** A request waiting for its answer: the answer, or its loss (no answer can come any more). */
interface Waiting {
  readonly answer: (msg: Msg) => void
  readonly lost: () => void
}
