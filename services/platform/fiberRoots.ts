import { Fiber } from "effect"
import { globalValue } from "effect/GlobalValue"
import { ReleasingMap } from "./releasingMap.js"

/**
 * Effect keeps every running root fiber (each `runFork`/`runPromise`, so each HTTP request
 * and each NATS message handled) in one process-wide `Set` until it ends
 * (`globalScope.roots`, read back only by `Fiber.roots`). A Set that lives for the whole
 * process and sees thousands of adds and deletes a second keeps, through V8's links from
 * old hash tables to new ones, every fiber it ever held reachable for the young-generation
 * GC until the next full GC (see ReleasingMap). This puts a registry keyed by fiber id,
 * whose removed entries let go of their fiber, in its place; `Fiber.roots` still lists the
 * running root fibers.
 */
class FiberRootRegistry {
  private readonly byId = new ReleasingMap<number, Fiber.RuntimeFiber<unknown, unknown>>()

  get size(): number {
    return this.byId.size
  }

  add(fiber: Fiber.RuntimeFiber<unknown, unknown>): this {
    this.byId.set(fiber.id().id, fiber)
    return this
  }

  delete(fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean {
    return this.byId.delete(fiber.id().id)
  }

  [Symbol.iterator](): IterableIterator<Fiber.RuntimeFiber<unknown, unknown>> {
    return this.byId.values()
  }
}

/** Effect's global fiber scope, as `effect/internal/fiberScope` registers it. */
const globalFiberScope = (): unknown => globalValue(Symbol.for("effect/FiberScope/Global"), () => undefined)

/** What start logs as a warning when installFiberRootRegistry finds another runtime: what is lost, and where the pin is explained. */
export const fiberRootRegistryNotInstalled =
  "performance patch not applied: Effect's root-fiber Set is not where services/platform/fiberRoots.ts expects it " +
  "(written for effect 3.22.4, the exact pin: docs/house-rules.md#the-effect-pin). The service works, but each ended " +
  "request's fiber stays reachable for the young-generation GC until a full GC: more promotion, longer GC pauses, a higher POST /posts p99"

/**
 * Replaces the root-fiber Set of this thread's Effect runtime by a FiberRootRegistry
 * (once per thread, before the services start). Returns false, changing nothing, when
 * the runtime does not have the shape this was written for (another Effect version).
 */
export const installFiberRootRegistry = (): boolean => {
  const scope = globalFiberScope()
  if (typeof scope !== "object" || scope === null || !("roots" in scope)) return false
  if (scope.roots instanceof FiberRootRegistry) return true
  if (!(scope.roots instanceof Set)) return false
  const registry = new FiberRootRegistry()
  for (const fiber of scope.roots) if (Fiber.isFiber(fiber) && Fiber.isRuntimeFiber(fiber)) registry.add(fiber)
  Reflect.set(scope, "roots", registry)
  return true
}
