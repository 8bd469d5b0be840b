/**
 * What V8's young-generation GC did in a service while it was measured, read from the
 * lines `--trace-gc-nvp` writes (one per GC, `[pid:isolate] N ms: pause=… gc=s … promoted=…`).
 *
 * The figure to watch is the bytes promoted per scavenge: a request's objects should die
 * young, and when something keeps them alive past two scavenges (a generator function or a
 * constructor made per request, a churned Map or Set, a pretenured literal; docs/performance.md,
 * "Runtime settings") they are copied to the old generation, every scavenge takes longer, and full
 * GCs come sooner: the pauses that decided the half-rate p99.
 */

/** The node flag that makes V8 write the lines read here. */
export const gcTraceFlag = "--trace-gc-nvp"

export interface IsolateGc {
  /** Scavenges (young-generation GCs) in the text. */
  readonly scavenges: number
  readonly promotedBytes: number
  readonly pauseMsTotal: number
  readonly pauseMsMax: number
  /** Full GCs (mark-compact) in the text. */
  readonly fullGcs: number
}

const line = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: pause=([\d.]+) .*?\bgc=(\w+)\b(.*)$/

/** The isolates that wrote GC lines, in order of their first line: a process's main thread, then its worker threads. */
export const isolatesOf = (text: string): ReadonlyArray<string> => [...new Set(text.split("\n").flatMap((l) => line.exec(l)?.[1] ?? []))]

/** Per isolate: what its GCs in the text did. */
export const gcOf = (text: string): ReadonlyMap<string, IsolateGc> => {
  const byIsolate = new Map<string, { scavenges: number; promotedBytes: number; pauseMsTotal: number; pauseMsMax: number; fullGcs: number }>()
  for (const l of text.split("\n")) {
    const m = line.exec(l)
    if (m === null) continue
    const [, isolate = "", pause = "0", kind = "", rest = ""] = m
    const gc = byIsolate.get(isolate) ?? { scavenges: 0, promotedBytes: 0, pauseMsTotal: 0, pauseMsMax: 0, fullGcs: 0 }
    byIsolate.set(isolate, gc)
    if (kind === "s") {
      gc.scavenges++
      gc.promotedBytes += Number(/\bpromoted=(\d+)/.exec(rest)?.[1] ?? 0)
      gc.pauseMsTotal += Number(pause)
      gc.pauseMsMax = Math.max(gc.pauseMsMax, Number(pause))
    } else if (kind === "mc") gc.fullGcs++
  }
  return byIsolate
}

/** The output a process wrote between two reads of all of it (empty when it was cut in between). */
export const writtenSince = (before: string, after: string) => (after.startsWith(before) ? after.slice(before.length) : "")

/** One isolate's figures on one line. */
export const formatGc = (name: string, gc: IsolateGc) =>
  gc.scavenges === 0
    ? `${name}: no scavenge`
    : `${name}: ${gc.scavenges} scavenges, promoted ${(gc.promotedBytes / gc.scavenges / 1e6).toFixed(2)} MB each, ` +
      `pause ${(gc.pauseMsTotal / gc.scavenges).toFixed(1)} ms mean (${gc.pauseMsMax.toFixed(1)} max); ${gc.fullGcs} full GC${gc.fullGcs === 1 ? "" : "s"}`
