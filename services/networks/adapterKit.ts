import { Config, Effect, Either, Redacted, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { ToolMessages } from "../../domain/posts/messages.js"
import { ConnectFailed, type Credentials, type Metric, type NetworkAnswer, PublishAnswer, SearchAnswer, Statistics } from "./adapter.js"
import type { MediaFile, MediaFilesShape } from "./networkDeps.js"
import { excerpt } from "./networkHttp.js"
import type { StoredMedia } from "./storedMedia.js"

/** Pieces every adapter uses the same way: reading credentials and files, and plain answers. */

/** The channel's credentials decoded with the network's schema; a channel saved otherwise must be reconnected. */
export const readCredentials =
  <A, I>(schema: Schema.Schema<A, I>, networkName: string) =>
  (credentials: Redacted.Redacted<Credentials>): Effect.Effect<A, PublishAnswer> =>
    Either.match(Schema.decodeUnknownEither(schema)(Redacted.value(credentials)), {
      onLeft: () =>
        Effect.fail(
          PublishAnswer.Rejected({
            message: `The channel's ${networkName} connection is missing fields this server needs.`,
            fix: "Reconnect the channel, then retry the post."
          })
        ),
      onRight: Effect.succeed
    })

/** Decodes `--credentials` for verify: a plain message naming what is wrong. */
export const decodeForVerify =
  <A, I>(schema: Schema.Schema<A, I>, networkName: string, fields: string) =>
  (input: unknown) =>
    Effect.mapError(Schema.decodeUnknown(schema)(input), () => new ConnectFailed({ message: `${networkName} credentials need ${fields}.` }))

/** Every file of the item, read for upload; one that cannot be read fails the item with a fix. */
export const readAllMedia = (media: MediaFilesShape, files: ReadonlyArray<StoredMedia>): Effect.Effect<ReadonlyArray<MediaFile>, PublishAnswer> =>
  Effect.forEach(files, (file) =>
    media
      .read(file)
      .pipe(Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." })))
  )

/** What a verify call that got no usable answer means to the person connecting. */
export const connectFailedFrom = (networkName: string, answer: NetworkAnswer): ConnectFailed => {
  if (answer._tag === "Failed") {
    return new ConnectFailed({
      message: `${networkName} could not be reached (${answer.error._tag}${"reason" in answer.error ? `: ${answer.error.reason}` : ""}).`
    })
  }
  const { response } = answer
  if (response.status === 401 || response.status === 403) {
    return new ConnectFailed({ message: `${networkName} refused these credentials (${response.status}): ${excerpt(response, 160)}` })
  }
  return new ConnectFailed({ message: `${networkName} answered ${response.status} instead of the account: ${excerpt(response, 160)}` })
}

export const cannotSearch = (networkName: string) =>
  Effect.succeed(SearchAnswer.CannotTell({ reason: `${networkName} cannot search an account's recent posts` }))

export const noStatistics = (networkName: string) =>
  Effect.succeed(Statistics.Missing({ message: `${networkName} does not share statistics with this service.` }))

const today = () => new Date().toISOString().slice(0, 10)

/** A metric with one data point dated today (spec: post statistics; counts a network gives as totals). */
export const metricToday = (label: string, total: number, help?: string): Metric => ({
  label,
  ...(help === undefined ? {} : { help }),
  percentageChange: 0,
  data: [{ total, date: today() }]
})

/** A tool the adapter does not have (the registry checks the network's list first). */
export const unknownTool = (methodName: string, networkName: string, names: ReadonlyArray<string>) =>
  Effect.fail(Errors.badRequest(ToolMessages.unknownTool(methodName, networkName, names)))

/** An effect whose failure is already the answer (a PublishAnswer short-circuit). */
export const answerOf = (effect: Effect.Effect<PublishAnswer, PublishAnswer>): Effect.Effect<PublishAnswer> => Effect.catchAll(effect, Effect.succeed)

/** The environment name of a network's setting: the catalog id in capitals, `-` as `_` (`INSTAGRAM_STANDALONE_API_URL`). */
export const networkEnvName = (network: string, setting: "CLIENT_ID" | "CLIENT_SECRET" | "API_URL" | "AUTH_URL") =>
  `${network.toUpperCase().replace(/-/g, "_")}_${setting}`

/**
 * A network's app registration and addresses under the fixed names (docs/networks.md,
 * "Configuration of the networks"): `<NETWORK>_CLIENT_ID`, `<NETWORK>_CLIENT_SECRET`,
 * `<NETWORK>_API_URL` and `<NETWORK>_AUTH_URL`, the addresses defaulting to the network's own.
 */
export const networkAppConfig = (network: string, defaults: { readonly apiUrl: string; readonly authUrl: string }) =>
  Config.all({
    apiUrl: Config.string(networkEnvName(network, "API_URL")).pipe(Config.withDefault(defaults.apiUrl)),
    authUrl: Config.string(networkEnvName(network, "AUTH_URL")).pipe(Config.withDefault(defaults.authUrl)),
    clientId: Config.option(Config.string(networkEnvName(network, "CLIENT_ID"))),
    clientSecret: Config.option(Config.redacted(networkEnvName(network, "CLIENT_SECRET")))
  }).pipe(Effect.orDie)
