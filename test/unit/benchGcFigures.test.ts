import { describe, expect, it } from "vitest"
import { formatGc, gcOf, isolatesOf, writtenSince } from "../bench/support/gcFigures.js"

// lines as node --trace-gc-nvp writes them (the fields between cut short), two isolates of one process
const scavenge = (isolate: string, ms: number, pause: number, promoted: number) =>
  `[17670:${isolate}]   ${ms} ms: pause=${pause} mutator=23.1 gc=s reduce_memory=0 time_to_safepoint=0.00 heap.prologue=0.00 ` +
  `allocated=1040224 promoted=${promoted} new_space_survived=342288 nodes_died_in_new=13 nodes_promoted=1 promotion_ratio=0.0%`
const fullGc = (isolate: string, ms: number) =>
  `[17670:${isolate}]   ${ms} ms: pause=2.0 mutator=9.3 gc=mc reduce_memory=0 time_to_safepoint=0.00 promoted=0`
const main = "0xc669020"
const worker = "0x7f97a8000f00"

describe("the posts bench's GC figures (--trace-gc-nvp lines)", () => {
  it("names the isolates in order of their first line, the main thread's first", () => {
    const text = [
      scavenge(main, 27, 0.5, 0),
      '{"level":"info","message":"starting"}',
      scavenge(worker, 30, 0.4, 0),
      scavenge(main, 60, 0.6, 10)
    ].join("\n")
    expect(isolatesOf(text)).toEqual([main, worker])
  })

  it("adds up each isolate's scavenges, promoted bytes and pauses, and counts its full GCs apart", () => {
    const text = [
      scavenge(main, 100, 4.0, 300_000),
      scavenge(worker, 110, 6.5, 700_000),
      fullGc(worker, 120),
      scavenge(main, 200, 2.0, 100_000),
      "not a GC line"
    ].join("\n")
    const gc = gcOf(text)
    expect(gc.get(main)).toEqual({ scavenges: 2, promotedBytes: 400_000, pauseMsTotal: 6, pauseMsMax: 4, fullGcs: 0 })
    expect(gc.get(worker)).toEqual({ scavenges: 1, promotedBytes: 700_000, pauseMsTotal: 6.5, pauseMsMax: 6.5, fullGcs: 1 })
    expect(formatGc("main thread", gc.get(main)!)).toBe("main thread: 2 scavenges, promoted 0.20 MB each, pause 3.0 ms mean (4.0 max); 0 full GCs")
  })

  it("reads only what was written between two reads, and nothing when the output was cut in between", () => {
    expect(writtenSince("abc", "abcdef")).toBe("def")
    expect(writtenSince("abc", "bcdef")).toBe("")
  })
})
