/**
 * Runs a benchmark's `main` and exits: 0 when it finished, 1 with the error printed. The
 * exit ends whatever the benchmark's clients (NATS, Postgres pools) still keep open.
 */
export const runBench = (main: () => Promise<void>) =>
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e)
      process.exit(1)
    }
  )
