import { Effect, Option } from "effect"
import type { ApiError } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { authorize } from "../platform/policy.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { makeWebhooksRepo } from "../webhooks/webhooksRepo.js"
import { AdminInputError } from "./operations.js"

/**
 * `webhook create` and `webhook test` of the admin CLI: the same Webhooks methods as the
 * app API, run as the workspace's owner (the operator acts for the workspace).
 */

const asOwner = (workspaceId: string) =>
  Effect.provideService(CurrentPrincipal, {
    workspaceId: WorkspaceId.make(workspaceId),
    userId: null,
    role: "owner",
    tokenKind: "live",
    actor: "admin CLI"
  })

/** A refusal of the service, as the CLI's input error (exit 2) with the fix. */
const refused = (e: ApiError) => new AdminInputError({ message: e.fix !== undefined ? `${e.error} ${e.fix}` : e.error })

const inputErrors = <A, R>(effect: Effect.Effect<A, ApiError | AdminInputError, R>) =>
  Effect.catchAll(effect, (e) => Effect.fail(e instanceof AdminInputError ? e : refused(e)))

export const createWebhook = (input: {
  readonly workspaceId: string
  readonly name: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly channelIds: ReadonlyArray<string>
}) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const { workspaceId, ...body } = input
    const created = yield* webhooks.create({ ...body, active: true }).pipe(authorize("webhooks.manage"), asOwner(workspaceId))
    return { webhookId: created.id, secret: created.secret }
  }).pipe(inputErrors)

/** Send Test to one webhook; prints the attempt's log entry. */
export const testWebhook = (webhookId: string) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const repo = yield* makeWebhooksRepo
    const workspaceId = yield* repo.findAnywhere(webhookId).pipe(Effect.orDie)
    if (Option.isNone(workspaceId)) return yield* new AdminInputError({ message: `No webhook ${webhookId}.` })
    return yield* webhooks.sendTest(webhookId).pipe(authorize("webhooks.manage"), asOwner(workspaceId.value))
  }).pipe(inputErrors)
