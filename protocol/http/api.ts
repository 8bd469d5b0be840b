import { HttpApi, OpenApi } from "@effect/platform"
import { ApiError } from "../../domain/errors.js"
import { AccountApi } from "./account.js"
import { PayloadTooLarge, ServerError, TooManyRequests, Unauthorized, PaymentRequired } from "./common.js"
import { MediaApi } from "./media.js"
import { NetworksApi } from "./networks.js"
import { PostsApi } from "./posts.js"

/**
 * The public API under /public/v1 (each group applies Authentication itself: an
 * API-level middleware would also guard /healthz and the other raw routes): the single HttpApi every handler, the OpenAPI
 * document and the typed test client are built from.
 */
export class PublicApi extends HttpApi.make("public")
  .add(AccountApi)
  .add(NetworksApi)
  .add(MediaApi)
  .add(PostsApi)
  .addError(ApiError)
  .addError(Unauthorized)
  .addError(PaymentRequired)
  .addError(PayloadTooLarge)
  .addError(TooManyRequests)
  .addError(ServerError)
  .prefix("/public/v1")
  .annotate(OpenApi.Title, "Social Post Scheduling Service: Public API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Schedule posts to many social network accounts at once. Send the key in the Authorization header."
  ) {}
