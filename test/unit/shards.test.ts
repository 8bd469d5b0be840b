import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { fairShare, shardOf } from "../../domain/shards.js"

/** Workspaces hashed onto shards (FNV-1a, 32 bit); each shard has one actor host at a time. */

/** Deterministic UUID-shaped workspace ids, so the spread check never flakes. */
const workspaceIds = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const h = createHash("sha256").update(`workspace-${i}`).digest("hex")
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
  })

describe("shardOf", () => {
  it("is FNV-1a 32 bit (known test vectors), so it is the same in every process and version", () => {
    const full = 2 ** 32
    expect(shardOf("", full)).toBe(0x811c9dc5)
    expect(shardOf("a", full)).toBe(0xe40c292c)
    expect(shardOf("foobar", full)).toBe(0xbf9cf968)
  })

  it("spreads workspaces over every shard: each of 64 gets some of 6400, none more than twice its share", () => {
    const perShard = new Array<number>(64).fill(0)
    for (const id of workspaceIds(6400)) perShard[shardOf(id, 64)]! += 1
    expect(Math.min(...perShard)).toBeGreaterThan(0)
    expect(Math.max(...perShard)).toBeLessThanOrEqual(200)
  })

  it("pins a few ids to their shard (a change here would move live workspaces)", () => {
    expect(shardOf("a", 64)).toBe(0xe40c292c % 64)
    expect(shardOf("foobar", 8)).toBe(0xbf9cf968 % 8)
  })

  it.each([1, 2, 7, 8, 64, 1000])("is in range [0, %i)", (count) => {
    for (const id of workspaceIds(500)) {
      const shard = shardOf(id, count)
      expect(Number.isInteger(shard)).toBe(true)
      expect(shard).toBeGreaterThanOrEqual(0)
      expect(shard).toBeLessThan(count)
    }
  })

  it("spreads workspaces evenly over the shards", () => {
    const count = 64
    const ids = workspaceIds(12_800)
    const perShard = new Array<number>(count).fill(0)
    for (const id of ids) perShard[shardOf(id, count)]!++
    const expected = ids.length / count // 200
    expect(perShard.every((n) => n > 0)).toBe(true)
    expect(Math.min(...perShard)).toBeGreaterThan(expected * 0.7)
    expect(Math.max(...perShard)).toBeLessThan(expected * 1.3)
  })

  it("ids that differ in one character usually land on different shards", () => {
    const base = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4"
    const shards = new Set("0123456789abcdef".split("").map((c) => shardOf(base + c, 64)))
    expect(shards.size).toBeGreaterThan(8)
  })
})

describe("fairShare", () => {
  const cases: ReadonlyArray<readonly [number, number, number]> = [
    [64, 1, 64],
    [64, 2, 32],
    [64, 3, 22],
    [64, 64, 1],
    [64, 100, 1],
    [8, 3, 3],
    [8, 0, 8],
    [8, -1, 8]
  ]

  it.each(cases)("%i shards over %i hosts: %i each", (shards, hosts, share) => {
    expect(fairShare(shards, hosts)).toBe(share)
  })

  it("the shares of all hosts cover every shard, with less than one host's share to spare", () => {
    for (const shards of [1, 8, 64, 100]) {
      for (let hosts = 1; hosts <= 20; hosts++) {
        const share = fairShare(shards, hosts)
        expect(share * hosts).toBeGreaterThanOrEqual(shards)
        expect((share - 1) * hosts).toBeLessThan(shards)
      }
    }
  })
})
