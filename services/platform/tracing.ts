import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { HttpMiddleware } from "@effect/platform"
import { Config, Effect, Layer, Option, Tracer } from "effect"
import type { MsgHdrs } from "nats"

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"). With OTEL_EXPORTER_OTLP_ENDPOINT set, the
 * spans of every process (Effect's spans: the HTTP server's, each service method's)
 * are exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, and one request is
 * followed across processes: the W3C `traceparent` rides in NATS message headers
 * (actor request/reply, PUBLISH jobs, EVENTS) and, for work that waits in Postgres
 * (a post's items until they are due, outbox rows), in the rows themselves
 * (`trace_parent`, migration 0012). Unset, nothing is exported and nothing is added to
 * messages or rows: tracing costs nothing.
 */
const state = { enabled: false }

/** Whether spans are exported (and trace context propagated). */
export const tracingEnabled = () => state.enabled

/**
 * The process's tracer: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none at
 * all: Effect's tracer is switched off, so no span is made for the spans nobody exports,
 * and the HTTP server makes no span per request (it parsed the URL and copied every header
 * into attributes).
 */
export const TracingLive = (serviceName: string) =>
  Layer.unwrapEffect(
    Effect.map(Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")), (endpoint) => {
      const url = Option.filter(endpoint, (e) => e.trim() !== "")
      if (Option.isNone(url)) {
        return Layer.mergeAll(
          Layer.setTracerEnabled(false),
          Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)
        )
      }
      state.enabled = true
      const base = url.value.trim().replace(/\/+$/, "")
      const exporter = new OTLPTraceExporter({ url: `${base}/v1/traces` })
      return NodeSdk.layer(() => ({
        resource: { serviceName: Option.getOrElse(Option.fromNullable(process.env["OTEL_SERVICE_NAME"]), () => serviceName) },
        spanProcessor: new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })
      }))
    })
  ).pipe(Layer.orDie)

/**
 * `Effect.withSpan(name, options)` when spans are exported, else `effect` as it is. Effect's
 * own span with the tracer off is no-op in output only: it still captures a stack for the
 * span's source, copies the context to hold the span and sets a fiber ref, about 15 µs per
 * span on the POST /posts path. Decided again when the effect runs (the flag is set once
 * the tracer layer is built), so an effect built before that gets its span too.
 */
export const withSpan =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    state.enabled ? Effect.withSpan(effect, name, options) : Effect.suspend(() => (state.enabled ? Effect.withSpan(effect, name, options) : effect))

/** W3C trace context of a span: `00-<trace id>-<span id>-<flags>`. */
const traceparentOf = (span: Tracer.AnySpan) => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The current span's traceparent, when tracing is on and a span is current. */
export const currentTraceparent: Effect.Effect<string | null> = Effect.suspend(() =>
  state.enabled ? Effect.map(Effect.option(Effect.currentSpan), Option.match({ onNone: () => null, onSome: traceparentOf })) : Effect.succeed(null)
)

/** Adds the current span's traceparent to NATS headers (nothing when tracing is off). */
export const injectTraceparent = (headers: MsgHdrs) =>
  Effect.map(currentTraceparent, (traceparent) => {
    if (traceparent !== null) headers.set("traceparent", traceparent)
    return headers
  })

/**
 * Runs `effect` in a span named `name` whose parent is the remote span of `traceparent`
 * (a NATS header, a row's trace_parent): one trace across processes. With tracing off,
 * or without a parent, `effect` runs as it is.
 */
export const withRemoteParent =
  (traceparent: string | null | undefined, name: string, attributes: Record<string, unknown> = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    if (!state.enabled) return effect
    const match = traceparent?.match(traceparentPattern)
    if (match === null || match === undefined) return Effect.withSpan(effect, name, { attributes, kind: "consumer" })
    const [, traceId = "", spanId = "", flags = "01"] = match
    const parent = Tracer.externalSpan({ traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 })
    return Effect.withSpan(effect, name, { parent, attributes, kind: "consumer" })
  }
