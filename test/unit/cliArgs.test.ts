import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAdminArgs, usage, type AdminCommand } from "../../services/admin/cliArgs.js"

/** The admin CLI's arguments: `<noun> <verb> --flags`. */

const W = "2f6a1c9e-8b7d-4e3f-a1b2-c3d4e5f60718"
const C = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"

const good: ReadonlyArray<readonly [string, ReadonlyArray<string>, AdminCommand]> = [
  ["workspace create with a name", ["workspace", "create", "--name", "Acme"], { _tag: "WorkspaceCreate", name: "Acme", plan: "standard" }],
  [
    "workspace create with a plan",
    ["workspace", "create", "--name", "Acme", "--plan", "ultimate"],
    { _tag: "WorkspaceCreate", name: "Acme", plan: "ultimate" }
  ],
  ["--flag=value form", ["workspace", "create", "--name=Acme Inc", "--plan=team"], { _tag: "WorkspaceCreate", name: "Acme Inc", plan: "team" }],
  [
    "a name with spaces around is trimmed",
    ["workspace", "create", "--name", "  Acme  "],
    { _tag: "WorkspaceCreate", name: "Acme", plan: "standard" }
  ],
  [
    "user create",
    ["user", "create", "--workspace", W, "--email", "ann@example.com", "--password", "password1", "--role", "editor"],
    { _tag: "UserCreate", workspaceId: W, email: "ann@example.com", password: "password1", role: "editor", timezone: null }
  ],
  [
    "user create with a time zone",
    [
      "user",
      "create",
      "--workspace",
      W,
      "--email",
      "ann@example.com",
      "--password",
      "password1",
      "--role",
      "owner",
      "--timezone",
      "America/New_York"
    ],
    { _tag: "UserCreate", workspaceId: W, email: "ann@example.com", password: "password1", role: "owner", timezone: "America/New_York" }
  ],
  [
    "customer create",
    ["customer", "create", "--workspace", W, "--name", "Client"],
    { _tag: "CustomerCreate", workspaceId: W, name: "Client", approval: false }
  ],
  [
    "customer create --approval (a flag without a value)",
    ["customer", "create", "--approval", "--workspace", W, "--name", "Client"],
    { _tag: "CustomerCreate", workspaceId: W, name: "Client", approval: true }
  ],
  [
    "channel create",
    ["channel", "create", "--workspace", W, "--network", "x", "--name", "Our X"],
    { _tag: "ChannelCreate", workspaceId: W, network: "x", name: "Our X", customerId: null, postingTimes: [], credentials: null }
  ],
  [
    "channel create with a customer and posting times",
    ["channel", "create", "--workspace", W, "--network", "test", "--name", "T", "--customer", C, "--posting-times", "09:00, 13:30,"],
    { _tag: "ChannelCreate", workspaceId: W, network: "test", name: "T", customerId: C, postingTimes: ["09:00", "13:30"], credentials: null }
  ],
  ["key rotate", ["key", "rotate", "--workspace", W], { _tag: "KeyRotate", workspaceId: W }],
  ["a workspace id in capitals", ["key", "rotate", "--workspace", W.toUpperCase()], { _tag: "KeyRotate", workspaceId: W.toUpperCase() }],
  [
    "billing set",
    ["billing", "set", "--workspace", W, "--event", "grace_over"],
    { _tag: "BillingSet", workspaceId: W, event: "grace_over", plan: null, amount: null, currency: null, period: null, periodEnd: null, test: false }
  ],
  [
    "billing set with every detail",
    [
      "billing",
      "set",
      "--workspace",
      W,
      "--event",
      "renewed",
      "--plan",
      "pro",
      "--amount",
      "29.90",
      "--currency",
      "eur",
      "--period",
      "year",
      "--period-end",
      "2027-01-01T00:00:00Z",
      "--test"
    ],
    {
      _tag: "BillingSet",
      workspaceId: W,
      event: "renewed",
      plan: "pro",
      amount: 29.9,
      currency: "EUR",
      period: "year",
      periodEnd: new Date("2027-01-01T00:00:00Z"),
      test: true
    }
  ],
  [
    "workspace create --trial",
    ["workspace", "create", "--name", "T", "--trial"],
    { _tag: "WorkspaceCreate", name: "T", plan: "standard", trial: true }
  ]
]

const bad: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
  ["nothing", [], "Missing command."],
  ["a noun without a verb", ["workspace"], "Missing command."],
  ["an unknown command", ["workspace", "delete", "--name", "x"], "Unknown command workspace delete."],
  ["an unknown noun", ["post", "create"], "Unknown command post create."],
  ["a missing --name", ["workspace", "create"], "--name is required."],
  ["an empty --name", ["workspace", "create", "--name", "   "], "--name is required."],
  ["a flag without its value at the end", ["workspace", "create", "--name"], "--name needs a value."],
  ["a flag followed by another flag", ["workspace", "create", "--name", "--plan", "pro"], "--name needs a value."],
  ["a flag given twice", ["workspace", "create", "--name", "a", "--name", "b"], "--name is given twice."],
  ["a positional argument", ["workspace", "create", "Acme"], "Unexpected argument Acme."],
  ["an unknown option", ["workspace", "create", "--name", "a", "--owner", "me"], "Unknown option --owner."],
  ["a bad --plan", ["workspace", "create", "--name", "a", "--plan", "gold"], "--plan must be one of standard, team, pro, ultimate."],
  [
    "a bad --role",
    ["user", "create", "--workspace", W, "--email", "a@example.com", "--password", "password1", "--role", "boss"],
    "--role must be one of owner, admin, editor, client."
  ],
  [
    "a bad --email",
    ["user", "create", "--workspace", W, "--email", "not-an-email", "--password", "password1", "--role", "admin"],
    "--email must be an email address."
  ],
  [
    "a short --password",
    ["user", "create", "--workspace", W, "--email", "a@example.com", "--password", "short", "--role", "admin"],
    "--password needs at least 8 characters."
  ],
  [
    "a bad --timezone",
    ["user", "create", "--workspace", W, "--email", "a@example.com", "--password", "password1", "--role", "admin", "--timezone", "Mars/Olympus"],
    "--timezone must be an IANA time zone, e.g. Europe/Berlin."
  ],
  [
    "a non-UUID --workspace (user create)",
    ["user", "create", "--workspace", "acme", "--email", "a@example.com", "--password", "password1", "--role", "admin"],
    "--workspace must be a workspace id (UUID)."
  ],
  ["a non-UUID --workspace (key rotate)", ["key", "rotate", "--workspace", "12345"], "--workspace must be a workspace id (UUID)."],
  ["a missing --workspace", ["key", "rotate"], "--workspace is required."],
  ["a missing --name (customer create)", ["customer", "create", "--workspace", W], "--name is required."],
  ["a missing --network", ["channel", "create", "--workspace", W, "--name", "n"], "--network is required."],
  [
    "a non-UUID --customer",
    ["channel", "create", "--workspace", W, "--network", "x", "--name", "n", "--customer", "acme"],
    "--customer must be a customer id (UUID)."
  ],
  ["a missing --event", ["billing", "set", "--workspace", W], "--event is required."],
  [
    "an unknown --event",
    ["billing", "set", "--workspace", W, "--event", "paid"],
    "--event must be one of activated, changed, renewed, trial_plan, downgrade_scheduled, change_canceled, cancel_scheduled, resumed, past_due, grace_reminder, grace_over, ended."
  ],
  ["an option of another command", ["key", "rotate", "--workspace", W, "--name", "x"], "Unknown option --name."],
  [
    "billing: a bad --plan",
    ["billing", "set", "--workspace", W, "--event", "changed", "--plan", "gold"],
    "--plan must be one of standard, team, pro, ultimate."
  ],
  [
    "billing: a negative --amount",
    ["billing", "set", "--workspace", W, "--event", "renewed", "--amount=-5", "--currency", "USD"],
    "--amount must be a number of at least 0 with at most 2 decimals, e.g. 29 or 29.90."
  ],
  [
    "billing: --amount without --currency",
    ["billing", "set", "--workspace", W, "--event", "renewed", "--amount", "29"],
    "--amount and --currency go together."
  ],
  [
    "billing: a bad --currency",
    ["billing", "set", "--workspace", W, "--event", "renewed", "--amount", "29", "--currency", "dollars"],
    "--currency must be a 3-letter ISO 4217 code, e.g. USD or EUR."
  ],
  ["billing: a bad --period", ["billing", "set", "--workspace", W, "--event", "renewed", "--period", "week"], "--period must be month or year."],
  [
    "billing: a bad --period-end",
    ["billing", "set", "--workspace", W, "--event", "renewed", "--period-end", "soon"],
    "--period-end must be an ISO 8601 date, e.g. 2026-12-31T00:00:00Z."
  ]
]

describe("parseAdminArgs: good arguments", () => {
  it.each(good)("%s", (_what, argv, expected) => {
    const parsed = parseAdminArgs(argv)
    expect(Either.isRight(parsed) ? parsed.right : `Left: ${parsed.left}`).toEqual(expected)
  })
})

describe("parseAdminArgs: bad arguments", () => {
  it.each(bad)("%s", (_what, argv, message) => {
    const parsed = parseAdminArgs(argv)
    expect(Either.isLeft(parsed) ? parsed.left : "parsed, but should not").toBe(message)
  })
})

describe("usage", () => {
  it.each(["workspace create", "user create", "customer create", "channel create", "key rotate", "billing set"])("lists `%s`", (command) => {
    expect(usage).toContain(command)
  })
})
