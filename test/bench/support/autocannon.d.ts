/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  interface RawRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }
  interface RequestTemplate extends RawRequest {
    /** Called before each request is sent; returns the request to send. */
    readonly setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest
    /** Called with each answer. */
    readonly onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    /** A fixed number of requests (takes precedence over duration). */
    readonly amount?: number
    /** Requests a second across all connections (open loop, latencies corrected for coordinated omission). */
    readonly overallRate?: number
    readonly headers?: Record<string, string>
    readonly method?: string
    readonly body?: string
    readonly requests?: ReadonlyArray<RequestTemplate>
  }
  interface Histogram {
    readonly average: number
    readonly mean: number
    readonly p50: number
    readonly p99: number
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    readonly non2xx: number
    readonly errors: number
    readonly timeouts: number
    readonly "2xx": number
    /** Seconds the run took. */
    readonly duration: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
