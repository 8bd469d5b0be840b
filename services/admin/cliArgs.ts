import { Either } from "effect"
import {
  isBillingEvent,
  isPlan,
  plans,
  billingEvents,
  isBillingPeriod,
  type BillingEvent,
  type BillingPeriod,
  type Plan
} from "../../domain/billing.js"
import { isUuid } from "../../domain/ids.js"
import { isRole, roles, type Role } from "../../domain/roles.js"

/** A parsed admin CLI command. Parsing is pure so every bad input is tested without a database. */
export type AdminCommand =
  | { readonly _tag: "WorkspaceCreate"; readonly name: string; readonly plan: Plan; readonly trial?: boolean }
  | {
      readonly _tag: "UserCreate"
      readonly workspaceId: string
      readonly email: string
      readonly password: string
      readonly role: Role
      readonly timezone: string | null
    }
  | { readonly _tag: "CustomerCreate"; readonly workspaceId: string; readonly name: string; readonly approval: boolean }
  | {
      readonly _tag: "ChannelCreate"
      readonly workspaceId: string
      readonly network: string
      readonly name: string
      readonly customerId: string | null
      readonly postingTimes: ReadonlyArray<string>
      /** `--credentials` parsed (a JSON object), null when not given. */
      readonly credentials: unknown
    }
  | { readonly _tag: "KeyRotate"; readonly workspaceId: string }
  | ({ readonly _tag: "BillingSet"; readonly workspaceId: string; readonly event: BillingEvent } & Partial<BillingDetails>)
  | {
      readonly _tag: "WebhookCreate"
      readonly workspaceId: string
      readonly name: string
      readonly url: string
      readonly events: ReadonlyArray<string>
      readonly channelIds: ReadonlyArray<string>
    }
  | { readonly _tag: "WebhookTest"; readonly webhookId: string }

/** What a billing event may carry besides its name (`billing.changed` data); left out: null. */
export interface BillingDetails {
  readonly plan: Plan | null
  readonly amount: number | null
  readonly currency: string | null
  readonly period: BillingPeriod | null
  readonly periodEnd: Date | null
  /** Billing test mode (`test: true` in billing.changed). */
  readonly test: boolean
}

export const usage = `Usage: npm run -s admin -- <command>
  workspace create --name N [--plan standard|team|pro|ultimate] [--trial]
  user create --workspace W --email E --password P --role owner|admin|editor|client [--timezone IANA]
  customer create --workspace W --name N [--approval]
  channel create --workspace W --network ID --name N [--customer C] [--posting-times 09:00,13:30]
                 [--credentials '{"instance":"https://…","accessToken":"…"}']   (checked against the network; docs/networks.md lists each network's fields)
  key rotate --workspace W
  billing set --workspace W --event ${billingEvents.join("|")}
              [--plan P] [--amount N --currency C --period month|year --period-end ISO] [--test]
  webhook create --workspace W --name N --url U [--events a,b] [--channels c1,c2]
  webhook test --webhook ID
Prints JSON on stdout.`

const flagsWithoutValue = new Set(["approval", "trial", "test"])

const parseFlags = (args: ReadonlyArray<string>): Either.Either<Map<string, string>, string> => {
  const flags = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (!arg.startsWith("--")) return Either.left(`Unexpected argument ${arg}.`)
    const [name = "", inline] = arg.slice(2).split(/=(.*)/s, 2)
    if (flags.has(name)) return Either.left(`--${name} is given twice.`)
    if (flagsWithoutValue.has(name)) {
      if (inline !== undefined && inline !== "true" && inline !== "false") return Either.left(`--${name} takes no value, or =true / =false.`)
      if (inline !== "false") flags.set(name, "true")
      continue
    }
    const value = inline ?? args[++i]
    if (value === undefined || (inline === undefined && value.startsWith("--"))) return Either.left(`--${name} needs a value.`)
    flags.set(name, value)
  }
  return Either.right(flags)
}

const isTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz })
    return true
  } catch {
    return false
  }
}

const isEmail = (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)

/** `billing set`'s details: each checked, amount and currency together. */
const billingDetails = (flags: Map<string, string>): Either.Either<BillingDetails, string> => {
  const plan = flags.get("plan") ?? null
  if (plan !== null && !isPlan(plan)) return Either.left(`--plan must be one of ${plans.join(", ")}.`)
  const amountText = flags.get("amount") ?? null
  const amount = amountText === null ? null : Number(amountText)
  if (amount !== null && (!/^\d+(\.\d{1,2})?$/.test(amountText ?? "") || !Number.isFinite(amount))) {
    return Either.left("--amount must be a number of at least 0 with at most 2 decimals, e.g. 29 or 29.90.")
  }
  const currency = flags.get("currency")?.toUpperCase() ?? null
  if (currency !== null && !/^[A-Z]{3}$/.test(currency)) return Either.left("--currency must be a 3-letter ISO 4217 code, e.g. USD or EUR.")
  if ((amount === null) !== (currency === null)) return Either.left("--amount and --currency go together.")
  const periodText = flags.get("period") ?? null
  const period = periodText === null ? null : isBillingPeriod(periodText) ? periodText : undefined
  if (period === undefined) return Either.left("--period must be month or year.")
  const periodEndText = flags.get("period-end") ?? null
  const periodEnd = periodEndText === null ? null : new Date(periodEndText)
  if (periodEnd !== null && (!/^\d{4}-\d{2}-\d{2}/.test(periodEndText ?? "") || Number.isNaN(periodEnd.getTime()))) {
    return Either.left("--period-end must be an ISO 8601 date, e.g. 2026-12-31T00:00:00Z.")
  }
  return Either.right({ plan, amount, currency, period, periodEnd, test: flags.get("test") === "true" })
}

export const parseAdminArgs = (argv: ReadonlyArray<string>): Either.Either<AdminCommand, string> => {
  const [noun, verb, ...rest] = argv
  if (noun === undefined || verb === undefined) return Either.left("Missing command.")
  const parsed = parseFlags(rest)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const flags = parsed.right
  const allowed = (names: ReadonlyArray<string>) => {
    const unknown = [...flags.keys()].find((k) => !names.includes(k))
    return unknown === undefined ? null : `Unknown option --${unknown}.`
  }
  const required = (name: string): Either.Either<string, string> => {
    const v = flags.get(name)
    return v === undefined || v.trim() === "" ? Either.left(`--${name} is required.`) : Either.right(v.trim())
  }
  const workspace = (): Either.Either<string, string> =>
    Either.flatMap(required("workspace"), (w) => (isUuid(w) ? Either.right(w) : Either.left("--workspace must be a workspace id (UUID).")))

  return Either.gen(function* () {
    switch (`${noun} ${verb}`) {
      case "workspace create": {
        const bad = allowed(["name", "plan", "trial"])
        if (bad) return yield* Either.left(bad)
        const plan = flags.get("plan") ?? "standard"
        if (!isPlan(plan)) return yield* Either.left(`--plan must be one of ${plans.join(", ")}.`)
        return { _tag: "WorkspaceCreate", name: yield* required("name"), plan, ...(flags.get("trial") === "true" ? { trial: true } : {}) } as const
      }
      case "user create": {
        const bad = allowed(["workspace", "email", "password", "role", "timezone"])
        if (bad) return yield* Either.left(bad)
        const email = yield* required("email")
        if (!isEmail(email)) return yield* Either.left("--email must be an email address.")
        const password = yield* required("password")
        if (password.length < 8) return yield* Either.left("--password needs at least 8 characters.")
        const role = yield* required("role")
        if (!isRole(role)) return yield* Either.left(`--role must be one of ${roles.join(", ")}.`)
        const timezone = flags.get("timezone") ?? null
        if (timezone !== null && !isTimeZone(timezone)) return yield* Either.left("--timezone must be an IANA time zone, e.g. Europe/Berlin.")
        return { _tag: "UserCreate", workspaceId: yield* workspace(), email, password, role, timezone } as const
      }
      case "customer create": {
        const bad = allowed(["workspace", "name", "approval"])
        if (bad) return yield* Either.left(bad)
        return {
          _tag: "CustomerCreate",
          workspaceId: yield* workspace(),
          name: yield* required("name"),
          approval: flags.get("approval") === "true"
        } as const
      }
      case "channel create": {
        const bad = allowed(["workspace", "network", "name", "customer", "posting-times", "credentials"])
        if (bad) return yield* Either.left(bad)
        const customerId = flags.get("customer") ?? null
        const credentialsText = flags.get("credentials")
        const credentials = credentialsText === undefined ? null : Either.getOrUndefined(Either.try(() => JSON.parse(credentialsText) as unknown))
        if (credentials === undefined || (credentials !== null && (typeof credentials !== "object" || Array.isArray(credentials)))) {
          return yield* Either.left(`--credentials must be a JSON object, e.g. '{"instance":"https://mastodon.social","accessToken":"…"}'.`)
        }
        if (customerId !== null && !isUuid(customerId)) return yield* Either.left("--customer must be a customer id (UUID).")
        const times = flags.get("posting-times")
        return {
          _tag: "ChannelCreate",
          workspaceId: yield* workspace(),
          network: yield* required("network"),
          name: yield* required("name"),
          customerId,
          postingTimes:
            times === undefined
              ? []
              : times
                  .split(",")
                  .map((t) => t.trim())
                  .filter((t) => t !== ""),
          credentials
        } as const
      }
      case "key rotate": {
        const bad = allowed(["workspace"])
        if (bad) return yield* Either.left(bad)
        return { _tag: "KeyRotate", workspaceId: yield* workspace() } as const
      }
      case "billing set": {
        const bad = allowed(["workspace", "event", "plan", "amount", "currency", "period", "period-end", "test"])
        if (bad) return yield* Either.left(bad)
        const event = yield* required("event")
        if (!isBillingEvent(event)) return yield* Either.left(`--event must be one of ${billingEvents.join(", ")}.`)
        return { _tag: "BillingSet", workspaceId: yield* workspace(), event, ...(yield* billingDetails(flags)) } as const
      }
      case "webhook create": {
        const bad = allowed(["workspace", "name", "url", "events", "channels"])
        if (bad) return yield* Either.left(bad)
        const list = (name: string) =>
          (flags.get(name) ?? "")
            .split(",")
            .map((v) => v.trim())
            .filter((v) => v !== "")
        const channelIds = list("channels")
        if (channelIds.some((c) => !isUuid(c))) return yield* Either.left("--channels must be channel ids (UUIDs), separated by commas.")
        return {
          _tag: "WebhookCreate",
          workspaceId: yield* workspace(),
          name: yield* required("name"),
          url: yield* required("url"),
          events: list("events"),
          channelIds
        } as const
      }
      case "webhook test": {
        const bad = allowed(["webhook"])
        if (bad) return yield* Either.left(bad)
        const webhookId = yield* required("webhook")
        if (!isUuid(webhookId)) return yield* Either.left("--webhook must be a webhook id (UUID).")
        return { _tag: "WebhookTest", webhookId } as const
      }
      default:
        return yield* Either.left(`Unknown command ${noun} ${verb}.`)
    }
  })
}
