export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `probe` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await sleep(150)
  }
}
