/**
 * Every NATS subject, stream, consumer and KV bucket name, and every Redis key prefix,
 * derived from NAMESPACE so several deployments or test runs share one server.
 */
export const names = (namespace: string) => {
  const upper = namespace.toUpperCase().replace(/-/g, "_")
  return {
    /** Commands for the workspaces of one shard: request/reply to its lease owner. */
    shardCommands: (shard: number) => `${namespace}.ws.cmd.${shard}`,
    /** Broadcast: a token was rotated or revoked, or billing changed (caches clear). */
    authChanged: `${namespace}.auth.changed`,
    eventsStream: `${upper}_EVENTS`,
    eventsSubject: (event: string) => `${namespace}.events.${event}`,
    eventsSubjects: `${namespace}.events.>`,
    publishStream: `${upper}_PUBLISH`,
    publishSubject: (channelId: string) => `${namespace}.publish.${channelId}`,
    publishSubjects: `${namespace}.publish.>`,
    /** Media preparation jobs: one per (file, rendition target). */
    prepareStream: `${upper}_PREPARE`,
    prepareSubject: (mediaId: string) => `${namespace}.prepare.${mediaId}`,
    prepareSubjects: `${namespace}.prepare.>`,
    preparationConsumer: `${namespace}_media_preparation`,
    deliveriesStream: `${upper}_DELIVERIES`,
    deliveriesSubject: (webhookId: string) => `${namespace}.deliveries.${webhookId}`,
    deliveriesSubjects: `${namespace}.deliveries.>`,
    publisherConsumer: `${namespace}_publisher`,
    webhookFanoutConsumer: `${namespace}_webhook_fanout`,
    deliveryConsumer: `${namespace}_webhook_delivery`,
    /** KV: shard → owner host, with a TTL so a dead host's leases expire. */
    shardLeasesBucket: `${namespace}_shard_leases`,
    /** KV: live actor hosts, renewed like leases; used to share shards evenly. */
    actorHostsBucket: `${namespace}_actor_hosts`,
    redisKey: (...parts: ReadonlyArray<string>) => [namespace, ...parts].join(":")
  }
}

export type Names = ReturnType<typeof names>
