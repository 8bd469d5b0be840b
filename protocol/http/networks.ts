import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./security.js"
import { UnknownNetwork } from "./errors.js"
import { Needs, SettingsList } from "./account.js"

export const NetworkItem = Schema.Struct({
  identifier: Schema.String,
  name: Schema.String,
  maxLength: Schema.Number,
  comments: Schema.Boolean,
  needs: Needs
}).annotations({ identifier: "Network" })

export const NetworkRules = Schema.Struct({
  rules: Schema.String,
  maxLength: Schema.Number,
  settings: SettingsList
}).annotations({ identifier: "NetworkRules" })

export const NetworksApi = HttpApiGroup.make("networks")
  .add(
    HttpApiEndpoint.get("listNetworks", "/networks")
      .addSuccess(Schema.Array(NetworkItem))
      .annotate(OpenApi.Summary, "List networks")
  )
  .add(
    HttpApiEndpoint.get("networkRules", "/rules/:identifier")
      .setPath(Schema.Struct({ identifier: Schema.String }))
      .addSuccess(NetworkRules)
      .addError(UnknownNetwork)
      .annotate(OpenApi.Summary, "Rules of a network")
  )
  .annotate(OpenApi.Title, "Networks")
  .middleware(Authentication)
