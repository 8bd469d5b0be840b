import { Cause, Data, Predicate } from "effect"
import pg from "pg"

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

/** A SQLSTATE of the server going away (a pg DatabaseError carries it in `code`). */
const outageState = (code: string | undefined) => code !== undefined && (OUTAGE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))

/** Inside a database failure: the connection could not be made, was cut, or the server went away. */
const connectionLost = (u: unknown, depth: number): boolean => {
  if (depth > 6 || !Predicate.isObject(u)) return false
  const code = codeOf(u)
  if (outageState(code) || (code !== undefined && SOCKET_CODES.has(code))) return true
  if (u instanceof Error && PG_MESSAGES.some((m) => u.message.includes(m))) return true
  if (Predicate.hasProperty(u, "errors") && Array.isArray(u.errors) && u.errors.some((e: unknown) => connectionLost(e, depth + 1))) return true
  return Predicate.hasProperty(u, "cause") && connectionLost(u.cause, depth + 1)
}

/**
 * Whether `u` says Postgres could not be reached: an SqlError whose cause (pg's error, or
 * Node's socket error, or an AggregateError with one per address tried) is one of the
 * above, a pg error with such a SQLSTATE or message, or the DatabaseOutage defect an actor
 * host sends back. A socket error outside a database failure (an outbound call, Redis) is
 * not one: those keep their own answers.
 */
export const isDatabaseOutage = (u: unknown): boolean => {
  if (!Predicate.isObject(u)) return false
  if (u instanceof DatabaseOutage || (u instanceof Error && u.name === DATABASE_OUTAGE)) return true
  if (Predicate.isTagged(u, "SqlError")) return connectionLost(u, 0)
  if (u instanceof pg.DatabaseError) return outageState(u.code)
  return u instanceof Error && PG_MESSAGES.some((m) => u.message.includes(m))
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
