import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./security.js"
import { Uuid } from "../../domain/ids.js"
import { MAX_TOOL_DATA_KEYS, objectWithAtMost } from "../../domain/requests.js"
import { expecting } from "../../domain/fieldProblem.js"
import { IdParam, optionalParam, SuccessTrue } from "./common.js"
import { ChannelNotFound, Forbidden, FormConnect, InvalidId, InvalidJson, InvalidRequest, PlanLimit, UnknownNetwork } from "./errors.js"

export const Channel = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  identifier: Schema.String.annotations({ description: "Network id (see GET /networks)" }),
  picture: Schema.NullOr(Schema.String),
  disabled: Schema.Boolean,
  refreshNeeded: Schema.Boolean,
  inBetweenSteps: Schema.Boolean,
  profile: Schema.String,
  customer: Schema.optional(Schema.Struct({ id: Schema.String, name: Schema.String }))
}).annotations({ identifier: "Channel" })

export const Customer = Schema.Struct({ id: Schema.String, name: Schema.String }).annotations({ identifier: "Customer" })

const Setting = Schema.Struct({
  key: Schema.String,
  label: Schema.String,
  type: Schema.String,
  options: Schema.Array(Schema.String),
  help: Schema.String,
  required: Schema.optional(Schema.Literal(true))
}).annotations({ identifier: "NetworkSetting" })

export const SettingsList = Schema.Union(Schema.Array(Setting), Schema.Literal("No additional settings required"))

const Tool = Schema.Struct({
  methodName: Schema.String,
  description: Schema.String,
  dataSchema: Schema.Array(Schema.Struct({ key: Schema.String, type: Schema.String, description: Schema.String }))
}).annotations({ identifier: "NetworkTool" })

export const Needs = Schema.NullOr(Schema.Literal("media", "video"))

export const IntegrationSettings = Schema.Struct({
  output: Schema.Struct({
    rules: Schema.String,
    maxLength: Schema.Number,
    needs: Needs,
    maxMedia: Schema.Number,
    comments: Schema.Boolean,
    settings: SettingsList,
    tools: Schema.Array(Tool)
  })
}).annotations({ identifier: "IntegrationSettings" })

export const SocialParams = Schema.Struct({
  customer: optionalParam(Uuid.annotations({ description: "Put the new channel under this customer id" })),
  refresh: optionalParam(Uuid.annotations({ description: "Channel id to reconnect instead of adding a channel" })),
  instance: optionalParam(
    expecting(Schema.String.pipe(Schema.maxLength(200)), "an address of at most 200 characters").annotations({
      description:
        "The server to sign in to, for networks with many servers (a Mastodon instance such as https://fosstodon.org); default: the server's MASTODON_URL"
    })
  )
})

export const TriggerPayload = Schema.Struct({
  methodName: expecting(Schema.String, "a tool name from the channel's tools").annotations({ description: "A tool name from the channel's tools" }),
  data: Schema.optional(
    expecting(objectWithAtMost(MAX_TOOL_DATA_KEYS), `an object with at most ${MAX_TOOL_DATA_KEYS} keys`).annotations({
      description: `Keys from the tool's dataSchema; at most ${MAX_TOOL_DATA_KEYS}`
    })
  )
})

const Timestamp = (description: string) => Schema.NullOr(Schema.String).annotations({ description: `${description} (UTC, ISO 8601)` })

/** What is left of the account's publishing quota, where the network tells it. */
export const ChannelQuota = Schema.Struct({
  remaining: Schema.Number,
  limit: Schema.NullOr(Schema.Number).annotations({ description: "The whole quota of the period, when the network says it" }),
  resetsAt: Timestamp("When the quota fills up again, when the network says it"),
  unit: Schema.String.annotations({ description: "What is counted, such as posts in 24 hours or credits" })
}).annotations({ identifier: "ChannelQuota" })

/** GET /integrations/{id}/health (docs/networks.md, "Channel health and expiry warnings"). */
export const ChannelHealth = Schema.Struct({
  expiresAt: Timestamp("When the channel's token expires; null: it does not expire"),
  lastSuccessAt: Timestamp("When a post last went live on the channel; null: none since this was recorded"),
  lastRefreshAt: Timestamp("When a token refresh last asked the network; null: none yet"),
  lastRefreshResult: Schema.NullOr(Schema.Literal("refreshed", "refused", "unavailable")).annotations({
    description: "What that refresh found: new tokens, a refusal (the channel must be reconnected), or the network could not be asked"
  }),
  quota: Schema.NullOr(ChannelQuota).annotations({ description: "The network's publishing quota left; null where the network does not tell it" }),
  postsDueBeforeExpiry: Schema.NullOr(Schema.Number).annotations({
    description: "How many of the channel's queued posts are due before the token expires; null when it does not expire"
  })
}).annotations({ identifier: "ChannelHealth" })

export const AccountApi = HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("isConnected", "/is-connected")
      .addSuccess(Schema.Struct({ connected: Schema.Boolean }))
      .annotate(OpenApi.Summary, "Check the key")
  )
  .add(
    HttpApiEndpoint.get("listIntegrations", "/integrations")
      .setUrlParams(Schema.Struct({ group: optionalParam(Uuid.annotations({ description: "Only channels of this customer id" })) }))
      .addSuccess(Schema.Array(Channel))
      .addError(InvalidId)
      .annotate(OpenApi.Summary, "List channels")
  )
  .add(HttpApiEndpoint.get("listGroups", "/groups").addSuccess(Schema.Array(Customer)).annotate(OpenApi.Summary, "List customers, sorted by name"))
  .add(
    HttpApiEndpoint.get("integrationSettings", "/integration-settings/:id")
      .setPath(IdParam)
      .addSuccess(IntegrationSettings)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .addError(UnknownNetwork)
      .annotate(OpenApi.Summary, "Rules and settings of a channel")
  )
  .add(
    HttpApiEndpoint.post("integrationTrigger", "/integration-trigger/:id")
      .setPath(IdParam)
      .setPayload(TriggerPayload)
      .addSuccess(Schema.Struct({ output: Schema.Unknown }))
      .addError(InvalidRequest)
      .addError(InvalidJson)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Run a network helper tool")
  )
  .add(
    HttpApiEndpoint.get("socialConnect", "/social/:integration")
      .setPath(Schema.Struct({ integration: Schema.String.annotations({ description: "Network id (see GET /networks)" }) }))
      .setUrlParams(SocialParams)
      .addSuccess(Schema.Struct({ url: Schema.String.annotations({ description: "The network's sign-in address; open it in a browser" }) }))
      .addError(InvalidRequest)
      .addError(InvalidId)
      .addError(FormConnect)
      .addError(UnknownNetwork)
      .addError(ChannelNotFound)
      .addError(PlanLimit)
      .annotate(OpenApi.Summary, "Sign-in link to connect a channel")
      .annotate(
        OpenApi.Description,
        "Needs an owner or admin. After the sign-in the network sends the person back to this server, which stores the " +
          "channel and shows a page saying it is connected; the channel then appears in GET /integrations. `refresh` " +
          "reconnects that channel instead of adding one. The link works once, for 10 minutes."
      )
  )
  .add(
    HttpApiEndpoint.get("integrationHealth", "/integrations/:id/health")
      .setPath(IdParam)
      .addSuccess(ChannelHealth)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Health of a channel")
      .annotate(
        OpenApi.Description,
        "Beyond the reference API. The token's expiry, the last post that went live, the last token refresh and its result, " +
          "the network's publishing quota left where the network tells it, and how many queued posts are due before the token expires."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteIntegration", "/integrations/:id")
      .setPath(IdParam)
      .addSuccess(SuccessTrue)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Disconnect a channel")
      .annotate(
        OpenApi.Description,
        "Needs an owner or admin (the workspace API key counts as admin). Deletes the channel's drafts, queued, failed and unconfirmed posts; live posts stay on the network."
      )
  )
  .annotate(OpenApi.Title, "Account and channels")
  // every endpoint checks the caller's role (domain/policy.ts)
  .addError(Forbidden)
  .middleware(Authentication)
