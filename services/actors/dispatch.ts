import { Effect, Schema } from "effect"
import type { ActorEnvelope } from "../../protocol/actors.js"
import { deleteChannel } from "./commands/deleteChannel.js"

/** Runs one command and serializes its Exit with the command's own schemas. */
export const dispatch = (envelope: ActorEnvelope) => {
  const { principal, command } = envelope
  switch (command._tag) {
    case "DeleteChannel":
      return deleteChannel(principal, command).pipe(
        Effect.exit,
        Effect.flatMap((exit) => Schema.serializeExit(command, exit))
      )
  }
}
