import { RuleProblem, tooLongMessage } from "../errors.js"
import { planMedia, type FileToPlan, type MediaPlan } from "../media/mediaPlan.js"
import type { MediaFacts } from "../media/preparation.js"
import { mediaRulesOf } from "../networks/mediaRules.js"
import { postLength } from "../networks/length.js"
import type { Network, NetworkSetting } from "../networks/network.js"
import { settingLimitProblems } from "../networks/settingLimits.js"
import { RuleMessages } from "./messages.js"
import type { MediaRef, NormalizedPost, PostEntry, PostItem } from "./normalizedPost.js"
import { withInstanceLimits } from "../networks/instanceLimits.js"

/**
 * POST /posts rule 1 (and PUT /posts/{id}/status `schedule`): every channel is checked
 * against its network's rules before anything is saved. All problems are listed at once so
 * a client fixes them in one round; the caller answers `Errors.fixBeforeSaving(problems)`.
 */

/** What the check needs to know about a channel of the workspace. */
export interface ChannelForRules {
  readonly id: string
  readonly name: string
  readonly network: Network
  readonly disabled: boolean
  readonly refreshNeeded: boolean
  readonly inBetweenSteps: boolean
}

/** A media item of the workspace library. */
export interface MediaForRules {
  readonly id: string
  readonly type: "image" | "video"
  readonly mime: string
  /** The file's name and what the library read from it, when known: the network's media rules check them. */
  readonly name?: string
  readonly facts?: MediaFacts | null
}

export interface RulesContext {
  /** The post's channels as found in the workspace. A channel missing here is answered 404 by the caller. */
  readonly channels: ReadonlyArray<ChannelForRules>
  /** The workspace's media item with this id, if any. */
  readonly media: (id: string) => MediaForRules | undefined
}

/**
 * A file given only by an address is accepted when the address is http or https: the
 * reference CLI sends uploaded files that way (made-up id, public `path`). Anything else
 * (a local path, `data:`, `file:`) cannot be fetched by a network, so it is a problem now
 * rather than a failure at publish time.
 */
export const isWebAddress = (path: string): boolean => {
  if (!URL.canParse(path)) return false
  const url = new URL(path)
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
}

const videoExtension = /\.(mp4|mov|webm|m4v)$/i

/** A file by address counts as a video when its name says so; the network checks the rest. */
export const kindOfAddress = (path: string): "image" | "video" =>
  videoExtension.test(URL.canParse(path) ? new URL(path).pathname : path) ? "video" : "image"

type ResolvedMedia = { readonly ok: true; readonly kind: "image" | "video" } | { readonly ok: false; readonly message: string }

/** A known id wins; an unknown id or no id falls back to a public address when one is given. */
const resolveMedia = (ref: MediaRef, channelName: string, context: RulesContext): ResolvedMedia => {
  const known = ref.id === null ? undefined : context.media(ref.id)
  if (known !== undefined) return { ok: true, kind: known.type }
  if (ref.path !== null && isWebAddress(ref.path)) return { ok: true, kind: kindOfAddress(ref.path) }
  if (ref.id !== null) return { ok: false, message: RuleMessages.mediaNotFound(channelName, ref.id) }
  return { ok: false, message: RuleMessages.mediaPathNotPublic(channelName, ref.path ?? "") }
}

const isMissing = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "") || (Array.isArray(value) && value.length === 0)

const settingProblem = (channelName: string, setting: NetworkSetting, value: unknown): string | null => {
  if (isMissing(value)) return setting.required === true ? RuleMessages.settingRequired(channelName, setting.key, setting.label) : null
  if (setting.type === "select" && setting.options.length > 0 && !setting.options.some((o) => o === value)) {
    return RuleMessages.settingNotAnOption(channelName, setting.key, setting.options)
  }
  if (setting.type === "number" && !(typeof value === "number" && Number.isFinite(value) && value >= 0)) {
    return RuleMessages.settingNotANumber(channelName, setting.key)
  }
  return null
}

/**
 * Fields every entry of a list setting must fill, per network and setting: a Reddit post
 * in a subreddit needs its title (Reddit refuses a submit without one), and so does a Lemmy post in a community.
 */
const listEntryFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  "reddit subreddit": ["subreddit", "title"],
  "lemmy subreddit": ["subreddit", "title"]
}

/** An entry of a list setting as clients send it: the fields, or `{value: fields}` as the reference's clients do. */
const entryFieldsOf = (entry: unknown): Readonly<Record<string, unknown>> => {
  if (typeof entry !== "object" || entry === null) return {}
  const value: unknown = "value" in entry ? entry.value : entry
  return typeof value === "object" && value !== null ? (value as Readonly<Record<string, unknown>>) : {}
}

const listEntryProblems = (channelName: string, network: Network, setting: NetworkSetting, value: unknown): ReadonlyArray<string> => {
  const fields = listEntryFields[`${network.identifier} ${setting.key}`]
  if (fields === undefined || !Array.isArray(value)) return []
  return value.flatMap((entry: unknown, index) =>
    fields
      .filter((field) => isMissing(entryFieldsOf(entry)[field]))
      .map((field) => RuleMessages.settingEntryMissing(channelName, setting.key, index, field))
  )
}

/** Settings that name the network's things by id, comma-separated or as a list: WordPress refuses anything but term ids. */
const idListSettings: ReadonlySet<string> = new Set(["wordpress categories", "wordpress tags"])

const isIdList = (value: unknown): boolean =>
  (Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [value]).every((v: unknown) =>
    typeof v === "number" ? Number.isInteger(v) && v > 0 : typeof v === "string" && /^\s*\d*\s*$/.test(v)
  )

const idListProblems = (channelName: string, network: Network, setting: NetworkSetting, value: unknown): ReadonlyArray<string> =>
  idListSettings.has(`${network.identifier} ${setting.key}`) && !isMissing(value) && !isIdList(value)
    ? [RuleMessages.settingNotIds(channelName, setting.key)]
    : []

/** Every problem of `settings` with the network's settings (required, select options, list entries, ids, limits), for one channel. */
export const settingsProblems = (channelName: string, network: Network, settings: Readonly<Record<string, unknown>>): ReadonlyArray<string> => [
  ...network.settings.flatMap((setting) => {
    const value = settings[setting.key]
    const problem = settingProblem(channelName, setting, value)
    return problem === null
      ? [...idListProblems(channelName, network, setting, value), ...listEntryProblems(channelName, network, setting, value)]
      : [problem]
  }),
  ...settingLimitProblems(channelName, network, settings)
]

/**
 * PUT /posts/{id}/settings: keys the channel's network does not have are refused (spec:
 * keys from GET /integration-settings/{id}), then the merged settings are checked as POST
 * /posts checks them. POST /posts itself reads the reference clients' bodies, which carry
 * settings of the reference's own networks, so there unknown keys are kept and ignored.
 */
export const settingsChangeProblems = (
  channelName: string,
  network: Network,
  incoming: Readonly<Record<string, unknown>>,
  merged: Readonly<Record<string, unknown>>
): ReadonlyArray<string> => [
  ...Object.keys(incoming)
    .filter((key) => !network.settings.some((s) => s.key === key))
    .map((key) =>
      RuleMessages.settingUnknown(
        channelName,
        key,
        network.name,
        network.settings.map((s) => s.key)
      )
    ),
  ...settingsProblems(channelName, network, merged)
]

const itemName = (index: number): string => (index === 0 ? "the post" : `follow-up ${index}`)

/**
 * The item's library files with facts planned against the network's media rules
 * (domain/media/mediaPlan.ts); null when there is nothing to check. Files without facts
 * (addresses, older uploads) are left to the network.
 */
const itemMediaPlan = (
  channel: ChannelForRules,
  item: PostItem,
  settings: Readonly<Record<string, unknown>>,
  context: RulesContext
): MediaPlan | null => {
  const rules = mediaRulesOf(channel.network.identifier, settings)
  // more files than the network takes is said once, by the count rule
  if (rules === null || item.media.length === 0 || item.media.length > channel.network.maxMedia) return null
  const files: Array<FileToPlan> = item.media.flatMap((ref) => {
    const known = ref.id === null ? undefined : context.media(ref.id)
    return known?.facts === undefined || known.facts === null ? [] : [{ name: known.name ?? known.id, facts: known.facts }]
  })
  if (files.length === 0) return null
  // a network that needs a video and got none says so once, by the needs rule
  if (channel.network.needs === "video" && files.every((f) => f.facts.kind !== "video")) return null
  return planMedia(files, rules)
}

/** What preparation cannot fix is refused here, naming the file and the limit. */
const mediaRuleProblems = (
  channel: ChannelForRules,
  item: PostItem,
  index: number,
  settings: Readonly<Record<string, unknown>>,
  context: RulesContext
): ReadonlyArray<string> => {
  const plan = itemMediaPlan(channel, item, settings, context)
  if (plan === null || plan._tag === "Planned") return []
  const where = index === 0 ? "" : `${itemName(index)}: `
  return plan.problems.map((problem) => `${channel.name}: ${where}${problem}`)
}

/**
 * What preparation will do to a channel's files before they are sent (POST /posts answers
 * it): one line per file that gets a rendition, e.g. "IMG_1.heic: converted from HEIC to
 * JPG, metadata (location, camera) removed."; empty when every file goes as it is.
 */
export const mediaPreparationOf = (post: NormalizedPost, channelId: string, context: RulesContext): ReadonlyArray<string> => {
  const entry = post.entries.find((e) => e.channelId === channelId)
  const channel = context.channels.find((c) => c.id === channelId)
  if (entry === undefined || channel === undefined) return []
  return entry.items.flatMap((item, index) => {
    const plan = itemMediaPlan(channel, item, entry.settings, context)
    if (plan === null || plan._tag === "Refused") return []
    const where = index === 0 ? "" : `${itemName(index)}: `
    return plan.files.flatMap((f) => (f._tag === "Prepare" ? [`${where}${f.name}: ${f.steps.join(", ")}.`] : []))
  })
}

/**
 * Only the media rules of one channel's files, with the entry's settings (PUT
 * /posts/{id}/settings re-checks them: a setting can change what the network takes).
 */
export const mediaProblemsOf = (post: NormalizedPost, channelId: string, context: RulesContext): ReadonlyArray<string> => {
  const entry = post.entries.find((e) => e.channelId === channelId)
  const channel = context.channels.find((c) => c.id === channelId)
  if (entry === undefined || channel === undefined) return []
  return entry.items.flatMap((item, index) => mediaRuleProblems(channel, item, index, entry.settings, context))
}

const itemProblems = (
  channel: ChannelForRules,
  item: PostItem,
  index: number,
  context: RulesContext,
  settings: Readonly<Record<string, unknown>>
): ReadonlyArray<string> => {
  const { name, network } = channel
  const problems: Array<string> = []
  const length = postLength(network, item.content)
  if (length > network.maxLength) problems.push(tooLongMessage(name, length, network.maxLength))
  if (item.media.length > network.maxMedia) {
    problems.push(RuleMessages.tooManyFiles(name, itemName(index), item.media.length, network.maxMedia))
  }
  for (const ref of item.media) {
    const resolved = resolveMedia(ref, name, context)
    if (!resolved.ok) problems.push(resolved.message)
  }
  problems.push(...mediaRuleProblems(channel, item, index, settings, context))
  return problems
}

const entryProblems = (channelAsSaved: ChannelForRules, entry: PostEntry, context: RulesContext): ReadonlyArray<string> => {
  // a server with its own limits (a Mastodon-API server) is checked against those it announced at connect
  const channel = { ...channelAsSaved, network: withInstanceLimits(channelAsSaved.network, entry.settings) }
  const { name, network } = channel
  const problems: Array<string> = []
  if (channel.disabled) problems.push(RuleMessages.disabled(name))
  if (channel.refreshNeeded || channel.inBetweenSteps) problems.push(RuleMessages.reconnect(name))

  const [first, ...followUps] = entry.items
  // unresolvable files are reported on their own; "needs" looks only at usable ones
  const firstKinds = first.media.map((ref) => resolveMedia(ref, name, context)).flatMap((r) => (r.ok ? [r.kind] : []))
  if (network.needs === "media" && first.media.length === 0) problems.push(RuleMessages.needsMedia(name))
  const allResolved = firstKinds.length === first.media.length
  if (network.needs === "video" && allResolved && !firstKinds.includes("video")) problems.push(RuleMessages.needsVideo(name))
  if (!network.comments && followUps.length > 0) problems.push(RuleMessages.noFollowUps(name, followUps.length))

  entry.items.forEach((item, index) => problems.push(...itemProblems(channel, item, index, context, entry.settings)))
  problems.push(...settingsProblems(name, network, entry.settings))
  return problems
}

/** Every broken rule of the post, per channel, in body order; empty when it may be saved. */
export const checkPostAgainstNetworks = (post: NormalizedPost, context: RulesContext): ReadonlyArray<RuleProblem> =>
  post.entries.flatMap((entry) => {
    const channel = context.channels.find((c) => c.id === entry.channelId)
    if (channel === undefined) return []
    return entryProblems(channel, entry, context).map((message) => new RuleProblem({ channelId: channel.id, channelName: channel.name, message }))
  })

/** Channels of the post the workspace does not have: the caller answers 404 before checking rules. */
export const unknownChannelIds = (post: NormalizedPost, context: RulesContext): ReadonlyArray<string> =>
  post.entries.map((e) => e.channelId).filter((id) => !context.channels.some((c) => c.id === id))
