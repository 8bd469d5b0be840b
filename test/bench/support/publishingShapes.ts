/**
 * The shapes of issue 37 for the publishing bench (test/bench/publishing.ts): which workspaces
 * and channels each makes, which post goes to which channel and when it falls due, the goal it
 * is held to, and the figures and verdict printed for it. No servers here: plans and arithmetic.
 */

export const shapeNames = ["spread", "burst", "agency"] as const
export type ShapeName = (typeof shapeNames)[number]

/** A workspace of a shape; `group` is whose lateness its posts count in ("agency", "small", or "all"). */
export interface WorkspacePlan {
  readonly group: string
  readonly channels: number
}

/** A post: its workspace and channel (indexes into the plan) and how long after the shape's instant it falls due. */
export interface PostPlan {
  readonly workspace: number
  readonly channel: number
  readonly offsetMs: number
}

export interface ShapePlan {
  readonly name: ShapeName
  /** One line: what falls due when. */
  readonly description: string
  readonly workspaces: ReadonlyArray<WorkspacePlan>
  readonly posts: ReadonlyArray<PostPlan>
  /** The goal: this group's p99 lateness at most `p99Ms`, with 0 duplicates and every post published. */
  readonly goal: { readonly group: string; readonly p99Ms: number }
}

/** Channels per workspace of the spread and the burst, and of the agency shape's small workspaces. */
const CHANNELS_PER_WORKSPACE = 2

/**
 * `posts` across `workspaces` of two channels each: post i in workspace i mod W, on its channels in
 * turn, so both channels of every workspace get half. Spread: post i due i × 60 s / N after the
 * minute's start (10,000 are 167 a second); burst: every post due at that one instant.
 */
const evenly = (name: "spread" | "burst", posts: number, workspaces: number): ShapePlan => ({
  name,
  description:
    name === "spread"
      ? `${posts} posts across ${workspaces} workspaces (${CHANNELS_PER_WORKSPACE} channels each), due evenly over one minute`
      : `${posts} posts across ${workspaces} workspaces (${CHANNELS_PER_WORKSPACE} channels each), all due at the same instant`,
  workspaces: Array.from({ length: workspaces }, () => ({ group: "all", channels: CHANNELS_PER_WORKSPACE })),
  posts: Array.from({ length: posts }, (_, i) => ({
    workspace: i % workspaces,
    channel: Math.floor(i / workspaces) % CHANNELS_PER_WORKSPACE,
    offsetMs: name === "spread" ? Math.floor((i * 60_000) / posts) : 0
  })),
  goal: { group: "all", p99Ms: name === "spread" ? 2_000 : 5_000 }
})

/**
 * One agency workspace with 100 channels and 9,000 posts, and 99 workspaces with 2 channels and 10
 * posts each, every post due at the same instant (× `scale`, at least one of each). The agency's
 * posts are written first: the small ones' rows come after its 9,000, the order a queue in
 * insertion order would serve last.
 */
const agency = (scale: number): ShapePlan => {
  const agencyChannels = Math.max(1, Math.round(100 * scale))
  const agencyPosts = Math.max(1, Math.round(9_000 * scale))
  const small = Math.max(1, Math.round(99 * scale))
  const smallPosts = 10
  return {
    name: "agency",
    description:
      `one agency workspace with ${agencyChannels} channels and ${agencyPosts} posts, and ${small} workspaces with ` +
      `${CHANNELS_PER_WORKSPACE} channels and ${smallPosts} posts each, all due at the same instant`,
    workspaces: [
      { group: "agency", channels: agencyChannels },
      ...Array.from({ length: small }, () => ({ group: "small", channels: CHANNELS_PER_WORKSPACE }))
    ],
    posts: [
      ...Array.from({ length: agencyPosts }, (_, i) => ({ workspace: 0, channel: i % agencyChannels, offsetMs: 0 })),
      ...Array.from({ length: small * smallPosts }, (_, i) => ({
        workspace: 1 + Math.floor(i / smallPosts),
        channel: i % CHANNELS_PER_WORKSPACE,
        offsetMs: 0
      }))
    ],
    goal: { group: "small", p99Ms: 2_000 }
  }
}

/**
 * The plan of a shape. `posts` and `workspaces` (the bench's arguments) size the spread and the
 * burst; the agency shape has its own fixed numbers; `scale` (BENCH_SCALE) shrinks all of them.
 */
export const shapePlan = (name: ShapeName, options: { readonly posts: number; readonly workspaces: number; readonly scale: number }): ShapePlan =>
  name === "agency"
    ? agency(options.scale)
    : evenly(name, Math.max(1, Math.round(options.posts * options.scale)), Math.max(1, Math.round(options.workspaces * options.scale)))

/**
 * BENCH_SHAPE (spread, burst, agency, all; default spread) as the shapes to run, in order.
 * BENCH_SAME_INSTANT=1 with no BENCH_SHAPE is the burst (its name before the shapes).
 */
export const shapesFromEnv = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<ShapeName> => {
  const asked = env["BENCH_SHAPE"] ?? (env["BENCH_SAME_INSTANT"] === "1" ? "burst" : "spread")
  if (asked === "all") return shapeNames
  const shape = shapeNames.find((s) => s === asked)
  if (shape === undefined) throw new Error(`BENCH_SHAPE must be one of ${shapeNames.join(", ")} or all, not ${asked}`)
  return [shape]
}

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

export interface Lateness {
  readonly count: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/** p50, p99 and max of lateness figures (ms). */
export const latenessOf = (ms: ReadonlyArray<number>): Lateness => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 }
}

export const formatLateness = (l: Lateness) => `p50 ${seconds(l.p50)}, p99 ${seconds(l.p99)}, max ${seconds(l.max)}`

/** What a shape's run came to: the goal group's lateness, duplicates, and how many of its posts the network received and the service published. */
export interface ShapeOutcome {
  readonly plan: ShapePlan
  readonly goalLateness: Lateness
  readonly duplicates: number
  readonly received: number
  readonly published: number
}

/** Whether every post went out once and was recorded published: the part of a goal that is about correctness, not time. */
export const allOnce = (o: ShapeOutcome) => o.duplicates === 0 && o.received === o.plan.posts.length && o.published === o.plan.posts.length

/** The one-line verdict of a shape against its goal. */
export const verdict = (o: ShapeOutcome) => {
  const total = o.plan.posts.length
  const whose = o.plan.goal.group === "all" ? "" : ` of the ${o.plan.goal.group} workspaces`
  const met = o.goalLateness.count > 0 && o.goalLateness.p99 <= o.plan.goal.p99Ms && allOnce(o)
  return (
    `verdict ${o.plan.name}: goal p99 lateness${whose} ≤ ${seconds(o.plan.goal.p99Ms)}, 0 duplicates, all ${total} published: ` +
    `${met ? "MET" : "NOT MET"} (p99${whose} ${seconds(o.goalLateness.p99)}; duplicates ${o.duplicates}; ` +
    `received ${o.received}/${total}; published ${o.published}/${total})`
  )
}
