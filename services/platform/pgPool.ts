import { Context } from "effect"
import type pg from "pg"

/**
 * The process's Postgres pool itself (services/platform/db.ts), the one under its
 * SqlClient: for work that needs a connection of its own, as the group commit of new
 * posts (services/posts/createPostRepo.ts), which keeps a function in its sessions.
 */
export class PgPool extends Context.Tag("platform/PgPool")<PgPool, pg.Pool>() {}
