import { Context, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../platform/config.js"
import { AUTH_CHANGED_CHANNEL, emptyQuery, listenForAuthChanges, type TokenRow } from "../repos/tokensRepo.js"

/**
 * The gateway's in-process cache of token hash → the stored token row, so an
 * authenticated request costs no database round trip. Only the row is kept: the rules
 * (billing grace ending after 7 days, …) are evaluated on every request with the time
 * of that request (authentication.ts principalOf).
 *
 * "Rotation and revocation take effect at once": every change to a table the lookup
 * reads notifies `auth_changed` when it commits (a trigger, migration 0012), every
 * gateway LISTENs on a connection of its own and drops its whole cache on each
 * notification. While that connection is down (not yet up, dropped, reconnecting) the
 * cache is neither read nor filled, and it is emptied again once LISTEN is back, so a
 * replica that may have missed a notification never answers from what it held before.
 * A cached row is used only after a fence on that connection (below), so a change that
 * committed before the request arrived has always been read: "at once" holds even when
 * the notification is slower than the client's next request.
 */
export interface TokenCacheShape {
  /** The row for `hash`: from the cache, else `load` (kept when no invalidation came meanwhile). */
  readonly lookup: <E, R>(hash: Buffer, load: Effect.Effect<Option.Option<TokenRow>, E, R>) => Effect.Effect<Option.Option<TokenRow>, E, R>
}

export class TokenCache extends Context.Tag("TokenCache")<TokenCache, TokenCacheShape>() {}

/** Enough for every live token of a large deployment; above it the oldest entries go first. */
const MAX_ENTRIES = 100_000
const RECONNECT_DELAY_MS = 1_000
const FENCE_TIMEOUT_MS = 2_000

export const makeTokenCache = (databaseUrl: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const entries = new Map<string, TokenRow>()
      // raised on every invalidation: a lookup that started before one does not keep its row
      let generation = 0
      let listening = false
      let closed = false
      let client: pg.Client | null = null
      let retry: NodeJS.Timeout | null = null

      // requests waiting for a fence not sent yet, and whether one is on its way
      let waiting: Array<(fenced: boolean) => void> = []
      let fencing = false

      /**
       * Calls `done(true)` once every notification committed before this call has been
       * read: Postgres signals the listening backend during the commit, before the writer
       * hears "committed", and that backend sends pending notifications before it answers
       * a query. So an empty query sent on the LISTEN connection after the request
       * arrived answers only after any invalidation its client could have caused.
       * Requests arriving meanwhile share the next fence: one round trip on this idle
       * connection per batch of requests, never a token lookup. `done(false)`: no fence
       * (the connection is down), so the caller reads Postgres.
       */
      const fence = (done: (fenced: boolean) => void) => {
        waiting.push(done)
        if (!fencing) sendFence()
      }
      const sendFence = () => {
        const current = client
        const batch = waiting
        waiting = []
        if (current === null || !listening) {
          for (const done of batch) done(false)
          return
        }
        fencing = true
        let settled = false
        const settle = (fenced: boolean) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          fencing = false
          for (const done of batch) done(fenced && listening && client === current)
          if (waiting.length > 0) sendFence()
        }
        // a connection that stops answering is treated as lost: requests read Postgres meanwhile
        const timer = setTimeout(() => {
          settle(false)
          lost(current)
        }, FENCE_TIMEOUT_MS)
        emptyQuery(current).then(
          () => settle(true),
          () => settle(false)
        )
      }

      const invalidate = () => {
        generation++
        entries.clear()
      }

      const lost = (failed: pg.Client) => {
        if (client !== failed) return
        client = null
        listening = false
        invalidate()
        failed.removeAllListeners()
        failed.on("error", () => undefined)
        failed.end().catch(() => undefined)
        if (!closed) retry = setTimeout(listen, RECONNECT_DELAY_MS)
      }

      const listen = () => {
        retry = null
        // a connect that hangs (a switch-over) is given up and tried again, like a refused one
        const next = new pg.Client({
          connectionString: databaseUrl,
          application_name: "post-scheduler-auth-listener",
          connectionTimeoutMillis: 5_000,
          keepAlive: true
        })
        client = next
        next.on("notification", (n) => {
          if (n.channel === AUTH_CHANGED_CHANNEL) invalidate()
        })
        next.on("error", () => lost(next))
        next.on("end", () => lost(next))
        next
          .connect()
          .then(() => listenForAuthChanges(next))
          .then(() => {
            if (client !== next) return
            // whatever changed while no notification could arrive is forgotten
            invalidate()
            listening = true
          })
          .catch(() => lost(next))
      }
      listen()

      const shape: TokenCacheShape = {
        lookup: <E, R>(hash: Buffer, load: Effect.Effect<Option.Option<TokenRow>, E, R>) =>
          Effect.suspend(() => {
            if (!listening) return load
            const key = hash.toString("base64")
            if (entries.has(key)) {
              return Effect.async<Option.Option<TokenRow>, E, R>((resume) => {
                fence((fenced) => {
                  const hit = fenced ? entries.get(key) : undefined
                  resume(hit === undefined ? load : Effect.succeed(Option.some(hit)))
                })
              })
            }
            const started = generation
            return Effect.tap(load, (row) =>
              Effect.sync(() => {
                if (Option.isNone(row) || !listening || started !== generation) return
                if (entries.size >= MAX_ENTRIES) {
                  const oldest = entries.keys().next()
                  if (oldest.done !== true) entries.delete(oldest.value)
                }
                entries.set(key, row.value)
              })
            )
          })
      }
      const close = () => {
        closed = true
        listening = false
        if (retry !== null) clearTimeout(retry)
        const current = client
        client = null
        return current === null ? Promise.resolve() : current.end().catch(() => undefined)
      }
      return { shape, close }
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ shape }) => shape))

/** The cache of this gateway, listening on DATABASE_URL. */
export const TokenCacheLive = Layer.scoped(
  TokenCache,
  Effect.flatMap(AppConfig, (config) => makeTokenCache(Redacted.value(config.databaseUrl)))
)
