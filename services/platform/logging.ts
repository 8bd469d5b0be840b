import { Cause, Config, Effect, FiberRef, FiberRefs, HashMap, Inspectable, Layer, List, Logger, LogLevel, Option } from "effect"

/**
 * Every process's log lines (docs/operations.md, "Logs"):
 * - LOG_FORMAT=json, or stdout not a terminal: one JSON object per line with `time`,
 *   `level`, `service`, `message`, the annotations in scope (`workspaceId`,
 *   `requestId`, …) and `cause` when there is one;
 * - LOG_FORMAT=pretty, or a terminal: Effect's pretty lines;
 * - LOG_LEVEL: trace, debug, info (default), warning, error, fatal, none.
 * No secret reaches a line: every line (message, annotations, cause) passes
 * `redactSecrets` first, whatever a caller put in it.
 */

const REDACTED = "[REDACTED]"

/** Names whose values are secrets wherever they appear as name=value, "name": "value" or name: value. */
const SENSITIVE_NAMES = [
  "password",
  "passwd",
  "pass",
  "secret",
  "client_secret",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "api_?key",
  "apikey",
  "authorization",
  "code_verifier",
  "app_password",
  "credentials?",
  "private_key",
  "cookie"
]

/** What a secret looks like in text, each with how to keep the harmless part. */
const secretPatterns: ReadonlyArray<readonly [RegExp, string]> = [
  // our own tokens and webhook secrets: svc_live_…, svc_oat_…, svc_cli_…, whsec_…
  [/\b(svc_(?:live|oat|cli)_|whsec_)[A-Za-z0-9_\-+/=]+/g, `$1${REDACTED}`],
  // Authorization header values and other bearer/basic credentials
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/\-=]+/gi, `$1 ${REDACTED}`],
  // user:password@ in URLs (DATABASE_URL, REDIS_URL, NATS_URL, proxies)
  [/\/\/([^:/@\s"']+):[^@/\s"']*@/g, `//$1:${REDACTED}@`],
  // name=value / "name": "value" / name: value for sensitive names (query strings, JSON, logfmt, CLI flags)
  [new RegExp(`((?:${SENSITIVE_NAMES.join("|")})["']?\\s*(?:=|:)\\s*"?)([^"&\\s,;}]+)`, "gi"), `$1${REDACTED}`],
  // an OAuth authorization code in a query string
  [/([?&]code=)[^&\s"]+/gi, `$1${REDACTED}`],
  // --password P and friends on a command line
  [/(--(?:password|secret|token|api-key|key)[=\s]+)(\S+)/gi, `$1${REDACTED}`]
]

/** The text with every secret-looking part replaced by [REDACTED]. */
export const redactSecrets = (text: string): string => secretPatterns.reduce((t, [pattern, keep]) => t.replace(pattern, keep), text)

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (Cause.isCause(value)) return Cause.pretty(value)
  if (value instanceof Error) return value.message
  return Inspectable.toStringUnknown(value, 0)
}

const messageText = (message: unknown): string => (Array.isArray(message) ? message.map(textOf).join(" ") : textOf(message))

/**
 * What a log line says about the request it was written for (`requestId`, `workspaceId`).
 * A plain object in a FiberRef rather than log annotations: setting annotations on every
 * request compares hash maps, this compares one reference (the gateway's hot path).
 */
export interface RequestFields {
  readonly requestId: string
  workspaceId?: string
}
export const currentRequestFields = FiberRef.unsafeMake<RequestFields | null>(null)

const requestAnnotations = (context: FiberRefs.FiberRefs, annotations: HashMap.HashMap<string, unknown>) => {
  const request = FiberRefs.getOrDefault(context, currentRequestFields)
  if (request === null) return annotations
  const withId = HashMap.set(annotations, "requestId", request.requestId)
  return request.workspaceId === undefined ? withId : HashMap.set(withId, "workspaceId", request.workspaceId)
}

/** `fallbackService`: the services this process runs, when no `service` annotation is in scope. */
export const jsonLogger = (fallbackService: string) =>
  Logger.make<unknown, string>(({ annotations, cause, context, date, logLevel, message, spans }) => {
    const line: Record<string, unknown> = {
      time: date.toISOString(),
      level: logLevel.label.toLowerCase(),
      service: fallbackService,
      message: redactSecrets(messageText(message))
    }
    for (const [key, value] of HashMap.toEntries(requestAnnotations(context, annotations))) line[key] = redactSecrets(textOf(value))
    if (!Cause.isEmpty(cause)) line["cause"] = redactSecrets(Cause.pretty(cause))
    const now = date.getTime()
    for (const span of List.toArray(spans)) line[`${span.label}_ms`] = now - span.startTime
    return JSON.stringify(line)
  })

/** Effect's pretty logger, given redacted text. */
const prettyRedacted = (pretty: Logger.Logger<unknown, void>) =>
  Logger.make<unknown, void>((options) =>
    pretty.log({
      ...options,
      message: redactSecrets(messageText(options.message)),
      cause: Cause.isEmpty(options.cause) ? options.cause : Cause.fail(redactSecrets(Cause.pretty(options.cause))),
      annotations: HashMap.map(requestAnnotations(options.context, options.annotations), (v) => redactSecrets(textOf(v)))
    })
  )

const levels: Record<string, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

export interface LoggingOptions {
  /** The `service` field of lines without a `service` annotation. */
  readonly service: string
  /** Where lines go: stdout (services) or stderr (the admin CLI, whose stdout is its answer). */
  readonly stream?: "stdout" | "stderr"
  /** Whether the stream is a terminal, when this thread cannot tell (the services' worker thread writes through the main thread). */
  readonly terminal?: boolean
}

/** Whether lines written to `stream` are JSON: LOG_FORMAT=json, or unset and not a terminal. */
export const jsonLines = (stream: { readonly isTTY?: boolean } = process.stdout) =>
  Effect.map(Config.string("LOG_FORMAT").pipe(Config.option), (format) =>
    Option.match(format, { onNone: () => stream.isTTY !== true, onSome: (f) => f.trim().toLowerCase() !== "pretty" })
  ).pipe(Effect.orElseSucceed(() => stream.isTTY !== true))

/** The logger and minimum level of a process, from LOG_FORMAT and LOG_LEVEL. */
export const LoggingLive = (options: LoggingOptions) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const stream = options.stream === "stderr" ? process.stderr : process.stdout
      const terminal = options.terminal ?? stream.isTTY === true
      const json = yield* jsonLines({ isTTY: terminal })
      const levelName = (yield* Config.string("LOG_LEVEL").pipe(Config.withDefault("info"))).trim().toLowerCase()
      const level = levels[levelName] ?? LogLevel.Info
      const write = (line: string) => void stream.write(`${line}\n`)
      const logger = json
        ? Logger.map(jsonLogger(options.service), write)
        : prettyRedacted(Logger.prettyLogger({ stderr: options.stream === "stderr", colors: terminal }))
      return Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(level))
    })
  ).pipe(Layer.orDie)
