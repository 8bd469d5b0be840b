import { Effect, Option, type ParseResult, Schema } from "effect"
import { ApiError } from "../../domain/errors.js"
import type { ActorEnvelope } from "../../protocol/actors.js"
import { admitCreatePosts, createPosts } from "./commands/createPosts.js"
import { deleteChannel } from "./commands/deleteChannel.js"
import { deletePost, movePost, reviewPost, setPostSettings, setPostStatus } from "./commands/postCommands.js"
import type { Mailboxes } from "./mailboxes.js"

/**
 * Runs one command in its workspace's mailbox and serializes the Exit with the
 * command's own schemas. POST /posts is admitted first, outside the mailbox, so a
 * request over the rate limit or with a key already in flight answers at once.
 */
export const dispatch = (envelope: ActorEnvelope, mailboxes: Mailboxes) => {
  const { command, principal } = envelope
  const inMailbox = <A, R>(effect: Effect.Effect<A, ApiError, R>) => mailboxes.run(principal.workspaceId, effect)
  const reply = <A, I, R>(
    request: Schema.WithResult<A, I, ApiError, typeof ApiError.Encoded, never>,
    effect: Effect.Effect<A, ApiError, R>
  ): Effect.Effect<unknown, ParseResult.ParseError, R> =>
    // the encoded Exit is plain JSON for the reply; the gateway decodes it with the same schemas
    effect.pipe(Effect.exit, Effect.flatMap((exit) => Schema.serializeExit(request, exit)))
  switch (command._tag) {
    case "DeleteChannel":
      return reply(command, inMailbox(deleteChannel(principal, command)))
    case "CreatePosts":
      return reply(
        command,
        admitCreatePosts(principal, command).pipe(
          Effect.flatMap(({ release, replay }) =>
            Option.isSome(replay)
              ? Effect.succeed(replay.value)
              : inMailbox(createPosts(principal, command)).pipe(Effect.ensuring(release))
          )
        )
      )
    case "MovePost":
      return reply(command, inMailbox(movePost(principal, command)))
    case "SetPostStatus":
      return reply(command, inMailbox(setPostStatus(principal, command)))
    case "SetPostSettings":
      return reply(command, inMailbox(setPostSettings(principal, command)))
    case "DeletePost":
      return reply(command, inMailbox(deletePost(principal, command)))
    case "ReviewPost":
      return reply(command, inMailbox(reviewPost(principal, command)))
  }
}
