import type { TestProject } from "vitest/node"
import { reachable, urlsFromEnv, type ServerUrls } from "./servers.js"

declare module "vitest" {
  export interface ProvidedContext {
    servers: ServerUrls
  }
}

/**
 * Finds Postgres, NATS (JetStream) and Redis: the ones named by DATABASE_URL, NATS_URL,
 * REDIS_URL or on localhost. Where one is not reachable and a container engine is,
 * it is started with testcontainers for the run.
 */
export default async function setup(project: TestProject) {
  const urls = urlsFromEnv()
  const stops: Array<() => Promise<unknown>> = []
  const found = {
    databaseUrl: await reachable(urls.databaseUrl, 5432),
    natsUrl: await reachable(urls.natsUrl, 4222),
    redisUrl: await reachable(urls.redisUrl, 6379)
  }
  let servers: ServerUrls = urls
  if (!found.databaseUrl || !found.natsUrl || !found.redisUrl) {
    const { GenericContainer, Wait } = await import("testcontainers")
    try {
      if (!found.databaseUrl) {
        const pg = await new GenericContainer("postgres:15-alpine")
          .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
          .withExposedPorts(5432)
          .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
          .start()
        stops.push(() => pg.stop())
        servers = { ...servers, databaseUrl: `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres` }
      }
      if (!found.natsUrl) {
        const nats = await new GenericContainer("nats:2.9").withCommand(["-js"]).withExposedPorts(4222).start()
        stops.push(() => nats.stop())
        servers = { ...servers, natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}` }
      }
      if (!found.redisUrl) {
        const redis = await new GenericContainer("redis:7-alpine").withExposedPorts(6379).start()
        stops.push(() => redis.stop())
        servers = { ...servers, redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}` }
      }
    } catch (e) {
      const missing = Object.entries(found)
        .filter(([, ok]) => !ok)
        .map(([k]) => k)
      throw new Error(
        `Not reachable: ${missing.join(", ")}, and no container engine to start them (${String(e)}). ` +
          "Start the servers (see docs/testing.md) or set DATABASE_URL, NATS_URL, REDIS_URL."
      )
    }
  }
  project.provide("servers", servers)
  return async () => {
    for (const stop of stops) await stop()
  }
}
