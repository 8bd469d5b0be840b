import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/system/**/*.test.ts", "test/faults/**/*.test.ts"],
    // each file gets its own database and NATS/Redis namespace (test/support/env.ts)
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/support/globalSetup.ts"]
  }
})
