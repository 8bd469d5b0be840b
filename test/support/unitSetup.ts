/**
 * Unit tests run without servers (`npm run test:unit`). Pointing every server address at
 * a closed port makes a unit test that reaches for Postgres, NATS or Redis fail at once,
 * even on a machine where they are running, instead of passing there and failing in CI.
 */
const closed = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:1/unit_tests_use_no_database",
  NATS_URL: "nats://127.0.0.1:1",
  REDIS_URL: "redis://127.0.0.1:1"
}
Object.assign(process.env, closed)
