import { createHmac, randomBytes } from "node:crypto"

/**
 * Webhook secrets and the two signatures of every delivery (spec: Delivery; docs/webhooks.md,
 * "Verifying signatures"). One secret string serves both verifiers:
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body, keyed with the whole
 *   secret string (as `@octokit/webhooks-methods` `verify(secret, body, header)` does);
 * - Standard Webhooks (`webhook-signature: v1,<base64>` over `id.timestamp.body`): the
 *   `standardwebhooks` library strips `whsec_` and base64-decodes the rest as the key,
 *   so the secret is `whsec_` + base64 of 32 random bytes.
 */

export const SECRET_PREFIX = "whsec_"

export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`

/** `sha256=` and the lowercase hex HMAC-SHA256 of the exact body bytes. */
export const serviceSignature = (secret: string, body: string | Buffer): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the decoded secret. */
export const standardSignature = (secret: string, id: string, timestampSeconds: number, body: string | Buffer): string => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  const hmac = createHmac("sha256", key).update(`${id}.${timestampSeconds}.`).update(body)
  return `v1,${hmac.digest("base64")}`
}

/** Every header of one attempt; the body is signed exactly as it is sent. */
export const deliveryHeaders = (input: {
  readonly secret: string
  readonly deliveryId: string
  readonly event: string
  readonly body: string
  readonly sentAt: Date
  /** The event's number in the workspace's event log; null for a Send Test (no header). */
  readonly sequence?: number | null
}): Record<string, string> => {
  const timestamp = Math.floor(input.sentAt.getTime() / 1000)
  return {
    "content-type": "application/json",
    "user-agent": "Service-Webhooks/1",
    "x-service-event": input.event,
    "x-service-signature": serviceSignature(input.secret, input.body),
    // stable across attempts, so a receiver can drop a repeat
    "webhook-id": input.deliveryId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignature(input.secret, input.deliveryId, timestamp, input.body),
    // a receiver that sees a gap in these fills it from GET /public/v1/events?after=<the last it has>
    ...(input.sequence === null || input.sequence === undefined ? {} : { "x-service-sequence": String(input.sequence) })
  }
}
