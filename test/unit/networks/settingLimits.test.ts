import { describe, expect, it } from "vitest"
import { devto, hashnode, listmonk } from "../../../domain/networks/publishing.js"
import { settingWords } from "../../../domain/networks/settingLimits.js"
import { settingsProblems } from "../../../domain/posts/rules.js"

/** The setting limits of dev.to, Hashnode and Listmonk, checked before a post is saved. */

describe("setting limits before saving", () => {
  it.each([
    ["dev.to: 5 tags", devto, { title: "T", tags: ["a", "b", "c", "d", "e"] }, "Blog: Dev.to takes at most 4 tags, not 5."],
    ["dev.to: a tag with a sign", devto, { title: "T", tags: [{ value: "c++" }] }, 'Blog: the tags entry "c++" must be letters and digits only.'],
    ["dev.to: a long title", devto, { title: "t".repeat(129) }, "Blog: the setting title is at most 128 characters on Dev.to (129 given)."],
    [
      "dev.to: a canonical URL that is no address",
      devto,
      { title: "T", canonical_url: "blog/post" },
      'Blog: the setting canonical_url "blog/post" is not a web address (http or https).'
    ],
    [
      "Hashnode: 16 tags",
      hashnode,
      { title: "T", tags: Array.from({ length: 16 }, (_, i) => `t${i}`) },
      "Blog: Hashnode takes at most 15 tags, not 16."
    ],
    [
      "Hashnode: a series by name",
      hashnode,
      { title: "T", series: "My series" },
      'Blog: the setting series "My series" must be a Hashnode series id (24 hexadecimal digits).'
    ],
    [
      "Listmonk: a long subject",
      listmonk,
      { subject: "s".repeat(201) },
      "Blog: the setting subject is at most 200 characters on Listmonk (201 given)."
    ],
    [
      "Listmonk: a list by name",
      listmonk,
      { list: "weekly" },
      'Blog: the setting list "weekly" must be a list id, a number (the lists tool lists them).'
    ]
  ] as const)("%s is refused", (_what, network, settings, message) => {
    expect(settingsProblems("Blog", network, settings)).toEqual([message])
  })

  it.each([
    [devto, { title: "T", tags: "typescript, effect", canonical_url: "https://blog.example/a" }],
    [hashnode, { title: "T", tags: ["Web Dev"], series: "0123456789abcdef01234567" }],
    [listmonk, { list: 3 }],
    [listmonk, {}]
  ] as const)("%#: settings within the limits pass", (network, settings) => {
    expect(settingsProblems("Blog", network, settings)).toEqual([])
  })

  it("reads list settings as clients send them: strings, {value}, {label} or one comma-separated text", () => {
    expect(settingWords(["a", { value: "b" }, { label: "c" }, " a ", ""])).toEqual(["a", "b", "c"])
    expect(settingWords("x, y,,z")).toEqual(["x", "y", "z"])
    expect(settingWords(undefined)).toEqual([])
  })
})
