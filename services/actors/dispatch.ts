import { Effect, Option, type ParseResult, Schema } from "effect"
import type { ActorEnvelope } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { authorize } from "../platform/policy.js"
import { PostWriter } from "../posts/PostWriter.js"
import { admitCreatePosts } from "./commands/admission.js"
import type { Mailboxes } from "./mailboxes.js"

/**
 * Runs one command in its workspace's mailbox, as the principal the gateway sent, after
 * checking its role (domain/policy.ts), and serializes the Exit with the command's own
 * schemas. POST /posts is admitted first, outside the mailbox, so a request over the rate
 * limit or with a key already in flight answers at once.
 */
export const dispatch = (envelope: ActorEnvelope, mailboxes: Mailboxes) => {
  const { command, principal } = envelope
  const inMailbox = <A, E, R>(effect: Effect.Effect<A, E, R>) => mailboxes.run(principal.workspaceId, effect)
  const reply = <A, I, E, EI, R>(
    request: Schema.WithResult<A, I, E, EI, never>,
    effect: Effect.Effect<A, NoInfer<E>, R>
  ): Effect.Effect<unknown, ParseResult.ParseError, Exclude<R, CurrentPrincipal>> =>
    // the encoded Exit is plain JSON for the reply; the gateway decodes it with the same schemas
    effect.pipe(
      Effect.exit,
      Effect.flatMap((exit) => Schema.serializeExit(request, exit)),
      Effect.provideService(CurrentPrincipal, principal)
    )
  return Effect.flatMap(PostWriter, (writer) => {
    switch (command._tag) {
      case "DeleteChannel":
        return reply(command, inMailbox(writer.deleteChannel(command).pipe(authorize("channels.delete"))))
      case "CreatePosts":
        return reply(
          command,
          admitCreatePosts(principal, command).pipe(
            Effect.flatMap(({ release, replay }) =>
              Option.isSome(replay)
                ? Effect.succeed(replay.value)
                : inMailbox(writer.create(command).pipe(authorize("posts.write"))).pipe(Effect.ensuring(release))
            )
          )
        )
      case "MovePost":
        return reply(command, inMailbox(writer.move(command).pipe(authorize("posts.write"))))
      case "SetPostStatus":
        return reply(command, inMailbox(writer.setStatus(command).pipe(authorize("posts.write"))))
      case "SetPostSettings":
        return reply(command, inMailbox(writer.setSettings(command).pipe(authorize("posts.write"))))
      case "DeletePost":
        return reply(command, inMailbox(writer.delete(command).pipe(authorize("posts.write"))))
      case "ReviewPost":
        return reply(command, inMailbox(writer.review(command).pipe(authorize("posts.review"))))
    }
  })
}
