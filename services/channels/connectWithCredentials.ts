import { Data, Effect, Option } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { saveConnection } from "./channelConnections.js"

/** The credentials were not taken: the network refused them, or they are not its fields. */
export class CredentialsRefused extends Data.TaggedError("CredentialsRefused")<{ readonly message: string }> {}

/**
 * The admin CLI's `channel create --credentials`: checks the credentials against the
 * network (the adapter's verify) and stores the channel exactly as a sign-in would, so
 * any network connects without a browser. The adapters are built for this call.
 */
export const connectWithCredentials = (input: {
  readonly workspaceId: string
  readonly network: string
  readonly name: string
  readonly customerId: string | null
  readonly postingTimes: ReadonlyArray<string>
  readonly credentials: unknown
}) =>
  Effect.gen(function* () {
    const adapters = yield* NetworkAdapters
    const network = findNetwork(input.network)
    const networkName = Option.match(network, { onNone: () => input.network, onSome: (n) => n.name })
    const noPublicApi = Option.flatMapNullable(network, (n) => n.noPublicApi)
    if (Option.isSome(noPublicApi)) return yield* new CredentialsRefused({ message: noPublicApi.value })
    const adapter = adapters.find(input.network)
    if (Option.isNone(adapter)) return yield* new CredentialsRefused({ message: `This server cannot connect ${networkName}.` })
    const connected = yield* adapter.value.verify(input.credentials).pipe(Effect.mapError((e) => new CredentialsRefused({ message: e.message })))
    return yield* saveConnection({
      workspaceId: input.workspaceId,
      network: input.network,
      customerId: input.customerId,
      refreshChannelId: null,
      connected,
      name: input.name.trim() === "" ? null : input.name,
      postingTimes: input.postingTimes
    }).pipe(
      Effect.catchTag("ReconnectRefused", (e) => Effect.fail(new CredentialsRefused({ message: e.message }))),
      Effect.catchTag("PlanLimit", (e) => Effect.fail(new CredentialsRefused({ message: `${e.error} ${e.fix ?? ""}`.trim() })))
    )
  }).pipe(Effect.provide(NetworkAdapters.Default))
