import { statusOf } from "../../protocol/http/errors.js"
import { describe, expect, it } from "vitest"
import { Errors, tooLongMessage } from "../../domain/errors.js"
import type { Network } from "../../domain/networks/network.js"
import type { MediaRef, NormalizedPost, PostItem } from "../../domain/posts/normalizedPost.js"
import {
  type ChannelForRules,
  checkPostAgainstNetworks,
  isWebAddress,
  type MediaForRules,
  type RulesContext,
  unknownChannelIds
} from "../../domain/posts/rules.js"

// Networks are built here rather than taken from the catalog, so these tests pin the
// rule checks and not the catalog's numbers.
const network = (overrides: Partial<Network> = {}): Network => ({
  identifier: "plain",
  name: "Plain",
  maxLength: 20,
  counting: "characters",
  needs: null,
  maxMedia: 2,
  comments: true,
  connect: "link",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "",
  ...overrides
})

const channel = (id: string, name: string, net: Network, overrides: Partial<ChannelForRules> = {}): ChannelForRules => ({
  id,
  name,
  network: net,
  disabled: false,
  refreshNeeded: false,
  inBetweenSteps: false,
  ...overrides
})

const imageId = "11111111-1111-4111-8111-111111111111"
const videoId = "22222222-2222-4222-8222-222222222222"
const missingId = "33333333-3333-4333-8333-333333333333"
const library: ReadonlyArray<MediaForRules> = [
  { id: imageId, type: "image", mime: "image/png" },
  { id: videoId, type: "video", mime: "video/mp4" }
]

const byId = (id: string): MediaRef => ({ id, path: null, alt: null })
const byPath = (path: string): MediaRef => ({ id: null, path, alt: null })
const item = (content: string, media: ReadonlyArray<MediaRef> = [], delay = 0): PostItem => ({ content, media, delay })

const post = (
  entries: ReadonlyArray<{ channelId: string; items: readonly [PostItem, ...Array<PostItem>]; settings?: Record<string, unknown> }>
): NormalizedPost => {
  const [first, ...rest] = entries.map((e) => ({ channelId: e.channelId, groupId: null, items: e.items, settings: e.settings ?? {} }))
  if (first === undefined) throw new Error("a post needs an entry")
  return {
    type: "schedule",
    date: new Date("2025-06-01T12:00:00Z"),
    dateGiven: true,
    groupId: null,
    entries: [first, ...rest],
    tags: [],
    shortLink: false,
    repeatDays: null,
    creationMethod: null
  }
}

const check = (
  net: Network,
  items: readonly [PostItem, ...Array<PostItem>],
  options: {
    settings?: Record<string, unknown>
    channel?: Partial<ChannelForRules>
  } = {}
): ReadonlyArray<string> => {
  const context: RulesContext = {
    channels: [channel("c1", "My Channel", net, options.channel)],
    media: (id) => library.find((m) => m.id === id)
  }
  return checkPostAgainstNetworks(post([{ channelId: "c1", items, ...(options.settings ? { settings: options.settings } : {}) }]), context).map(
    (p) => p.message
  )
}

describe("rules: a post that fits", () => {
  it("has no problems", () => {
    expect(check(network(), [item("Hello"), item("More")])).toEqual([])
  })
})

describe("rules: length (maxLength, counted as the network counts)", () => {
  it("a post over maxLength gives the catalog's message", () => {
    expect(check(network(), [item("x".repeat(21))])).toEqual([tooLongMessage("My Channel", 21, 20)])
    expect(check(network(), [item("x".repeat(21))])).toEqual(["My Channel: the post is too long, 21 of 20 characters."])
  })

  it("exactly maxLength is fine", () => {
    expect(check(network(), [item("x".repeat(20))])).toEqual([])
  })

  it("follow-ups are checked too", () => {
    expect(check(network(), [item("ok"), item("y".repeat(25))])).toEqual([tooLongMessage("My Channel", 25, 20)])
  })

  it("uses the network's counting: X counts a link as 23", () => {
    const x = network({ name: "X", maxLength: 30, counting: "x-weighted" })
    expect(check(x, [item("see https://example.com/a/very/long/path")])).toEqual([]) // 4 + 23
    expect(check(x, [item("read this https://example.com/a")])).toEqual([tooLongMessage("My Channel", 33, 30)])
  })

  it("uses the network's counting: an emoji is one grapheme on Bluesky", () => {
    const bluesky = network({ maxLength: 3, counting: "graphemes" })
    expect(check(bluesky, [item("👨‍👩‍👧ab")])).toEqual([])
  })
})

describe("rules: needs (media or video on the first item)", () => {
  const needsMedia = network({ needs: "media" })
  const needsVideo = network({ needs: "video", maxMedia: 1 })

  it.each([
    ["media: no file", needsMedia, [item("x")], ["My Channel: this network needs at least one photo or video on the post."]],
    ["media: an image", needsMedia, [item("x", [byId(imageId)])], []],
    [
      "media: a file only on a follow-up",
      needsMedia,
      [item("x"), item("y", [byId(imageId)])],
      ["My Channel: this network needs at least one photo or video on the post."]
    ],
    ["video: no file", needsVideo, [item("x")], ["My Channel: this network needs a video on the post."]],
    ["video: an image", needsVideo, [item("x", [byId(imageId)])], ["My Channel: this network needs a video on the post."]],
    ["video: a video", needsVideo, [item("x", [byId(videoId)])], []],
    ["video: a video by address", needsVideo, [item("x", [byPath("https://cdn.example.com/clip.MP4")])], []]
  ] as const)("%s", (_, net, items, problems) => {
    expect(check(net, items)).toEqual(problems)
  })
})

describe("rules: maxMedia per item", () => {
  it("more files than maxMedia on the post", () => {
    expect(check(network(), [item("x", [byId(imageId), byId(imageId), byId(videoId)])])).toEqual(["My Channel: the post has too many files, 3 of 2."])
  })

  it("more files than maxMedia on a follow-up", () => {
    expect(check(network(), [item("x"), item("y", [byId(imageId), byId(imageId), byId(imageId)])])).toEqual([
      "My Channel: follow-up 1 has too many files, 3 of 2."
    ])
  })
})

describe("rules: follow-ups only where the network takes comments", () => {
  it("a network without comments refuses follow-ups", () => {
    expect(check(network({ comments: false }), [item("x"), item("y"), item("z")])).toEqual([
      "My Channel: this network does not take follow-up comments, and the post has 2. Send only the post."
    ])
  })

  it("a single item is fine", () => {
    expect(check(network({ comments: false }), [item("x")])).toEqual([])
  })
})

describe("rules: settings", () => {
  const youtube = network({
    settings: [
      { key: "title", label: "Title", type: "text", options: [], help: "", required: true },
      { key: "type", label: "Visibility", type: "select", options: ["public", "private", "unlisted"], help: "", required: true },
      { key: "playlist", label: "Playlist", type: "select", options: ["a", "b"], help: "" }
    ]
  })

  it.each([
    ["all given", { title: "T", type: "public" }, []],
    ["a required setting missing", { type: "public" }, ["My Channel: the setting title (Title) is required."]],
    ["a required setting empty", { title: "  ", type: "public" }, ["My Channel: the setting title (Title) is required."]],
    [
      "a select value not among its options",
      { title: "T", type: "secret" },
      ["My Channel: the setting type must be one of public, private, unlisted."]
    ],
    ["an optional select left out", { title: "T", type: "private" }, []],
    [
      "an optional select with a wrong value",
      { title: "T", type: "private", playlist: "c" },
      ["My Channel: the setting playlist must be one of a, b."]
    ],
    ["nothing given", {}, ["My Channel: the setting title (Title) is required.", "My Channel: the setting type (Visibility) is required."]]
  ])("%s", (_, settings, problems) => {
    expect(check(youtube, [item("x")], { settings })).toEqual(problems)
  })
})

describe("rules: media must exist", () => {
  it("a media id from the library is fine", () => {
    expect(check(network(), [item("x", [byId(imageId)])])).toEqual([])
  })

  it("an unknown media id is a problem", () => {
    expect(check(network(), [item("x", [byId(missingId)])])).toEqual([
      `My Channel: media ${missingId} was not found. Upload the file with POST /upload and use the id it returns.`
    ])
  })

  it("a file given only by an http(s) address is accepted as outside media", () => {
    expect(check(network(), [item("x", [byPath("https://cdn.example.com/a.jpg"), byPath("http://example.com/b.png")])])).toEqual([])
  })

  it("an unknown id with a public address falls back to the address", () => {
    expect(check(network(), [item("x", [{ id: missingId, path: "https://cdn.example.com/a.jpg", alt: null }])])).toEqual([])
  })

  it.each(["/tmp/a.jpg", "file:///tmp/a.jpg", "data:image/png;base64,AAAA", "a.jpg", "ftp://example.com/a.jpg"])(
    "a file given by %s is a problem",
    (path) => {
      expect(check(network(), [item("x", [byPath(path)])])).toEqual([
        `My Channel: the file address ${path} is not an http or https address. Upload the file with POST /upload and use the id it returns.`
      ])
    }
  )

  it("isWebAddress accepts only http and https URLs", () => {
    expect([
      isWebAddress("https://a.example/x.png"),
      isWebAddress("http://a.example/x.png"),
      isWebAddress("javascript:alert(1)"),
      isWebAddress("not a url")
    ]).toEqual([true, true, false, false])
  })
})

describe("rules: the channel must be usable", () => {
  it.each([
    ["switched off", { disabled: true }, ["My Channel: the channel is switched off. Turn it on in the app before posting."]],
    ["refresh needed", { refreshNeeded: true }, ["My Channel: the channel must be reconnected in the app before posting."]],
    ["in between steps", { inBetweenSteps: true }, ["My Channel: the channel must be reconnected in the app before posting."]]
  ])("%s", (_, overrides, problems) => {
    expect(check(network(), [item("x")], { channel: overrides })).toEqual(problems)
  })
})

describe("rules: the problems list", () => {
  const strict = network({ needs: "media", comments: false, maxLength: 5 })
  const relaxed = network({ maxLength: 100 })
  const context: RulesContext = {
    channels: [channel("c1", "Shop X", strict, { disabled: true }), channel("c2", "Shop Blog", relaxed)],
    media: () => undefined
  }
  const twoChannels = post([
    { channelId: "c1", items: [item("too long"), item("more")] },
    { channelId: "c2", items: [item("fine")] }
  ])

  it("lists every problem of every channel, each starting with the channel name", () => {
    const problems = checkPostAgainstNetworks(twoChannels, context)
    expect(problems.map((p) => [p.channelId, p.channelName])).toEqual(Array(4).fill(["c1", "Shop X"]))
    expect(problems.every((p) => p.message.startsWith(`${p.channelName}: `))).toBe(true)
    expect(problems.map((p) => p.message)).toEqual([
      "Shop X: the channel is switched off. Turn it on in the app before posting.",
      "Shop X: this network needs at least one photo or video on the post.",
      "Shop X: this network does not take follow-up comments, and the post has 1. Send only the post.",
      tooLongMessage("Shop X", 8, 5)
    ])
  })

  it("becomes the spec's 400 body through Errors.fixBeforeSaving", () => {
    const error = Errors.fixBeforeSaving(checkPostAgainstNetworks(twoChannels, context))
    expect(statusOf(error)).toBe(400)
    expect(error.error).toBe("Please fix these before saving.")
    expect(error.errors).toHaveLength(4)
  })

  it("names channels the workspace does not have (answered 404 before the check)", () => {
    const withUnknown = post([
      { channelId: "c2", items: [item("x")] },
      { channelId: "c9", items: [item("x")] }
    ])
    expect(unknownChannelIds(withUnknown, context)).toEqual(["c9"])
    expect(checkPostAgainstNetworks(withUnknown, context)).toEqual([])
  })
})

describe("a server's own limits (Mastodon-API servers)", () => {
  const masto = network({ identifier: "mastodon", maxLength: 500, maxMedia: 4 })
  const context = (): RulesContext => ({ channels: [channel("m", "Fedi", masto)], media: (id) => library.find((m) => m.id === id) })

  it("a channel whose server announced 5000 characters takes a 600-character post; one without is held to 500", () => {
    const long = "x".repeat(600)
    expect(checkPostAgainstNetworks(post([{ channelId: "m", items: [item(long)], settings: { instance_max_characters: 5000 } }]), context())).toEqual(
      []
    )
    expect(checkPostAgainstNetworks(post([{ channelId: "m", items: [item(long)] }]), context())).toHaveLength(1)
  })

  it("a Pixelfed channel (instance_needs_media) refuses a post without a photo before saving", () => {
    const problems = checkPostAgainstNetworks(post([{ channelId: "m", items: [item("words")], settings: { instance_needs_media: true } }]), context())
    expect(problems).toHaveLength(1)
  })
})
