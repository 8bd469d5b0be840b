import type { Role } from "./roles.js"

/**
 * Managing members on the members page (owners and admins: domain/policy.ts
 * `members.manage`). Where the spec is silent: the owner stays the owner (one per
 * workspace) and cannot be paused, and nobody changes or pauses themselves, so a
 * workspace never locks out the people who manage it.
 */

/** The roles a member can be given on the members page (never a second owner). */
export const assignableRoles: ReadonlyArray<Role> = ["admin", "editor", "client"]

export const memberChangeProblem = (actorUserId: string, target: { readonly userId: string; readonly role: Role }): string | null => {
  if (target.role === "owner") return "The owner's role and access cannot be changed."
  if (target.userId === actorUserId) return "You cannot change your own role or pause yourself. Ask another owner or admin."
  return null
}
