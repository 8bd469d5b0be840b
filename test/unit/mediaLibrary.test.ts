import { describe, expect, it } from "vitest"
import { formats } from "../../domain/media/formats.js"
import { cleanName, importName, isStorageKey, mediaItem, storageKey } from "../../domain/media/library.js"
import { parseRange } from "../../services/gateway/http/mediaHttp.js"
import { containsPattern } from "../../services/media/mediaRepo.js"

const ws = "6f1c1f0e-8a4e-4d7e-9a55-0d7b8f3f2a11"
const id = "0b8e3f5c-2d4a-4c1b-8e9f-7a6b5c4d3e2f"

describe("upload-from-url: name is the last part of the address", () => {
  it.each([
    ["https://cdn.example.com/images/photo.jpg", "photo.jpg"],
    ["https://cdn.example.com/images/photo.jpg?w=1200&h=800#x", "photo.jpg"],
    ["https://cdn.example.com/a/My%20Holiday.png", "My Holiday.png"],
    ["https://cdn.example.com/a/b/", "b"],
    ["https://cdn.example.com/", "cdn.example.com"],
    ["https://cdn.example.com/bad%E0%A4%A", "bad%E0%A4%A"],
    ["https://cdn.example.com/%2e%2e%2fetc%2fpasswd", "passwd"]
  ])("%s → %s", (address, name) => {
    expect(importName(address)).toBe(name)
  })
})

describe("file names", () => {
  it("lose paths and control characters and are at most 255 characters", () => {
    expect(cleanName("C:\\Users\\me\\photo.png")).toBe("photo.png")
    expect(cleanName("a\u0000b\nc.png")).toBe("abc.png")
    expect(cleanName("x".repeat(300))).toHaveLength(255)
  })
})

describe("storage keys", () => {
  it("are <workspace>/<id>.<ext> and nothing else is read back", () => {
    const key = storageKey(ws, id, formats.webp)
    expect(key).toBe(`${ws}/${id}.webp`)
    expect(isStorageKey(key)).toBe(true)
    for (const bad of [`${ws}/${id}.exe`, `${ws}/../${id}.png`, `${id}.png`, `${ws}/${id}.png/x`, `/${ws}/${id}.png`]) {
      expect(isStorageKey(bad), bad).toBe(false)
    }
  })
})

describe("the Media item", () => {
  const record = {
    id,
    name: "a.png",
    originalName: "a.png",
    path: "https://x/media/k.png",
    alt: "",
    mime: "image/png",
    type: "image" as const,
    size: 10,
    width: 1,
    height: 1,
    status: "ready" as const,
    facts: null
  }
  it("has thumbnail = path for images and null for videos, and the spec's fields then the facts", () => {
    expect(mediaItem(record)).toEqual({
      id,
      name: "a.png",
      originalName: "a.png",
      path: "https://x/media/k.png",
      thumbnail: "https://x/media/k.png",
      alt: "",
      type: "image",
      status: "ready",
      facts: null
    })
    expect(mediaItem({ ...record, type: "video" }).thumbnail).toBeNull()
  })
})

describe("search text is literal", () => {
  it("escapes %, _ and \\", () => {
    expect(containsPattern("50%_off\\x")).toBe("%50\\%\\_off\\\\x%")
  })
})

describe("Range on the file route", () => {
  it.each([
    [undefined, undefined],
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=100-", { start: 100, end: 999 }],
    ["bytes=-10", { start: 990, end: 999 }],
    ["bytes=900-5000", { start: 900, end: 999 }],
    ["bytes=1000-", "unsatisfiable"],
    ["bytes=5-1", "unsatisfiable"],
    ["bytes=-0", "unsatisfiable"],
    ["bytes=0-1,5-6", undefined],
    ["items=0-1", undefined]
  ])("%s of 1000 bytes → %j", (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected)
  })
})
