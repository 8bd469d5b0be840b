import { defineConfig } from "vitest/config"

// Shared by both projects: each file gets its own database and NATS/Redis namespace
// (test/support/system.ts), so files run in parallel.
const common = {
  fileParallelism: true,
  testTimeout: 30_000,
  hookTimeout: 60_000
}

export default defineConfig({
  test: {
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        // pure code: no Postgres, NATS or Redis (`npm run test:unit`)
        test: {
          ...common,
          name: "unit",
          // a network's adapter tests live in its folder (docs/networks.md, "Adding a network")
          include: ["test/unit/**/*.test.ts", "services/networks/**/*.test.ts"],
          setupFiles: ["test/support/unitSetup.ts"]
        }
      },
      {
        // the services against real servers, found or started by the global setup
        test: {
          ...common,
          name: "system",
          include: ["test/system/**/*.test.ts", "test/faults/**/*.test.ts"],
          globalSetup: ["test/support/globalSetup.ts"]
        }
      }
    ]
  }
})
