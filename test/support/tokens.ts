import pg from "pg"
import { newToken, tokenHash } from "../../services/platform/secrets.js"
import type { TestWorld } from "./system.js"

/** SQL straight on the world's database, for arranging what no endpoint does yet. */
export const withDb = async <A>(world: TestWorld, f: (c: pg.Client) => Promise<A>): Promise<A> => {
  const c = new pg.Client({ connectionString: world.databaseUrl })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

/** A person's OAuth (`svc_oat_`) or CLI (`svc_cli_`) token, as the OAuth flows will issue them. */
export const issueUserToken = (world: TestWorld, workspaceId: string, userId: string, kind: "oat" | "cli" = "oat") =>
  withDb(world, async (c) => {
    const token = newToken(`svc_${kind}_`)
    await c.query("INSERT INTO api_tokens (id, workspace_id, user_id, kind, token_hash, label) VALUES ($1, $2, $3, $4, $5, 'test')", [
      crypto.randomUUID(),
      workspaceId,
      userId,
      kind,
      tokenHash(token)
    ])
    return token
  })
