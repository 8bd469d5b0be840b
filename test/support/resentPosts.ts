import type { Answer, client } from "./http.js"
import { sleep } from "./wait.js"

/**
 * A stream of POST /posts with an Idempotency-Key each, as the Postgres fault tests send it
 * (postgresRestart, postgresSwitchover): every answer of a request is kept, so a test can
 * send a 503'd one again with its key and count what each request ended with.
 */

/** One POST /posts of the stream: its key, its body, and every answer it got. */
export interface Sent {
  readonly key: string
  readonly content: string
  readonly api: ReturnType<typeof client>
  readonly body: unknown
  readonly answers: Array<Answer | "no answer">
}

/** No request may hang: a client gives up after this (far above any bound of the service). */
export const CLIENT_TIMEOUT_MS = 20_000

export const send = async (s: Sent): Promise<Answer | "no answer"> => {
  const answer = await Promise.race([
    s.api.post("/public/v1/posts", s.body, { "idempotency-key": s.key }),
    sleep(CLIENT_TIMEOUT_MS).then(() => "no answer" as const)
  ]).catch((): "no answer" => "no answer")
  s.answers.push(answer)
  return answer
}
