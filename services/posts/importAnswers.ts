import { errorBody, type ApiError } from "../../domain/errors.js"
import type { ImportRowAnswer as ImportRowAnswerSchema } from "../../protocol/http/postsBulk.js"

/**
 * One row's answer of POST /posts/import, as the API answers it and the actor (ImportPosts)
 * sends it: saved (its group and channel posts), valid (a dry run), or refused with the body
 * POST /posts would answer.
 */
export type ImportRowAnswer = typeof ImportRowAnswerSchema.Type

export const refusedRow = (row: number, e: ApiError): ImportRowAnswer => ({ row, status: "refused", ...errorBody(e) })

/** A saved row from the answer POST /posts gives (or kept for its key): the group and one post id per channel. */
export const savedRow = (row: number, body: unknown): ImportRowAnswer => {
  const rows = Array.isArray(body) ? body : []
  const postIds = rows.flatMap((r: unknown) =>
    typeof r === "object" && r !== null && "postId" in r && typeof r.postId === "string" ? [r.postId] : []
  )
  const first: unknown = rows[0]
  const group = typeof first === "object" && first !== null && "group" in first && typeof first.group === "string" ? first.group : ""
  return { row, status: "saved", group, postIds }
}
