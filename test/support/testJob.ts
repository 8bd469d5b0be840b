import { Schema } from "effect"

/** The job of the consumer fault tests: held for `holdMs` by the handler. */
export const TestJob = Schema.Struct({ id: Schema.String, holdMs: Schema.Number })
export const TestJobJson = Schema.parseJson(TestJob)
