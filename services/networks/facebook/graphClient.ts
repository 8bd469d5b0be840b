import { Option, Schema } from "effect"
import type { NetworkAnswer } from "../adapter.js"
import { call, decodeBody, isSuccess } from "../networkHttp.js"
import type { OutboundHttpShape } from "../../platform/outbound/outboundHttp.js"

/** The Graph API version every call names (graph.facebook.com/v21.0/…). */
export const VERSION = "v21.0"

/** A chosen page: the page's own token (the `--credentials` fields). */
export const PageCredentials = Schema.Struct({ accessToken: Schema.String, pageId: Schema.String })
export type PageCredentials = typeof PageCredentials.Type

/** GET with a query and POST of a form to the Graph API, the token as a bearer (never in the address). */
export const graphClient = (outbound: OutboundHttpShape, graph: string) => ({
  get: (path: string, token: string, query: Record<string, string> = {}) =>
    call(outbound, {
      url: `${graph}${path}${Object.keys(query).length === 0 ? "" : `?${new URLSearchParams(query).toString()}`}`,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" }
    }),
  post: (path: string, token: string, form: Record<string, string>) =>
    call(outbound, {
      url: `${graph}${path}`,
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString()
    }),
  /** A 2xx answer decoded with `schema`; None for anything else. */
  read: <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
    answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none<A>()
})

export type GraphClient = ReturnType<typeof graphClient>
