import type { Role } from "./roles.js"

/**
 * What each role may do (spec: Authentication rule 4, Media, Webhook management), as one
 * table. The workspace API key acts as an admin. Where the spec is silent: a client
 * (an agency's customer) reads and reviews posts but does not write them or use the
 * media library; an editor does everything with posts and media but cannot remove
 * channels or manage webhooks.
 */
export const permissions = {
  "channels.read": ["owner", "admin", "editor", "client"],
  "channels.runTool": ["owner", "admin", "editor"],
  /** DELETE /integrations/{id}: "deleting a channel needs an owner or admin". */
  "channels.delete": ["owner", "admin"],
  /** GET /social/{integration}: adding or reconnecting a channel, like removing one. */
  "channels.connect": ["owner", "admin"],
  "posts.read": ["owner", "admin", "editor", "client"],
  /** Create, edit, move, change status or settings, delete. */
  "posts.write": ["owner", "admin", "editor"],
  /** Approve a post in review or ask for changes (the share page acts as the client). */
  "posts.review": ["owner", "admin", "client"],
  /** GET /media: clients get an empty list rather than a refusal (spec). */
  "media.browse": ["owner", "admin", "editor"],
  "media.upload": ["owner", "admin", "editor"],
  "webhooks.manage": ["owner", "admin"],
  /** GET /api/webhooks: owners and admins with secrets, editors without, clients an empty list (spec). */
  "webhooks.list": ["owner", "admin", "editor", "client"],
  /** GET /notifications: what happened to the workspace's posts and channels, for every member. */
  "notifications.read": ["owner", "admin", "editor", "client"],
  /** The members page: change a member's role, pause or resume a member (people in the app). */
  "members.manage": ["owner", "admin"],
  /** Approve an OAuth app or the command line on the Allow / device page: its token acts with the person's own role. */
  "apps.approve": ["owner", "admin", "editor", "client"]
} as const satisfies Record<string, ReadonlyArray<Role>>

export type Action = keyof typeof permissions

export const actions = Object.keys(permissions) as ReadonlyArray<Action>

export const can = (role: Role, action: Action): boolean => (permissions[action] as ReadonlyArray<Role>).includes(role)

declare const AuthorizedTypeId: unique symbol

/**
 * A requirement, in the type only, that the caller checked `Action` for the current
 * principal. Service methods add it (`policyRequire`); an edge removes it only by checking
 * (`authorize` in services/platform/policy.ts). An endpoint that forgets the check leaves
 * the requirement unmet, and its layer does not compile.
 */
export interface Authorized<A extends Action> {
  readonly [AuthorizedTypeId]: { readonly action: A }
}
