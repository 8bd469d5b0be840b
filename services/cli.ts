import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either, Layer } from "effect"
import { makeAdminOperations } from "./admin/operations.js"
import { createWebhook, testWebhook } from "./admin/webhookCommands.js"
import { Webhooks } from "./webhooks/Webhooks.js"
import { parseAdminArgs, usage, type AdminCommand } from "./admin/cliArgs.js"
import { AppConfigLive } from "./platform/config.js"
import { DatabaseLive } from "./platform/db.js"
import { LoggingLive } from "./platform/logging.js"

/**
 * The operators' CLI: `npm run -s admin -- <noun> <verb> --flags`. JSON on stdout;
 * bad arguments print a message and exit 2; a server that cannot be reached, exit 1.
 */
const run = (command: AdminCommand) =>
  Effect.gen(function* () {
    const ops = yield* makeAdminOperations
    switch (command._tag) {
      case "WorkspaceCreate":
        return yield* ops.createWorkspace({ name: command.name, plan: command.plan, ...(command.trial === true ? { trial: true } : {}) })
      case "UserCreate": {
        const { _tag, ...user } = command
        return yield* ops.createUser(user)
      }
      case "CustomerCreate":
        return yield* ops.createCustomer({ workspaceId: command.workspaceId, name: command.name, approval: command.approval })
      case "ChannelCreate": {
        const { _tag, ...channel } = command
        return yield* ops.createChannel(channel)
      }
      case "KeyRotate":
        return yield* ops.rotateKey(command.workspaceId)
      case "BillingSet": {
        const { _tag, ...billing } = command
        return yield* ops.setBilling(billing)
      }
      case "WebhookCreate": {
        const { _tag, ...webhook } = command
        return yield* createWebhook(webhook)
      }
      case "WebhookTest":
        return yield* testWebhook(command.webhookId)
    }
  })

const fail = (code: number) => (e: { readonly message: string }) =>
  Effect.sync(() => {
    process.stderr.write(`${e.message}\n`)
    process.exitCode = code
  })

const main = (command: AdminCommand) =>
  run(command).pipe(
    Effect.flatMap((result) => Console.log(JSON.stringify(result))),
    Effect.provide(Webhooks.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(AppConfigLive))),
    // stdout is the command's JSON answer only: log lines (OUTBOUND_ALLOW at start, …) go to stderr
    Effect.provide(LoggingLive({ service: "admin", stream: "stderr" })),
    Effect.catchTags({ AdminInputError: fail(2), DatabaseUnavailable: fail(1), SecretKeyMissing: fail(1), PublicUrlInvalid: fail(1) }),
    Effect.catchAllCause((cause) => fail(1)({ message: `admin: ${cause.toString()}` }))
  )

const parsed = parseAdminArgs(process.argv.slice(2))
if (Either.isLeft(parsed)) {
  process.stderr.write(`${parsed.left}\n\n${usage}\n`)
  process.exit(2)
} else {
  NodeRuntime.runMain(main(parsed.right), { disableErrorReporting: true, disablePrettyLogger: true })
}
