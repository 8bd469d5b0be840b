import type { WorkspaceId } from "./ids.js"

/** Roles of a person in a workspace. The workspace API key acts as an admin. */
export type Role = "owner" | "admin" | "editor" | "client"

export const roles: ReadonlyArray<Role> = ["owner", "admin", "editor", "client"]

export const isRole = (s: string): s is Role => (roles as ReadonlyArray<string>).includes(s)

/** Token kinds by prefix (spec: Authentication). */
export const tokenKinds = [
  { prefix: "svc_live_", kind: "live" },
  { prefix: "svc_oat_", kind: "oat" },
  { prefix: "svc_cli_", kind: "cli" }
] as const

export type TokenKind = (typeof tokenKinds)[number]["kind"]

/** The token without an optional `Bearer ` prefix (spec: "removed if present"). */
export const stripBearer = (header: string): string =>
  header
    .trim()
    .replace(/^Bearer(\s+|$)/i, "")
    .trim()

export const tokenKindOf = (token: string): TokenKind | null => tokenKinds.find((k) => token.startsWith(k.prefix))?.kind ?? null

/** How a principal came in: a token kind, the share page's unguessable link, or a signed-in person's session (app pages). */
export type PrincipalKind = TokenKind | "share" | "session"

/** Who is calling, as the gateway resolved it from the Authorization header (or a share link). */
export interface Principal {
  readonly workspaceId: WorkspaceId
  readonly userId: string | null
  readonly role: Role
  readonly tokenKind: PrincipalKind
  /** Shown in post history: `API` for the workspace key, else the person's email. */
  readonly actor: string
}
