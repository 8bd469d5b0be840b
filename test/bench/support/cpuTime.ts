import { readdirSync, readFileSync } from "node:fs"

/** utime + stime of a process in clock ticks (Linux /proc; 100 ticks a second); 0 once it is gone. */
export const cpuTicks = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** The pids of every process whose command name is `comm` (for example every Postgres backend). */
const pidsNamed = (comm: string): Array<number> =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, "utf8").trim() === comm
      } catch {
        return false
      }
    })
    .map(Number)

/**
 * CPU time spent by named parts of the system while `run` runs, in milliseconds: each part
 * is a list of pids, or a command name whose processes are summed (a Postgres backend
 * started meanwhile counts from zero). Shows where a request's CPU goes on a shared machine.
 */
export const cpuDuring = async <A>(
  parts: Record<string, ReadonlyArray<number> | string>,
  run: () => Promise<A>
): Promise<{ readonly result: A; readonly cpuMs: Record<string, number> }> => {
  const pidsOf = (p: ReadonlyArray<number> | string) => (typeof p === "string" ? pidsNamed(p) : p)
  const before = new Map(Object.entries(parts).map(([k, p]) => [k, new Map(pidsOf(p).map((pid) => [pid, cpuTicks(pid)]))]))
  const result = await run()
  const cpuMs: Record<string, number> = {}
  for (const [k, p] of Object.entries(parts)) {
    const start = before.get(k) ?? new Map<number, number>()
    cpuMs[k] = pidsOf(p).reduce((sum, pid) => sum + cpuTicks(pid) - (start.get(pid) ?? 0), 0) * 10
  }
  return { result, cpuMs }
}
