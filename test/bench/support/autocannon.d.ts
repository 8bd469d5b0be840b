/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly headers?: Record<string, string>
    readonly method?: string
    readonly body?: string
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
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
