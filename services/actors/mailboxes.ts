import { Effect } from "effect"

/**
 * One mailbox per workspace: commands of one workspace run one after another (in
 * arrival order), commands of different workspaces run in parallel. A mailbox
 * exists only while it has work (activated on first message, passivated when idle).
 */
export const makeMailboxes = () => {
  const boxes = new Map<string, { readonly lock: Effect.Semaphore; users: number }>()
  return {
    run: <A, E, R>(workspaceId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let box = boxes.get(workspaceId)
          if (box === undefined) {
            box = { lock: Effect.unsafeMakeSemaphore(1), users: 0 }
            boxes.set(workspaceId, box)
          }
          box.users++
          return box
        }),
        (box) => box.lock.withPermits(1)(effect),
        (box) =>
          Effect.sync(() => {
            box.users--
            if (box.users === 0) boxes.delete(workspaceId)
          })
      ),
    active: () => boxes.size
  }
}

export type Mailboxes = ReturnType<typeof makeMailboxes>
