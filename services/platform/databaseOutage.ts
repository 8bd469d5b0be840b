import { Cause, Data, Predicate } from "effect"

/**
 * Postgres gone away or not taking work for a moment (a restart, a switch-over to another
 * primary, a network cut), as opposed to a statement it refused. A request that met one is
 * answered 503 with Retry-After instead of 500 (services/gateway/errorResponse.ts), since
 * sending it again a few seconds later (with its Idempotency-Key) is the right thing to do.
 */

/**
 * SQLSTATEs of the server itself, not of the statement: 57P01 admin_shutdown (a fast or
 * smart stop ended the session), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting
 * or stopping), 25006 read_only_sql_transaction (a write reached a server that is a standby
 * now, after a switch-over), and the whole class 08 (connection exceptions).
 */
const OUTAGE_STATES: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03", "25006"])

/** What Node says when the TCP connection could not be made or was cut. */
const SOCKET_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"])

/** What pg (client and pool) says, without a code, when a connection ended or could not be made in time. */
const PG_MESSAGES: ReadonlyArray<string> = [
  "Connection terminated unexpectedly",
  "Connection terminated due to connection timeout",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable"
]

const codeOf = (u: unknown): string | undefined => (Predicate.hasProperty(u, "code") && typeof u.code === "string" ? u.code : undefined)

/**
 * Whether `u` (an SqlError, a pg error, a Node socket error, or the DatabaseOutage defect an
 * actor host sends back) says Postgres could not be reached. Follows `cause` links (SqlError
 * keeps pg's error there) and the `errors` of an AggregateError (one per address tried).
 */
export const isDatabaseOutage = (u: unknown, depth = 0): boolean => {
  if (depth > 6 || !Predicate.isObject(u)) return false
  if (u instanceof DatabaseOutage || (u instanceof Error && u.name === DATABASE_OUTAGE)) return true
  const code = codeOf(u)
  if (code !== undefined && (OUTAGE_STATES.has(code) || SOCKET_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true
  if (u instanceof Error && PG_MESSAGES.some((m) => u.message.includes(m))) return true
  if (Predicate.hasProperty(u, "errors") && Array.isArray(u.errors) && u.errors.some((e: unknown) => isDatabaseOutage(e, depth + 1))) return true
  return Predicate.hasProperty(u, "cause") && isDatabaseOutage(u.cause, depth + 1)
}

/** Whether a failed effect's cause holds an outage (as a failure or as a defect). */
export const causeIsDatabaseOutage = (cause: Cause.Cause<unknown>): boolean =>
  Cause.failures(cause).pipe((failures) => [...failures].some((e) => isDatabaseOutage(e))) ||
  Cause.defects(cause).pipe((defects) => [...defects].some((d) => isDatabaseOutage(d)))

const DATABASE_OUTAGE = "DatabaseOutage"

/**
 * The defect an actor host answers with when its command met an outage: a serialized Exit
 * keeps only a defect's name and message (Schema.Defect), so the gateway knows it by name.
 */
export class DatabaseOutage extends Data.TaggedError(DATABASE_OUTAGE)<{ readonly message: string }> {}

/** The defect of an actor's answer, already encoded as Schema.Defect encodes an Error. */
export const encodedDatabaseOutage = (message: string) => ({ name: DATABASE_OUTAGE, message })
