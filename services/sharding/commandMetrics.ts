import { Predicate } from "effect"
import { actorCommandDuration } from "../platform/metrics.js"

/** actor_command_duration_seconds of one command: ok when its serialized Exit is a success. */
export const observeCommand = (command: string, exit: unknown, startedAt: number) => {
  const outcome = Predicate.hasProperty(exit, "_tag") && exit._tag === "Success" ? "ok" : "failed"
  actorCommandDuration.observe({ command, outcome }, (performance.now() - startedAt) / 1000)
}
