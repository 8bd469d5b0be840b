import { Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { jsonLogger, redactSecrets } from "../../services/platform/logging.js"

describe("no secret in a log line (services/platform/logging.ts)", () => {
  it.each([
    ["a workspace key", "key svc_live_AbC123-_xyz used", "svc_live_AbC123-_xyz"],
    ["an OAuth token", "token svc_oat_Zz9 refused", "svc_oat_Zz9"],
    ["a CLI token", "svc_cli_abc", "svc_cli_abc"],
    ["a webhook secret", "secret whsec_c2VjcmV0 rotated", "whsec_c2VjcmV0"],
    ["a bearer header", "Authorization: Bearer eyJhbGciOi.x.y", "eyJhbGciOi.x.y"],
    ["a URL's password", "cannot reach postgres://app:hunter2@db:5432/x", "hunter2"],
    ["a query's token", "GET /cb?code=abc123&state=s", "abc123"],
    ["a JSON password", '{"email":"a@b.c","password":"pa55word"}', "pa55word"],
    ["a network access token", 'credentials {"accessToken": "tok-123"} refused', "tok-123"],
    ["a client secret", "client_secret=shh", "shh"],
    ["a CLI password flag", "user create --password pa55word --role owner", "pa55word"]
  ])("%s is redacted", (_, text, secret) => {
    const redacted = redactSecrets(text)
    expect(redacted).not.toContain(secret)
    expect(redacted).toContain("[REDACTED]")
  })

  it("a JSON line redacts the message, the annotations and the cause", () => {
    const lines: Array<string> = []
    const logger = Logger.map(jsonLogger("test"), (line) => void lines.push(line))
    Effect.runSync(
      Effect.logError("failed with svc_live_secret1", new Error("x")).pipe(
        Effect.annotateLogs("header", "Bearer svc_oat_secret2"),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
    )
    const line = JSON.parse(lines[0] ?? "{}")
    expect(line).toMatchObject({ level: "error", service: "test" })
    expect(lines[0]).not.toContain("secret1")
    expect(lines[0]).not.toContain("secret2")
  })
})
