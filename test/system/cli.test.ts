import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decode, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * The operators' CLI, run as a user runs it: `npx tsx services/cli.ts <args>`.
 * JSON on stdout; bad arguments print a message on stderr and exit 2.
 */

const run = promisify(execFile)
const CALL_TIMEOUT_MS = 30_000
// two calls at most per test; the machine may be busy
const TEST_TIMEOUT_MS = 2 * CALL_TIMEOUT_MS + 10_000

let world: TestWorld
let sys: RunningServices

interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const cli = async (...args: ReadonlyArray<string>): Promise<CliResult> => {
  try {
    const { stdout, stderr } = await run("npx", ["tsx", "services/cli.ts", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...world.env },
      timeout: CALL_TIMEOUT_MS
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const failed = e as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean }
    if (typeof failed.code !== "number") throw e
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" }
  }
}

/** Runs a command that must succeed and returns its JSON, decoded with what the command prints. */
const ok = async <A, I>(printed: Schema.Schema<A, I, never>, ...args: ReadonlyArray<string>): Promise<A> => {
  const res = await cli(...args)
  expect(res.code, res.stderr).toBe(0)
  return decode(printed, JSON.parse(res.stdout), `the output of ${args.slice(0, 2).join(" ")}`)
}

const WorkspaceCreated = Schema.Struct({ workspaceId: Schema.String, apiKey: Schema.String })
const BillingSet = Schema.Struct({ workspaceId: Schema.String, billingState: Schema.String })

beforeAll(async () => {
  world = await createWorld("cli")
  sys = await startServices(world, ["gateway"])
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("admin CLI: good commands print JSON on stdout", () => {
  let workspaceId: string
  let apiKey: string

  it(
    "workspace create: {workspaceId, apiKey}; the key starts with svc_live_ and works against the gateway",
    async () => {
      const out = await ok(WorkspaceCreated, "workspace", "create", "--name", "CLI Agency", "--plan", "pro")
      expect(Object.keys(out).sort()).toEqual(["apiKey", "workspaceId"])
      expect(out.workspaceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(out.apiKey.startsWith("svc_live_")).toBe(true)
      workspaceId = out.workspaceId
      apiKey = out.apiKey
      const res = await client(sys.url, apiKey).get("/public/v1/is-connected")
      expect(res.status).toBe(200)
      expect(res.json).toEqual({ connected: true })
      const rows = await withDb(world, (c) => c.query("SELECT name, plan FROM workspaces WHERE id = $1", [workspaceId]))
      expect(rows.rows).toEqual([{ name: "CLI Agency", plan: "pro" }])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "user create: {userId}, a member with that role",
    async () => {
      const out = await ok(
        Schema.Struct({ userId: Schema.String }),
        "user",
        "create",
        "--workspace",
        workspaceId,
        "--email",
        "cli.owner@example.com",
        "--password",
        "password1",
        "--role",
        "owner",
        "--timezone",
        "Europe/Berlin"
      )
      expect(Object.keys(out)).toEqual(["userId"])
      const rows = await withDb(world, (c) =>
        c.query(
          "SELECT m.role, u.email, u.timezone FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 AND m.user_id = $2",
          [workspaceId, out.userId]
        )
      )
      expect(rows.rows).toEqual([{ role: "owner", email: "cli.owner@example.com", timezone: "Europe/Berlin" }])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "customer create --approval: {customerId}, listed by GET /groups, approval on",
    async () => {
      const out = await ok(
        Schema.Struct({ customerId: Schema.String }),
        "customer",
        "create",
        "--workspace",
        workspaceId,
        "--name",
        "Client One",
        "--approval"
      )
      expect(Object.keys(out)).toEqual(["customerId"])
      expect((await client(sys.url, apiKey).get("/public/v1/groups")).json).toEqual([{ id: out.customerId, name: "Client One" }])
      const rows = await withDb(world, (c) => c.query("SELECT approval FROM customers WHERE id = $1", [out.customerId]))
      expect(rows.rows).toEqual([{ approval: true }])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "channel create --posting-times: {channelId}, listed by GET /integrations, times stored",
    async () => {
      const out = await ok(
        Schema.Struct({ channelId: Schema.String }),
        "channel",
        "create",
        "--workspace",
        workspaceId,
        "--network",
        "test",
        "--name",
        "CLI Channel",
        "--posting-times",
        "13:30,09:00"
      )
      expect(Object.keys(out)).toEqual(["channelId"])
      const listed = (await client(sys.url, apiKey).get("/public/v1/integrations")).json
      expect(listed).toContainEqual(expect.objectContaining({ id: out.channelId, name: "CLI Channel", identifier: "test" }))
      const rows = await withDb(world, (c) => c.query("SELECT posting_times FROM channels WHERE id = $1", [out.channelId]))
      expect(rows.rows).toEqual([{ posting_times: ["09:00", "13:30"] }])
    },
    TEST_TIMEOUT_MS
  )

  it(
    "key rotate: {apiKey}; the old key answers 401 afterwards, the new one works",
    async () => {
      const out = await ok(Schema.Struct({ apiKey: Schema.String }), "key", "rotate", "--workspace", workspaceId)
      expect(Object.keys(out)).toEqual(["apiKey"])
      expect(out.apiKey.startsWith("svc_live_")).toBe(true)
      expect(out.apiKey).not.toBe(apiKey)
      const old = await client(sys.url, apiKey).get("/public/v1/is-connected")
      expect(old.status).toBe(401)
      expect(errorOf(old).error).toBe("Invalid API key")
      expect((await client(sys.url, out.apiKey).get("/public/v1/is-connected")).status).toBe(200)
      apiKey = out.apiKey
    },
    TEST_TIMEOUT_MS
  )

  it(
    "billing set --event ended: the gate answers 401 no_subscription",
    async () => {
      const ended = await ok(BillingSet, "billing", "set", "--workspace", workspaceId, "--event", "ended")
      expect(ended).toEqual({ workspaceId, billingState: "ended" })
      const noPlan = await client(sys.url, apiKey).get("/public/v1/integrations")
      expect(noPlan.status).toBe(401)
      expect(errorOf(noPlan).code).toBe("no_subscription")
    },
    TEST_TIMEOUT_MS
  )

  it(
    "billing set --event grace_over after a failed payment: the gate answers 402 payment_failed",
    async () => {
      const ws = await sys.admin.createWorkspace("Unpaid")
      await sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "past_due" })
      expect((await client(sys.url, ws.apiKey).get("/public/v1/integrations")).status).toBe(200)
      const out = await ok(BillingSet, "billing", "set", "--workspace", ws.workspaceId, "--event", "grace_over")
      expect(out).toEqual({ workspaceId: ws.workspaceId, billingState: "grace_over" })
      const unpaid = await client(sys.url, ws.apiKey).get("/public/v1/integrations")
      expect(unpaid.status).toBe(402)
      expect(errorOf(unpaid).code).toBe("payment_failed")
    },
    TEST_TIMEOUT_MS
  )
})

describe("admin CLI: bad arguments exit 2 with a clear message on stderr", () => {
  const missingWorkspace = "0b0e8a6c-3f7e-4c55-9d5c-7c1f2a3b4c5d"
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, RegExp]> = [
    ["an unknown command", ["frobnicate", "things"], /Unknown command frobnicate things\./],
    ["no command at all", [], /Missing command\./],
    ["workspace create without --name", ["workspace", "create"], /--name is required\./],
    ["a bad --plan", ["workspace", "create", "--name", "X", "--plan", "gold"], /--plan must be one of standard, team, pro, ultimate\./],
    [
      "a bad --role",
      ["user", "create", "--workspace", missingWorkspace, "--email", "a@example.com", "--password", "password1", "--role", "boss"],
      /--role must be one of owner, admin, editor, client\./
    ],
    [
      "bad --posting-times",
      ["channel", "create", "--workspace", "WORKSPACE", "--network", "test", "--name", "N", "--posting-times", "9am,25:00"],
      /Posting times are HH:MM/
    ],
    ["a --workspace that is not a UUID", ["key", "rotate", "--workspace", "my-workspace"], /--workspace must be a workspace id \(UUID\)\./],
    ["an unknown workspace", ["key", "rotate", "--workspace", missingWorkspace], new RegExp(`No workspace ${missingWorkspace}\\.`)],
    ["an unknown network", ["channel", "create", "--workspace", "WORKSPACE", "--network", "myspace", "--name", "N"], /Unknown network myspace\./],
    ["an unknown billing event", ["billing", "set", "--workspace", missingWorkspace, "--event", "paid"], /--event must be one of/]
  ]

  let existingWorkspace: string
  beforeAll(async () => {
    existingWorkspace = (await sys.admin.createWorkspace("Bad args")).workspaceId
  })

  it.each(cases)(
    "%s",
    async (_what, args, message) => {
      const res = await cli(...args.map((a) => (a === "WORKSPACE" ? existingWorkspace : a)))
      expect(res.code).toBe(2)
      expect(res.stderr).toMatch(message)
      expect(res.stdout).toBe("")
    },
    TEST_TIMEOUT_MS
  )

  it(
    "nothing is written for a bad command (no channel with bad posting times)",
    async () => {
      const rows = await withDb(world, (c) => c.query("SELECT count(*)::int AS n FROM channels WHERE workspace_id = $1", [existingWorkspace]))
      expect(rows.rows).toEqual([{ n: 0 }])
    },
    TEST_TIMEOUT_MS
  )
})
