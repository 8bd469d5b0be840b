import { statusOf } from "../../protocol/http/errors.js"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import type { ApiError } from "../../domain/errors.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { parseZonedDate } from "../../domain/posts/dates.js"
import type { NormalizedPost } from "../../domain/posts/normalizedPost.js"
import { htmlToPlainText } from "../../domain/posts/plainText.js"

const now = new Date("2025-06-01T12:00:00.000Z")
const channelA = "0b4f3a52-6c1e-4d1a-9a57-1f6f0d3c2a11"
const channelB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
const mediaId = "9a2b1c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"
const groupId = "3f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
const later = "2025-06-02T09:30:00Z"

const ok = (body: unknown): NormalizedPost => {
  const result = normalizePostBody(body, now)
  if (Either.isLeft(result)) throw new Error(`expected a post, got ${result.left._tag} ${result.left.error}`)
  return result.right
}

/** The refusal with the HTTP status the REST surface answers it with. */
const fails = (body: unknown): ApiError & { readonly status: number } => {
  const result = normalizePostBody(body, now)
  if (Either.isRight(result)) throw new Error("expected a 400")
  return Object.assign(result.left, { status: statusOf(result.left) })
}

const entry = (extra: Record<string, unknown> = {}) => ({
  integration: { id: channelA },
  value: [{ content: "Hello" }],
  ...extra
})
const full = (extra: Record<string, unknown> = {}) => ({ posts: [entry()], ...extra })

describe("POST /posts body: the reference client's body", () => {
  // as its CLI sends it: tags [] and shortLink always there, image with a made-up id and a public path,
  // settings.__type, delay on follow-ups, and type "update"
  const reference = {
    type: "update",
    date: "2025-06-02T09:30:00Z",
    shortLink: false,
    tags: [],
    posts: [
      {
        integration: { id: channelA },
        value: [
          { content: "<p>Launch day</p>", image: [{ id: "k3j4h5", path: "https://cdn.example.com/a.jpg" }], delay: 0 },
          { id: "old-item-id", content: "More in the thread", image: [], delay: 5 }
        ],
        settings: { __type: "x", who_can_reply_post: "everyone" }
      }
    ]
  }

  it("is read into one normalized post", () => {
    expect(ok(reference)).toEqual({
      type: "schedule",
      date: new Date("2025-06-02T09:30:00Z"),
      dateGiven: true,
      groupId: null,
      entries: [
        {
          channelId: channelA,
          groupId: null,
          items: [
            { content: "Launch day", media: [{ id: null, path: "https://cdn.example.com/a.jpg", alt: null }], delay: 0 },
            { content: "More in the thread", media: [], delay: 5 }
          ],
          settings: { who_can_reply_post: "everyone" }
        }
      ],
      tags: [],
      shortLink: false,
      repeatDays: null,
      creationMethod: null
    })
  })

  it("tolerates fields it does not know", () => {
    expect(ok({ ...reference, somethingNew: { a: 1 }, posts: [{ ...reference.posts[0], extra: true }] }).entries).toHaveLength(1)
  })

  it("reads null like a missing optional field", () => {
    const post = ok(full({ date: null, tags: null, shortLink: null, inter: null, groupId: null, creationMethod: null }))
    expect(post).toMatchObject({ dateGiven: false, tags: [], shortLink: false, repeatDays: null, groupId: null })
  })
})

describe("POST /posts body: type", () => {
  it.each([
    [undefined, "schedule"],
    ["schedule", "schedule"],
    ["update", "schedule"],
    ["draft", "draft"],
    ["now", "now"],
    ["review", "review"]
  ] as const)("type %s is read as %s", (type, expected) => {
    expect(ok(full(type === undefined ? {} : { type })).type).toBe(expected)
  })

  it("refuses an unknown type", () => {
    expect(fails(full({ type: "later" }))).toMatchObject({
      status: 400,
      error: "type must be one of draft, schedule, now, review."
    })
  })
})

describe("POST /posts body: date", () => {
  it.each([
    ["2025-06-02T09:30:00Z", "2025-06-02T09:30:00.000Z"],
    ["2025-06-02T09:30:00.123Z", "2025-06-02T09:30:00.123Z"],
    ["2025-06-02T11:30:00+02:00", "2025-06-02T09:30:00.000Z"],
    ["2025-06-02T04:30:00-05:00", "2025-06-02T09:30:00.000Z"],
    ["2025-06-02T11:30:00+0200", "2025-06-02T09:30:00.000Z"],
    ["2025-06-02T09:30Z", "2025-06-02T09:30:00.000Z"],
    ["2028-02-29T00:00:00Z", "2028-02-29T00:00:00.000Z"]
  ])("%s is read as %s", (date, expected) => {
    const post = ok(full({ date }))
    expect(post.date.toISOString()).toBe(expected)
    expect(post.dateGiven).toBe(true)
  })

  it.each([
    ["no time zone", "2025-06-02T09:30:00"],
    ["a date only", "2025-06-02"],
    ["not a date", "tomorrow"],
    ["February 30", "2025-02-30T09:00:00Z"],
    ["hour 24", "2025-06-02T24:00:00Z"],
    ["an empty string", ""]
  ])("%s is not a valid date", (_, date) => {
    expect(fails(full({ date }))).toMatchObject({
      status: 400,
      error: "The date is not valid. Use ISO 8601, for example 2025-06-01T13:00:00.000Z."
    })
  })

  it("uses the current time when left out", () => {
    expect(ok(full())).toMatchObject({ date: now, dateGiven: false })
  })

  it("ignores the date for now, even one that cannot be read", () => {
    expect(ok(full({ type: "now", date: "2020-01-01T00:00:00Z" }))).toMatchObject({ date: now, dateGiven: false })
    expect(ok(full({ type: "now", date: "whenever" }))).toMatchObject({ date: now, dateGiven: false })
  })

  it.each(["schedule", "review", "update"])("%s may not be more than 1 minute in the past", (type) => {
    expect(fails(full({ type, date: "2025-06-01T11:58:59Z" }))).toMatchObject({
      status: 400,
      error: "The date is in the past. Use a time from now on."
    })
    expect(ok(full({ type, date: "2025-06-01T11:59:00Z" })).date).toEqual(new Date("2025-06-01T11:59:00Z"))
  })

  it("drafts may have any date of the years 1970 to 9999", () => {
    expect(ok(full({ type: "draft", date: "2001-01-01T00:00:00Z" })).date).toEqual(new Date("2001-01-01T00:00:00Z"))
    expect(ok(full({ type: "draft", date: "1970-01-01T00:00:00Z" })).date).toEqual(new Date(0))
    expect(ok(full({ type: "draft", date: "9999-12-31T23:59:59Z" })).date).toEqual(new Date("9999-12-31T23:59:59Z"))
  })

  it.each(["0000-06-01T00:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00"])(
    "%s is outside the years every date lies in: 400 with the range",
    (date) => {
      expect(fails(full({ type: "draft", date }))).toMatchObject({
        status: 400,
        error: "date must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z."
      })
    }
  )

  it("parses years below 100 as written", () => {
    expect(parseZonedDate("0050-01-01T00:00:00Z")?.getUTCFullYear()).toBe(50)
  })
})

describe("POST /posts body: channels of the full form", () => {
  it("takes the channel from integration.id or from channelId at entry level", () => {
    expect(ok({ posts: [{ channelId: channelA, value: [{ content: "x" }] }] }).entries[0].channelId).toBe(channelA)
    expect(ok({ posts: [entry({ channelId: channelA })] }).entries[0].channelId).toBe(channelA)
  })

  it("refuses integration.id and channelId naming different channels", () => {
    expect(fails({ posts: [entry({ channelId: channelB })] }).error).toBe(
      "posts[0].integration.id and posts[0].channelId name different channels. Give one of them."
    )
  })

  it("refuses an entry without a channel", () => {
    expect(fails({ posts: [{ value: [{ content: "x" }] }] }).error).toBe("posts[0].integration.id is required: the channel to post to.")
  })

  it("refuses the same channel twice in one post", () => {
    expect(fails({ posts: [entry(), entry()] }).error).toBe(
      `posts[1] repeats channel ${channelA}. Give each channel once; use follow-up items for more text.`
    )
  })

  it("keeps every channel's own items in order", () => {
    const post = ok({
      posts: [entry(), { integration: { id: channelB }, value: [{ content: "B" }, { content: "B2", delay: 10 }] }]
    })
    expect(post.entries.map((e) => [e.channelId, e.items.map((i) => [i.content, i.delay])])).toEqual([
      [channelA, [["Hello", 0]]],
      [
        channelB,
        [
          ["B", 0],
          ["B2", 10]
        ]
      ]
    ])
  })

  it("ignores the delay of the first item", () => {
    expect(ok({ posts: [entry({ value: [{ content: "x", delay: 30 }] })] }).entries[0].items[0].delay).toBe(0)
  })

  it("drops __type from settings and defaults settings to {}", () => {
    expect(ok({ posts: [entry({ settings: { __type: "youtube", title: "T" } })] }).entries[0].settings).toEqual({ title: "T" })
    expect(ok(full()).entries[0].settings).toEqual({})
  })
})

describe("POST /posts body: media", () => {
  const media = (list: unknown, key = "image") => ok({ posts: [entry({ value: [{ content: "x", [key]: list }] })] }).entries[0].items[0].media

  it("reads image [{id, path, alt}]", () => {
    expect(media([{ id: mediaId, path: "https://cdn.example.com/a.png", alt: "A cat" }])).toEqual([
      { id: mediaId, path: "https://cdn.example.com/a.png", alt: "A cat" }
    ])
  })

  it("accepts media as an alias of image", () => {
    expect(media([{ id: mediaId }], "media")).toEqual([{ id: mediaId, path: null, alt: null }])
  })

  it("accepts a bare media id", () => {
    expect(media([mediaId])).toEqual([{ id: mediaId, path: null, alt: null }])
  })

  it("uses whichever of image and media has files", () => {
    expect(ok({ posts: [entry({ value: [{ content: "x", image: [], media: [mediaId] }] })] }).entries[0].items[0].media).toEqual([
      { id: mediaId, path: null, alt: null }
    ])
  })

  it("refuses files in both image and media", () => {
    expect(fails({ posts: [entry({ value: [{ content: "x", image: [mediaId], media: [mediaId] }] })] }).error).toBe(
      "posts[0].value[0] has both image and media. Give the files in one of them."
    )
  })

  it("keeps a made-up id only as a path reference", () => {
    expect(media([{ id: "k3j4h5", path: "https://cdn.example.com/a.jpg" }])).toEqual([{ id: null, path: "https://cdn.example.com/a.jpg", alt: null }])
  })

  it("refuses an id that is not a UUID when there is no path", () => {
    expect(fails({ posts: [entry({ value: [{ content: "x", image: [{ id: "k3j4h5" }] }] })] })).toMatchObject({
      status: 400,
      error: "One of the ids is not valid.",
      fix: "Check the id. Copy it again from the list it came from."
    })
  })

  it("refuses a file with neither id nor path", () => {
    expect(fails({ posts: [entry({ value: [{ content: "x", image: [{ alt: "x" }] }] })] }).error).toBe(
      "posts[0].value[0].image[0] needs an id from POST /upload or a path."
    )
  })
})

describe("POST /posts body: ids are UUIDs", () => {
  it.each([
    ["a channel id", { posts: [{ integration: { id: "channel-1" }, value: [{ content: "x" }] }] }],
    ["groupId", full({ groupId: "abc" })],
    ["an entry's group", { posts: [entry({ group: "abc" })] }],
    ["a channel of the simpler body", { content: "x", channels: ["nope"] }]
  ])("%s that is not a UUID gives the invalid-id error", (_, body) => {
    expect(fails(body)).toMatchObject({ status: 400, error: "One of the ids is not valid." })
  })
})

describe("POST /posts body: editing (groupId or group)", () => {
  it("reads groupId", () => {
    expect(ok(full({ groupId })).groupId).toBe(groupId)
  })

  it("reads an entry's group as the post to edit", () => {
    const post = ok({ posts: [entry({ group: groupId }), { integration: { id: channelB }, value: [{ content: "y" }] }] })
    expect(post.groupId).toBe(groupId)
    expect(post.entries.map((e) => e.groupId)).toEqual([groupId, null])
  })

  it("refuses entries that edit different posts", () => {
    expect(fails({ groupId, posts: [entry({ group: channelB })] }).error).toBe(
      "posts[0].group names a different post than the rest of the request. One request edits one post."
    )
  })
})

describe("POST /posts body: tags, shortLink, repeat, creationMethod", () => {
  it("reads string tags as references and {value, label} as match-or-create", () => {
    expect(ok(full({ tags: ["News", { value: "launch", label: "Launch" }, { label: "Only a label" }] })).tags).toEqual([
      { kind: "ref", value: "News" },
      { kind: "create", value: "launch", label: "Launch" },
      { kind: "create", value: "Only a label", label: "Only a label" }
    ])
  })

  it("refuses an empty tag", () => {
    expect(fails(full({ tags: ["  "] })).error).toBe("tags[0] must not be empty.")
  })

  it("reads shortLink, default false", () => {
    expect(ok(full({ shortLink: true })).shortLink).toBe(true)
    expect(ok(full()).shortLink).toBe(false)
  })

  it.each([
    [{ inter: 7 }, 7],
    [{ repeatDays: 30 }, 30],
    [{ inter: 1 }, 1],
    [{ inter: 365 }, 365],
    [{ inter: 5, repeatDays: 5 }, 5],
    [{}, null]
  ])("repeat %j is %s days", (fields, expected) => {
    expect(ok(full(fields)).repeatDays).toBe(expected)
  })

  it.each([
    [{ inter: 0 }, "inter must be a whole number of days from 1 to 365."],
    [{ inter: 366 }, "inter must be a whole number of days from 1 to 365."],
    [{ inter: 2.5 }, "inter must be a whole number of days from 1 to 365."],
    [{ repeatDays: "7" }, "repeatDays must be a whole number of days from 1 to 365."],
    [{ inter: 5, repeatDays: 6 }, "inter and repeatDays differ. Give one of them."]
  ])("refuses repeat %j", (fields, message) => {
    expect(fails(full(fields))).toMatchObject({ status: 400, error: message })
  })

  it.each(["api", "cli", "mcp", "agent"])("accepts creationMethod %s", (creationMethod) => {
    expect(ok(full({ creationMethod })).creationMethod).toBe(creationMethod)
  })

  it("refuses another creationMethod", () => {
    expect(fails(full({ creationMethod: "web" })).error).toBe("creationMethod must be one of api, cli, mcp, agent.")
  })
})

describe("POST /posts body: missing or wrong fields name the field", () => {
  it.each([
    ["no posts", {}, "posts is required."],
    ["posts not an array", { posts: {} }, "posts must be an array of at most 100 entries, one per channel."],
    ["no entries", { posts: [] }, "posts must have at least one entry, one per channel."],
    ["an entry not an object", { posts: ["x"] }, "posts[0] must be an object {integration, value, settings}."],
    ["no value", { posts: [{ integration: { id: channelA } }] }, "posts[0].value is required."],
    ["empty value", { posts: [entry({ value: [] })] }, "posts[0].value must have at least one item: the post itself."],
    ["no content", { posts: [entry({ value: [{}] })] }, "posts[0].value[0].content is required."],
    ["content not text", { posts: [entry({ value: [{ content: 1 }] })] }, "posts[0].value[0].content must be a string."],
    ["a follow-up without content", { posts: [entry({ value: [{ content: "x" }, { delay: 5 }] })] }, "posts[0].value[1].content is required."],
    [
      "a negative delay",
      { posts: [entry({ value: [{ content: "x" }, { content: "y", delay: -5 }] })] },
      "posts[0].value[1].delay must be a whole number of minutes from 0 to 525600 (a year)."
    ],
    [
      "a delay over a year",
      { posts: [entry({ value: [{ content: "x" }, { content: "y", delay: 525_601 }] })] },
      "posts[0].value[1].delay must be a whole number of minutes from 0 to 525600 (a year)."
    ],
    [
      "a delay of 10^15 minutes",
      { posts: [entry({ value: [{ content: "x" }, { content: "y", delay: 1e15 }] })] },
      "posts[0].value[1].delay must be a whole number of minutes from 0 to 525600 (a year)."
    ],
    ["integration without id", { posts: [entry({ integration: {} })] }, "posts[0].integration.id is required."],
    ["settings not an object", { posts: [entry({ settings: [] })] }, "posts[0].settings must be an object with at most 100 keys."],
    [
      "image not an array",
      { posts: [entry({ value: [{ content: "x", image: "a.png" }] })] },
      "posts[0].value[0].image must be an array of at most 20 media."
    ],
    [
      "a file of the wrong kind",
      { posts: [entry({ value: [{ content: "x", image: [5] }] })] },
      "posts[0].value[0].image[0] must be a media id or an object {id, path, alt}."
    ],
    ["shortLink not a boolean", full({ shortLink: "yes" }), "shortLink must be true or false."],
    ["a tag of the wrong kind", full({ tags: [5] }), "tags[0] must be a tag id or name, or an object {value, label}."],
    ["date not text", full({ date: 1735646400000 }), "date must be a string."],
    ["a body that is not an object", [1, 2], "The request body must be a JSON object."],
    ["a body that is text", "hello", "The request body must be a JSON object."]
  ])("%s", (_, body, message) => {
    expect(fails(body)).toMatchObject({ status: 400, error: message })
  })
})

describe("POST /posts body: the simpler form", () => {
  it("applies content to every channel given by id", () => {
    const post = ok({ type: "draft", content: "<p>Same <b>everywhere</b></p>", channels: [channelA, channelB] })
    expect(post.type).toBe("draft")
    expect(post.entries).toEqual([
      { channelId: channelA, groupId: null, items: [{ content: "Same everywhere", media: [], delay: 0 }], settings: {} },
      { channelId: channelB, groupId: null, items: [{ content: "Same everywhere", media: [], delay: 0 }], settings: {} }
    ])
  })

  it("adds the thread as follow-ups with their delays", () => {
    const post = ok({ content: "Root", channels: [channelA], thread: [{ content: "One", delay: 5 }, { content: "Two" }] })
    expect(post.entries[0].items).toEqual([
      { content: "Root", media: [], delay: 0 },
      { content: "One", media: [], delay: 5 },
      { content: "Two", media: [], delay: 0 }
    ])
  })

  it("lets a channel object change content, media, settings and thread for that channel", () => {
    const post = ok({
      content: "Shared",
      thread: [{ content: "Shared follow-up", delay: 1 }],
      channels: [
        channelA,
        {
          channelId: channelB,
          content: "Own",
          media: [mediaId],
          settings: { __type: "x", who_can_reply_post: "following" },
          thread: [{ content: "Own follow-up", delay: 2 }]
        }
      ]
    })
    expect(post.entries).toEqual([
      {
        channelId: channelA,
        groupId: null,
        items: [
          { content: "Shared", media: [], delay: 0 },
          { content: "Shared follow-up", media: [], delay: 1 }
        ],
        settings: {}
      },
      {
        channelId: channelB,
        groupId: null,
        items: [
          { content: "Own", media: [{ id: mediaId, path: null, alt: null }], delay: 0 },
          { content: "Own follow-up", media: [], delay: 2 }
        ],
        settings: { who_can_reply_post: "following" }
      }
    ])
  })

  it("reads top-level media for every channel", () => {
    expect(ok({ content: "x", media: [mediaId], channels: [channelA] }).entries[0].items[0].media).toEqual([{ id: mediaId, path: null, alt: null }])
  })

  it("shares the other fields with the full form", () => {
    expect(
      ok({
        type: "update",
        date: later,
        content: "x",
        channels: [channelA],
        tags: ["News"],
        shortLink: true,
        repeatDays: 7,
        groupId,
        creationMethod: "mcp"
      })
    ).toMatchObject({
      type: "schedule",
      date: new Date(later),
      dateGiven: true,
      groupId,
      tags: [{ kind: "ref", value: "News" }],
      shortLink: true,
      repeatDays: 7,
      creationMethod: "mcp"
    })
  })

  it.each([
    ["no content anywhere", { channels: [channelA] }, "content is required: the text of the post."],
    ["a channel object without content and no shared content", { channels: [{ channelId: channelA }] }, "content is required: the text of the post."],
    ["no channels", { content: "x" }, "channels is required."],
    ["empty channels", { content: "x", channels: [] }, "channels must have at least one channel id."],
    [
      "a channel of the wrong kind",
      { content: "x", channels: [5] },
      "channels[0] must be a channel id or an object {channelId, content, media, settings, thread}."
    ],
    ["a channel object without channelId", { content: "x", channels: [{ content: "y" }] }, "channels[0].channelId is required."],
    ["a thread item without content", { content: "x", channels: [channelA], thread: [{ delay: 5 }] }, "thread[0].content is required."],
    [
      "the same channel twice",
      { content: "x", channels: [channelA, { channelId: channelA }] },
      `channels[1] repeats channel ${channelA}. Give each channel once; use follow-up items for more text.`
    ]
  ])("refuses %s", (_, body, message) => {
    expect(fails(body)).toMatchObject({ status: 400, error: message })
  })
})

describe("htmlToPlainText", () => {
  it.each([
    ["plain text stays as sent", "Hello\n\n\n\nworld  ", "Hello\n\n\n\nworld  "],
    ["a < without a tag survives", "a < b and c > d", "a < b and c > d"],
    ["angle brackets that are not HTML survive", "Press <Ctrl> + C, I <3 it", "Press <Ctrl> + C, I <3 it"],
    ["entities in plain text stay", "AT&amp;T", "AT&amp;T"],
    ["paragraphs become lines", "<p>One</p><p>Two</p>", "One\nTwo"],
    ["br becomes a new line", "One<br>Two<br/>Three<BR />Four", "One\nTwo\nThree\nFour"],
    ["div and li end lines", "<div>A</div><ul><li>B</li><li>C</li></ul>", "A\nB\nC"],
    ["other tags are dropped", "<p><strong>Bold</strong> and <em>it</em></p>", "Bold and it"],
    ["a link keeps its address after its text", '<p>A <a href="https://x.com/a?b=1&amp;c=2">link</a></p>', "A link (https://x.com/a?b=1&c=2)"],
    [
      "a link whose text is its address is the address once",
      "<p><a href='https://x.com/a'>https://x.com/a</a> <a href=https://y.com></a></p>",
      "https://x.com/a https://y.com"
    ],
    ["a link to no address keeps its text", '<p><a href="#top">top</a> <a href="javascript:run()">run</a></p>', "top run"],
    ["script and style contents are dropped", "<style>p{}</style><p>Hi</p><script>alert(1)</script><SCRIPT src=x>", "Hi"],
    ["named entities decode", "<p>&amp; &lt;tag&gt; &quot;q&quot; &#39;s&#39; a&nbsp;b</p>", "& <tag> \"q\" 's' a b"],
    ["numeric entities decode", "<p>&#233;&#x1F600;&#X41;</p>", "é😀A"],
    ["decoding is one pass", "<p>&amp;lt;</p>", "&lt;"],
    ["3+ new lines collapse to 2", "<p>A</p><p></p><p></p><p>B</p>", "A\n\nB"],
    ["the result is trimmed", "<p>  A  </p><br>", "A"],
    ["a < inside HTML text survives", "<p>a < b</p>", "a < b"],
    ["comments are dropped", "<p>A<!-- note --></p>", "A"],
    ["an invalid code point stays as written", "<p>&#0;</p>", "&#0;"]
  ])("%s", (_, html, text) => {
    expect(htmlToPlainText(html)).toBe(text)
  })
})

describe("POST /posts body: every list is bounded (domain/posts/limits.ts)", () => {
  const many = <A>(n: number, f: (i: number) => A) => Array.from({ length: n }, (_, i) => f(i))
  const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`

  it.each([
    [
      "101 entries",
      { posts: many(101, (i) => entry({ integration: { id: uuid(i) } })) },
      "posts must be an array of at most 100 entries, one per channel."
    ],
    ["101 items", { posts: [entry({ value: many(101, () => ({ content: "x" })) })] }, "posts[0].value must be an array of at most 100 items."],
    [
      "21 files",
      { posts: [entry({ value: [{ content: "x", media: many(21, uuid) }] })] },
      "posts[0].value[0].media must be an array of at most 20 media."
    ],
    ["101 tags", full({ tags: many(101, (i) => `t${i}`) }), "tags must be an array of at most 100 tags."],
    [
      "101 settings",
      { posts: [entry({ settings: Object.fromEntries(many(101, (i) => [`k${i}`, i])) })] },
      "posts[0].settings must be an object with at most 100 keys."
    ],
    ["101 channels", { content: "x", channels: many(101, uuid) }, "channels must be an array of at most 100 channels."],
    [
      "100 follow-ups",
      { content: "x", channels: [channelA], thread: many(100, () => ({ content: "y" })) },
      "thread must be an array of at most 99 follow-up items."
    ],
    ["21 shared files", { content: "x", channels: [channelA], media: many(21, uuid) }, "media must be an array of at most 20 media."]
  ])("%s: 400 with the limit", (_what, body, error) => {
    expect(fails(body)).toMatchObject({ status: 400, error })
  })

  it("the limits themselves are read", () => {
    const post = ok({
      posts: many(100, (i) => entry({ integration: { id: uuid(i) }, value: many(100, () => ({ content: "x", media: many(20, uuid) })) })),
      tags: many(100, (i) => `t${i}`)
    })
    expect(post.entries).toHaveLength(100)
    expect(post.entries[0].items).toHaveLength(100)
    expect(post.tags).toHaveLength(100)
    expect(ok({ content: "x", channels: [channelA], thread: many(99, () => ({ content: "y" })) }).entries[0].items).toHaveLength(100)
  })
})
