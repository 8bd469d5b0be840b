import { Effect, Either } from "effect"
import { Errors } from "../../domain/errors.js"
import { parseAfter, parseLimit } from "../../domain/eventLog.js"
import type { EventsPage } from "../../protocol/http/events.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { policyRequire } from "../platform/policy.js"
import { withSpan } from "../platform/tracing.js"
import { makeEventLogRepo } from "./eventLogRepo.js"

/**
 * The replayable event log (docs/webhooks.md, "The event log"): GET /public/v1/events and
 * the MCP tool list_events read the workspace's events after a cursor.
 */
export class EventLog extends Effect.Service<EventLog>()("webhooks/EventLog", {
  effect: Effect.gen(function* () {
    const repo = yield* makeEventLogRepo

    const list = (input: { readonly after: string | number | undefined; readonly limit: string | undefined }) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const after = parseAfter(input.after)
        if (Either.isLeft(after)) return yield* Effect.fail(Errors.badRequest(after.left.message, after.left.fix))
        const limit = parseLimit(input.limit)
        if (Either.isLeft(limit)) return yield* Effect.fail(Errors.badRequest(limit.left.message, limit.left.fix))
        // one more than asked tells whether more follow
        const rows = yield* repo.after(workspaceId, after.right, limit.right + 1).pipe(Effect.orDie)
        const page = rows.slice(0, limit.right)
        const last = page[page.length - 1]
        return {
          events: page.map((r) => ({ sequence: r.sequence, id: r.id, event: r.event, createdAt: r.createdAt.toISOString(), data: r.data })),
          cursor: String(last === undefined ? after.right : last.sequence),
          more: rows.length > limit.right
        } satisfies EventsPage
      }).pipe(withSpan("EventLog.list"), policyRequire("webhooks.manage"))

    return { list }
  })
}) {}
