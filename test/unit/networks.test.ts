import { Option } from "effect"
import { describe, expect, it } from "vitest"
import {
  findNetwork,
  integrationSettingsOf,
  networkListItem,
  networks,
  NO_SETTINGS,
  postLength,
  rulesOf,
  type Network
} from "../../domain/networks/index.js"

// The reference table (notes/reference-api.md: "Networks of the reference").
const reference: ReadonlyArray<readonly [string, string, number, boolean, Network["needs"], Network["connect"]]> = [
  ["x", "X", 280, true, null, "link"],
  ["linkedin", "LinkedIn", 3000, true, null, "link"],
  ["linkedin-page", "LinkedIn Page", 3000, true, null, "link"],
  ["reddit", "Reddit", 10000, true, null, "link"],
  ["instagram", "Instagram (Facebook Business)", 2200, true, "media", "link"],
  ["instagram-standalone", "Instagram (Standalone)", 2200, true, "media", "link"],
  ["facebook", "Facebook Page", 63206, true, null, "link"],
  ["threads", "Threads", 500, true, null, "link"],
  ["youtube", "YouTube", 5000, false, "video", "link"],
  ["gmb", "Google My Business", 1500, false, null, "link"],
  ["tiktok", "TikTok", 2000, false, "media", "link"],
  // the reference lists no comments; the API for Business documents them (/business/comment/create/)
  ["tiktok-business", "TikTok Business", 2200, true, "media", "link"],
  ["pinterest", "Pinterest", 500, false, "media", "link"],
  ["dribbble", "Dribbble", 40000, false, "media", "link"],
  ["discord", "Discord", 1980, true, null, "link"],
  ["slack", "Slack", 40000, true, null, "link"],
  ["kick", "Kick", 500, true, null, "link"],
  ["twitch", "Twitch", 500, true, null, "link"],
  ["mastodon", "Mastodon", 500, true, null, "link"],
  ["bluesky", "Bluesky", 300, true, null, "form"],
  ["lemmy", "Lemmy", 10000, true, null, "form"],
  ["warpcast", "Farcaster", 800, true, null, "form"],
  ["telegram", "Telegram", 4096, true, null, "form"],
  ["nostr", "Nostr", 100000, true, null, "form"],
  ["vk", "VK", 2048, true, null, "link"],
  ["medium", "Medium", 100000, false, null, "form"],
  ["devto", "Dev.to", 100000, false, null, "form"],
  ["hashnode", "Hashnode", 10000, false, null, "form"],
  ["wordpress", "WordPress", 100000, false, null, "form"],
  ["listmonk", "Listmonk", 100000000, false, null, "form"],
  ["tumblr", "Tumblr", 32768, false, null, "link"],
  ["mewe", "MeWe", 63206, false, null, "link"]
]

// Settings the reference marks; `*` = required.
const referenceSettings: ReadonlyArray<readonly [string, string, boolean, ReadonlyArray<string>]> = [
  ["x", "who_can_reply_post", true, ["everyone", "following", "mentionedUsers", "subscribers", "verified"]],
  ["x", "community", false, []],
  ["youtube", "title", true, []],
  ["youtube", "type", true, ["public", "private", "unlisted"]],
  ["tiktok", "privacy_level", true, []],
  ["tiktok", "duet", true, []],
  ["tiktok", "stitch", true, []],
  ["tiktok", "comment", true, []],
  ["reddit", "subreddit", true, []],
  ["pinterest", "board", true, []],
  ["discord", "channel", true, []],
  ["slack", "channel", true, []],
  ["medium", "title", true, []],
  ["devto", "title", true, []],
  ["wordpress", "title", true, []],
  ["instagram", "post_type", true, ["post", "story"]],
  ["facebook", "post_type", false, ["post", "story"]]
]

const network = (identifier: string): Network => Option.getOrThrowWith(findNetwork(identifier), () => new Error(`no network ${identifier}`))

describe("Networks of the reference", () => {
  it.each(reference)("%s: %s, maxLength %i, comments %s, needs %s, connects by %s", (id, name, max, comments, needs, connect) => {
    const n = network(id)
    expect(networkListItem(n, true)).toEqual({ identifier: id, name, maxLength: max, comments, needs, publishes: id !== "mewe" })
    expect(n.connect).toBe(connect)
  })

  it("lists the reference networks in its order, then the test network", () => {
    expect(networks.map((n) => n.identifier)).toEqual([...reference.map(([id]) => id), "test"])
  })

  it("has no identifier twice and no setting key twice in a network", () => {
    expect(new Set(networks.map((n) => n.identifier)).size).toBe(networks.length)
    for (const n of networks) expect(new Set(n.settings.map((s) => s.key)).size).toBe(n.settings.length)
  })

  it("counts X weighted, Bluesky by graphemes and the others by characters", () => {
    for (const n of networks) {
      const expected = n.identifier === "x" ? "x-weighted" : n.identifier === "bluesky" ? "graphemes" : "characters"
      expect(n.counting, n.identifier).toBe(expected)
    }
  })

  it("needs server keys for link networks only (Mastodon registers its app on each instance)", () => {
    for (const n of networks) {
      if (n.connect === "form" || n.identifier === "mastodon" || n.noPublicApi !== undefined) expect(n.serverKeys, n.identifier).toEqual([])
      else if (n.identifier !== "test") expect(n.serverKeys.length, n.identifier).toBeGreaterThan(0)
    }
  })

  it("allows at least one file where media is needed", () => {
    for (const n of networks) if (n.needs !== null) expect(n.maxMedia, n.identifier).toBeGreaterThanOrEqual(1)
    expect(network("x").maxMedia).toBe(4)
    expect(network("bluesky").maxMedia).toBe(4)
    expect(network("instagram").maxMedia).toBe(10)
    expect(network("youtube").maxMedia).toBe(1)
    expect(network("pinterest").maxMedia).toBe(5)
    expect(network("dribbble").maxMedia).toBe(1)
    expect(network("tiktok").maxMedia).toBe(35)
  })

  it("states the limit, media needs and comments in the rules text", () => {
    for (const n of networks) {
      expect(n.rules, n.identifier).toContain(String(n.maxLength))
      expect(n.rules, n.identifier).toContain(n.comments ? "Follow-up comments work" : "Follow-up comments are not supported.")
      if (n.needs !== null) expect(n.rules, n.identifier).toContain("Needs")
      if (n.maxMedia === 0) expect(n.rules, n.identifier).toContain("Text only")
    }
  })

  it.each(referenceSettings)("%s has setting %s (required: %s)", (id, key, required, options) => {
    const setting = network(id).settings.find((s) => s.key === key)
    expect(setting).toBeDefined()
    expect(setting?.required === true).toBe(required)
    if (options.length > 0) expect(setting?.options).toEqual(options)
  })

  it("offers the helper tools clients call", () => {
    const tools = (id: string) => network(id).tools.map((t) => t.methodName)
    expect(tools("pinterest")).toEqual(["boards"])
    expect(tools("discord")).toEqual(["channels"])
    expect(tools("slack")).toEqual(["channels"])
    expect(tools("reddit")).toEqual(["subreddits"])
    expect(tools("x")).toEqual(["whoami"])
  })
})

describe("findNetwork", () => {
  it("finds a known identifier", () => {
    expect(Option.map(findNetwork("bluesky"), (n) => n.name)).toEqual(Option.some("Bluesky"))
  })
  it("answers none for an unknown identifier", () => {
    expect(Option.isNone(findNetwork("myspace"))).toBe(true)
  })
})

describe("GET /networks: publishes", () => {
  it("is false without an adapter, and false for a network with no public posting API even with one", () => {
    expect(networkListItem(network("slack"), false).publishes).toBe(false)
    expect(networkListItem(network("mewe"), true).publishes).toBe(false)
    expect(network("mewe").noPublicApi).toMatch(/no public API for posting/)
  })
})

describe("Test network", () => {
  const test = network("test")
  it("can be tried without keys and without settings", () => {
    expect(networkListItem(test, true)).toEqual({
      identifier: "test",
      name: "Test network",
      maxLength: 500,
      comments: true,
      needs: null,
      publishes: true
    })
    expect(test).toMatchObject({ counting: "characters", maxMedia: 4, connect: "link", serverKeys: [] })
    expect(test.settings.some((s) => s.required === true)).toBe(false)
    expect(test.rules).toContain("built-in test network that publishes nowhere")
  })
  it("offers the echo and stats tools", () => {
    expect(integrationSettingsOf(test).tools).toEqual([
      {
        methodName: "echo",
        description: expect.any(String),
        dataSchema: [{ key: "text", type: "string", description: expect.any(String) }]
      },
      { methodName: "stats", description: expect.any(String), dataSchema: [] }
    ])
  })
})

describe("GET /rules/{identifier}", () => {
  it(`answers the text "${NO_SETTINGS}" when a network has no settings`, () => {
    expect(rulesOf(network("linkedin"))).toEqual({
      rules: network("linkedin").rules,
      maxLength: 3000,
      settings: "No additional settings required"
    })
  })

  it("answers settings with required only when it must be filled", () => {
    const answer = rulesOf(network("x"))
    expect(answer.settings).toEqual([
      {
        key: "who_can_reply_post",
        label: "Who can reply",
        type: "select",
        options: ["everyone", "following", "mentionedUsers", "subscribers", "verified"],
        help: expect.any(String),
        required: true
      },
      { key: "community", label: "Community", type: "text", options: [], help: expect.any(String) }
    ])
    const community = JSON.parse(JSON.stringify(answer)).settings[1]
    expect(Object.keys(community)).toEqual(["key", "label", "type", "options", "help"])
  })
})

describe("GET /integration-settings/{id}", () => {
  it("answers rules, limits, settings and tools", () => {
    const pinterest = network("pinterest")
    expect(integrationSettingsOf(pinterest)).toEqual({
      rules: pinterest.rules,
      maxLength: 500,
      needs: "media",
      maxMedia: 5,
      comments: false,
      settings: [
        { key: "board", label: "Board", type: "text", options: [], help: expect.any(String), required: true },
        { key: "title", label: "Title", type: "text", options: [], help: expect.any(String) },
        { key: "link", label: "Link", type: "text", options: [], help: expect.any(String) }
      ],
      tools: [{ methodName: "boards", description: expect.any(String), dataSchema: [] }]
    })
  })

  it(`answers "${NO_SETTINGS}" and no tools for a network without them`, () => {
    expect(integrationSettingsOf(network("threads"))).toMatchObject({ settings: NO_SETTINGS, tools: [] })
  })
})

describe("Post length", () => {
  const x = network("x")
  const bluesky = network("bluesky")
  const mastodon = network("mastodon")

  describe("X (weighted)", () => {
    it.each([
      ["plain ASCII counts 1 a character", "Hello, world!", 13],
      ["a link counts 23", "https://example.com/a/very/long/path/that/goes/on/and/on?query=1", 23],
      ["a link in a sentence counts 23", "Read https://example.com/post now", 5 + 23 + 4],
      ["a bare domain with a path counts 23", "see example.com/path", 4 + 23],
      ["a bare domain counts 23", "example.co.uk", 23],
      ["the full stop after a link is text", "Go to example.com.", 6 + 23 + 1],
      ["a closing bracket around a link is text", "(https://example.com/a)", 1 + 23 + 1],
      ["a bracket pair inside a link stays in it", "https://en.wikipedia.org/wiki/Foo_(bar)", 23],
      ["two links count 23 each", "https://a.com https://b.org", 23 + 1 + 23],
      ["a file name is not a link", "file.txt", 8],
      ["an email address is not a link", "me@example.com", 14],
      ["CJK counts 2 a character", "日本語", 6],
      ["Latin with accents counts 1", "café naïve", 10],
      ["typographic quotes and dashes count 1", "\u201Cyes\u201D \u2013 no", 10],
      ["an emoji counts 2", "😀", 2],
      ["a family emoji sequence counts 2", "👨‍👩‍👧‍👦", 2],
      ["a flag counts 2", "🇫🇷", 2],
      ["a skin-toned emoji counts 2", "👍🏽", 2],
      ["a keycap counts 2", "1️⃣", 2],
      ["a heart with variation selector counts 2", "❤️", 2],
      ["the empty post counts 0", "", 0]
    ])("%s", (_case, text, expected) => {
      expect(postLength(x, text)).toBe(expected)
    })

    it("counts 280 ASCII characters as 280 and 140 CJK characters as 280", () => {
      expect(postLength(x, "a".repeat(280))).toBe(280)
      expect(postLength(x, "字".repeat(140))).toBe(280)
      expect(postLength(x, "字".repeat(141))).toBe(282)
    })

    it("counts a decomposed accent like the composed one", () => {
      expect(postLength(x, "cafe\u0301")).toBe(4)
    })
  })

  describe("Bluesky (graphemes)", () => {
    it.each([
      ["plain text", "Hello", 5],
      ["a family emoji is 1", "👨‍👩‍👧‍👦", 1],
      ["a flag is 1", "🇫🇷", 1],
      ["a letter with a combining accent is 1", "e\u0301", 1],
      ["a link counts its characters", "https://example.com", 19]
    ])("%s", (_case, text, expected) => {
      expect(postLength(bluesky, text)).toBe(expected)
    })
  })

  describe("others (code points)", () => {
    it.each([
      ["plain text", "Hello", 5],
      ["an emoji outside the BMP is 1", "😀", 1],
      ["a family emoji is its 7 code points", "👨‍👩‍👧‍👦", 7],
      ["CJK is 1 a character", "日本語", 3]
    ])("%s", (_case, text, expected) => {
      expect(postLength(mastodon, text)).toBe(expected)
    })
  })
})
