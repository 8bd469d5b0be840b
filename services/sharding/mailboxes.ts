import { Effect } from "effect"
import { ReleasingMap } from "../platform/releasingMap.js"

interface Mailbox {
  /** Settles when the last command that joined this mailbox has finished (or left). */
  tail: Promise<void>
  /** Commands running or waiting here. */
  users: number
}

/** The tail of a new mailbox: nothing in line. */
const settled = Promise.resolve()

/**
 * One mailbox per workspace: commands of one workspace run one after another (in
 * arrival order), commands of different workspaces run in parallel. A mailbox
 * exists only while it has work (activated on first message, passivated when idle).
 *
 * Each command takes its place in line synchronously when it starts (a chain of
 * promises, one link per command), so a command arriving just as another finishes
 * cannot overtake one already waiting. (An Effect Semaphore does not keep that
 * order: a free permit can be taken by a newcomer before the woken waiter runs, and
 * the waiter then goes to the back of the line.)
 */
export const makeMailboxes = () => {
  // a ReleasingMap: mailboxes come and go with every command (see releasingMap.ts)
  const boxes = new ReleasingMap<string, Mailbox>()
  return {
    run: <A, E, R>(workspaceId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let box = boxes.get(workspaceId)
          if (box === undefined) {
            box = { tail: settled, users: 0 }
            boxes.set(workspaceId, box)
          }
          // alone in a mailbox just made: nobody to wait for (a mailbox is dropped when it empties)
          const first = box.users === 0 && box.tail === settled
          box.users++
          const previous = box.tail
          let finished!: () => void
          box.tail = new Promise<void>((resolve) => (finished = resolve))
          return { box, previous, finished, first }
        }),
        ({ first, previous }) => (first ? effect : Effect.promise(() => previous).pipe(Effect.zipRight(effect))),
        ({ box, previous, finished }) =>
          Effect.sync(() => {
            // the next in line starts once the one before us is over too (this matters
            // when we were interrupted while still waiting for our turn)
            void previous.then(finished)
            box.users--
            if (box.users === 0 && boxes.get(workspaceId) === box) boxes.delete(workspaceId)
          })
      ),
    active: () => boxes.size
  }
}

export type Mailboxes = ReturnType<typeof makeMailboxes>
