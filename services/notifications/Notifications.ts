import { Effect } from "effect"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { policyRequire } from "../platform/policy.js"
import { NotificationsRepo, type NotificationRow } from "../repos/notificationsRepo.js"
import { withSpan } from "../platform/tracing.js"

/** Spec Limits rule 5: GET /notifications pages hold 50. */
export const NOTIFICATIONS_PER_PAGE = 50

/** GET /notifications item (spec: Resources → Notification); created_at in UTC. */
export const notificationResource = (n: NotificationRow) => ({
  id: n.id,
  type: n.type,
  title: n.title,
  body: n.body,
  link: n.link,
  created_at: n.createdAt.toISOString()
})

/** The workspace's notifications, newest first, a page at a time. */
export class Notifications extends Effect.Service<Notifications>()("notifications/Notifications", {
  effect: Effect.gen(function* () {
    const repo = yield* NotificationsRepo
    /** GET /notifications?page= (pages start at 1). */
    const list = (page: number) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const rows = yield* repo.page({ workspaceId, limit: NOTIFICATIONS_PER_PAGE, offset: (page - 1) * NOTIFICATIONS_PER_PAGE }).pipe(Effect.orDie)
        return { notifications: rows.map(notificationResource), page }
      }).pipe(withSpan("Notifications.list"), policyRequire("notifications.read"))
    return { list }
  }),
  dependencies: [NotificationsRepo.Live]
}) {}
