import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { expecting } from "../../domain/fieldProblem.js"
import { Authentication } from "./security.js"
import { optionalParam } from "./common.js"
import { Forbidden, InvalidRequest, UnknownNetwork } from "./errors.js"
import { Needs, SettingsList } from "./account.js"

export const NetworkItem = Schema.Struct({
  identifier: Schema.String,
  name: Schema.String,
  maxLength: Schema.Number,
  comments: Schema.Boolean,
  needs: Needs,
  publishes: Schema.Boolean.annotations({
    description: "Whether this server publishes to the network; false for a network without a public posting API (MeWe)"
  })
}).annotations({ identifier: "Network" })

export const NetworkRules = Schema.Struct({
  rules: Schema.String,
  maxLength: Schema.Number,
  settings: SettingsList
}).annotations({ identifier: "NetworkRules" })

export const Notification = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("success", "fail", "info"),
  title: Schema.String,
  body: Schema.String,
  link: Schema.String.annotations({ description: "A path inside the app" }),
  created_at: Schema.String.annotations({ description: "UTC timestamp" })
}).annotations({ identifier: "Notification" })

export const NotificationsParams = Schema.Struct({
  page: optionalParam(
    expecting(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000)), "a whole number from 1").annotations({
      description: "Starts at 1 (default 1); 50 per page"
    })
  )
})

export const NetworksApi = HttpApiGroup.make("networks")
  .add(
    HttpApiEndpoint.get("listNotifications", "/notifications")
      .setUrlParams(NotificationsParams)
      .addSuccess(Schema.Struct({ notifications: Schema.Array(Notification), page: Schema.Number }))
      .addError(InvalidRequest)
      .addError(Forbidden)
      .annotate(OpenApi.Summary, "List notifications")
      .annotate(OpenApi.Description, "Newest first, 50 per page. A page with fewer than 50 is the last one.")
  )
  .add(HttpApiEndpoint.get("listNetworks", "/networks").addSuccess(Schema.Array(NetworkItem)).annotate(OpenApi.Summary, "List networks"))
  .add(
    HttpApiEndpoint.get("networkRules", "/rules/:identifier")
      .setPath(Schema.Struct({ identifier: Schema.String }))
      .addSuccess(NetworkRules)
      .addError(UnknownNetwork)
      .annotate(OpenApi.Summary, "Rules of a network")
  )
  .annotate(OpenApi.Title, "Notifications and networks")
  .middleware(Authentication)
