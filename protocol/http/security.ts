import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { EmailNotVerified, InvalidApiKey, MemberPaused, MissingApiKey, NoSubscription, PaymentFailed } from "./errors.js"
import type { Principal } from "../../domain/roles.js"

export class CurrentPrincipal extends Context.Tag("CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/**
 * The `Authorization` header: a workspace key (`svc_live_`), OAuth token (`svc_oat_`)
 * or CLI token (`svc_cli_`), with an optional `Bearer ` prefix. Also applies the
 * billing gate, so every authenticated call answers 401/402 alike.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(MissingApiKey, InvalidApiKey, NoSubscription, PaymentFailed, EmailNotVerified, MemberPaused),
  provides: CurrentPrincipal,
  security: {
    apiKey: HttpApiSecurity.apiKey({ in: "header", key: "Authorization" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The workspace API key (svc_live_…), an OAuth token (svc_oat_…) or a CLI token (svc_cli_…). `Bearer ` is optional."
      )
    )
  }
}) {}
