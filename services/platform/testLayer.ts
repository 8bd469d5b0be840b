import { Effect, Layer, type Context } from "effect"

/**
 * A Test layer for a service from the methods a test needs; any other method dies with a
 * message naming it (the Effect team's http-server example does the same). Used by unit
 * tests that run a service without its servers.
 */
export const makeTestLayer =
  <I, S extends object>(tag: Context.Tag<I, S>) =>
  (implemented: Partial<S>): Layer.Layer<I> =>
    Layer.succeed(
      tag,
      new Proxy(
        { ...implemented },
        {
          get: (target, property) =>
            property in target
              ? target[property as keyof typeof target]
              : () => Effect.die(`${tag.key}: ${String(property)} is not implemented in this test`)
        }
      ) as S
    )
