import { SqlError } from "@effect/sql"
import { OpenApi } from "@effect/platform"
import { Cause, Effect, Schema } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { Errors, errorBody } from "../../domain/errors.js"
import { PublicApi } from "../../protocol/http/api.js"
import { statusOf } from "../../protocol/http/errors.js"
import { oauthError } from "../../protocol/oauth/errors.js"
import { causeToResponse, toApiError } from "../../services/gateway/errorResponse.js"
import { causeIsDatabaseOutage, DatabaseOutage, encodedDatabaseOutage, isDatabaseOutage } from "../../services/platform/databaseOutage.js"
import { NoAnswer, NoOwner } from "../../services/sharding/actorRequests.js"

/** A pg error as the server sends it (DatabaseError carries the SQLSTATE in `code`). */
const pgError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, "error"), { code })
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code })
const sqlError = (cause: unknown) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })

describe("Postgres out of reach, told apart from a refused statement", () => {
  it.each([
    ["57P01 admin_shutdown (a fast stop ended the session)", pgError("57P01", "terminating connection due to administrator command")],
    ["57P02 crash_shutdown", pgError("57P02", "terminating connection because of crash of another server process")],
    ["57P03 cannot_connect_now (starting or stopping)", pgError("57P03", "the database system is shutting down")],
    [
      "25006 read-only transaction (a write reached a standby after a switch-over)",
      pgError("25006", "cannot execute INSERT in a read-only transaction")
    ],
    ["08006 connection failure", pgError("08006", "connection failure")],
    ["08001 cannot establish", pgError("08001", "could not connect")],
    ["an SqlError around ECONNREFUSED", sqlError(socketError("ECONNREFUSED"))],
    ["an SqlError around ECONNRESET", sqlError(socketError("ECONNRESET"))],
    ["pg: connection terminated", new Error("Connection terminated unexpectedly")],
    ["pg-pool: connect timeout", new Error("timeout exceeded when trying to connect")],
    ["an SqlError around pg's connection timeout", sqlError(new Error("Connection terminated due to connection timeout"))],
    ["an SqlError around 57P01", sqlError(pgError("57P01", "terminating connection due to administrator command"))],
    ["an AggregateError of every address tried", sqlError(new AggregateError([socketError("ECONNREFUSED"), socketError("ECONNREFUSED")], "x"))],
    ["the defect an actor host answers with", new DatabaseOutage({ message: "x" })]
  ])("%s is an outage", (_name, error) => {
    expect(isDatabaseOutage(error)).toBe(true)
  })

  it.each([
    ["23505 unique violation", sqlError(pgError("23505", "duplicate key value violates unique constraint"))],
    ["40001 serialization failure", sqlError(pgError("40001", "could not serialize access"))],
    ["55P03 lock not available", sqlError(pgError("55P03", "canceling statement due to lock timeout"))],
    ["a row that does not decode", new Error("Expected string, actual null")],
    ["a socket error of an outbound call (no database failure around it)", socketError("ECONNREFUSED")],
    ["a Redis error", Object.assign(new Error("Connection is closed."), { code: "ECONNRESET" })],
    ["a string", "ECONNREFUSED"],
    ["nothing", undefined]
  ])("%s is not", (_name, error) => {
    expect(isDatabaseOutage(error)).toBe(false)
  })

  it("the actor's defect keeps its name through a serialized Exit, and the gateway still knows it", () => {
    const encoded = Schema.encodeSync(Schema.Defect)(new DatabaseOutage({ message: "m" }))
    expect(encoded).toEqual(encodedDatabaseOutage("m"))
    const decoded = Schema.decodeUnknownSync(Schema.Defect)(encoded)
    expect(decoded).toBeInstanceOf(Error)
    expect(isDatabaseOutage(decoded)).toBe(true)
    expect(isDatabaseOutage(Schema.decodeUnknownSync(Schema.Defect)({ name: "Error", message: "m" }))).toBe(false)
  })

  it("found in a cause as a failure or as a defect", () => {
    expect(causeIsDatabaseOutage(Cause.fail(sqlError(socketError("ECONNREFUSED"))))).toBe(true)
    expect(causeIsDatabaseOutage(Cause.die(sqlError(pgError("57P03", "starting up"))))).toBe(true)
    expect(causeIsDatabaseOutage(Cause.die(new Error("boom")))).toBe(false)
  })
})

describe("the REST answer: 503 with Retry-After, other failures unchanged", () => {
  const answer = (cause: Cause.Cause<unknown>) =>
    Effect.runPromise(causeToResponse(cause, "support@example.com")).then((response) => ({
      status: response.status,
      retryAfter: response.headers["retry-after"],
      body: response.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(response.body.body)) : undefined
    }))

  it("a database defect is 503 with Retry-After and the spec's body (error, msg, fix, code)", async () => {
    const got = await answer(Cause.die(sqlError(pgError("57P01", "terminating connection due to administrator command"))))
    expect(got.status).toBe(503)
    expect(got.retryAfter).toBe("5")
    expect(got.body).toEqual(errorBody(Errors.databaseUnavailable(5)))
    expect(got.body.fix).toMatch(/^The database is briefly unavailable; retry after 5 seconds/)
    expect(got.body.msg).toBe(got.body.error)
  })

  it("an SqlError failure (not a defect) is 503 too", async () => {
    expect((await answer(Cause.fail(sqlError(socketError("ECONNREFUSED"))))).status).toBe(503)
  })

  it("no actor answered within the client's bound: 503 with Retry-After", async () => {
    expect(toApiError(new NoAnswer())?._tag).toBe("ServiceUnavailable")
    const got = await answer(Cause.die(new NoOwner()))
    expect(got.status).toBe(503)
    expect(got.retryAfter).toBe("5")
  })

  it("any other defect stays 500, without Retry-After", async () => {
    const got = await answer(Cause.die(sqlError(pgError("23505", "duplicate key"))))
    expect(got.status).toBe(500)
    expect(got.retryAfter).toBeUndefined()
  })

  it("the case's status on every surface: REST 503, OAuth temporarily_unavailable", () => {
    expect(statusOf(Errors.databaseUnavailable(5))).toBe(503)
    expect(oauthError(Errors.databaseUnavailable(5))).toMatchObject({ status: 503, body: { error: "temporarily_unavailable" } })
  })
})

describe("the OpenAPI document", () => {
  const Responses = Schema.Record({
    key: Schema.String,
    value: Schema.Struct({
      headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Struct({ required: Schema.optional(Schema.Boolean) }) }))
    })
  })
  const Operation = Schema.optional(Schema.Struct({ responses: Responses }))
  const Document = Schema.Struct({
    paths: Schema.Record({
      key: Schema.String,
      value: Schema.Struct({ get: Operation, post: Operation, put: Operation, patch: Operation, delete: Operation })
    })
  })

  it("every operation may answer 503, with a required Retry-After header", () => {
    const { paths } = Schema.decodeUnknownSync(Document)(OpenApi.fromApi(PublicApi))
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) => (op === undefined ? [] : [[`${method} ${path}`, op] as const]))
    )
    expect(operations.length).toBeGreaterThan(20)
    const without = operations.filter(([, op]) => op.responses["503"]?.headers?.["Retry-After"]?.required !== true).map(([name]) => name)
    expect(without).toEqual([])
  })
})
