import type { HttpApiEndpoint } from "@effect/platform"
import type { Schema } from "effect"
import { PublicApi } from "../../protocol/http/api.js"
import { StatisticsAnswer, StatisticsMissing } from "../../protocol/http/analytics.js"
import { WholePost } from "../../protocol/http/postResources.js"
import { decoded, type Answer, type Body } from "./http.js"

type Group = (typeof PublicApi)["groups"][string]
type GroupName = Group["identifier"]
type EndpointOf<G extends GroupName> = Extract<Group, { readonly identifier: G }>["endpoints"][string]
type EndpointName<G extends GroupName> = EndpointOf<G>["name"]
type Endpoint<G extends GroupName, E extends string> = Extract<EndpointOf<G>, { readonly name: E }>

/**
 * The success schema the public contract (protocol/http/api.ts) declares for an endpoint,
 * e.g. `answerOf("posts", "getPost")`: what `decoded` checks a 2xx answer with.
 */
export const answerOf = <G extends GroupName, E extends EndpointName<G>>(
  group: G,
  endpoint: E
): Schema.Schema<HttpApiEndpoint.HttpApiEndpoint.Success<Endpoint<G, E>>, unknown> => {
  const found = PublicApi.groups[group]?.endpoints[endpoint]
  if (found === undefined) throw new Error(`No endpoint ${group}.${endpoint} in the public API`)
  // the value found by the same two names the type is computed from
  return found.successSchema as unknown as Schema.Schema<HttpApiEndpoint.HttpApiEndpoint.Success<Endpoint<G, E>>, unknown>
}

/** The one post a POST /posts of one channel answers (its first row). */
export const created = (answer: Body) => {
  const [row] = decoded(answer, answerOf("posts", "createPosts"))
  if (row === undefined) throw new Error(`POST /posts answered no row: ${JSON.stringify(answer.json)}`)
  return row
}

/** The metrics of a statistics answer (GET /analytics/{channel}, /analytics/post/{id}); fails on `missing`. */
export const metricsOf = (answer: Answer) => {
  const body = decoded(answer, StatisticsAnswer)
  if ("missing" in body) throw new Error(`Statistics are missing: ${answer.text}`)
  return body
}

/** One metric of a statistics answer, by its label. */
export const metricOf = (answer: Answer, label: string) => {
  const found = metricsOf(answer).find((m) => m.label === label)
  if (found === undefined) throw new Error(`No metric ${label}: ${answer.text}`)
  return found
}

/** A whole post (GET /posts/{id} and the PUT post operations). */
export const wholePost = (answer: Answer) => decoded(answer, WholePost)

/** The statistics answer of a network that shares none, or of a post not yet live. */
export const missingStatistics = (answer: Answer) => decoded(answer, StatisticsMissing)

/** The value, or the test fails naming what was missing (an element a test goes on to read). */
export const present = <A>(value: A | undefined, what: string): A => {
  if (value === undefined) throw new Error(`${what} is missing`)
  return value
}
