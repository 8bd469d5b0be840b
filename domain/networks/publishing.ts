import type { Network } from "./network.js"

/** Blogs and newsletters: long text, a title, and at most a cover image. */

const titleSetting = {
  key: "title",
  label: "Title",
  type: "text",
  options: [],
  help: "The article's title.",
  required: true
} as const

export const medium: Network = {
  identifier: "medium",
  name: "Medium",
  maxLength: 100000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "form",
  serverKeys: [],
  settings: [titleSetting],
  tools: [],
  rules: "An article of up to 100000 characters with a title. Up to 1 image. Follow-up comments are not supported."
}

export const devto: Network = {
  identifier: "devto",
  name: "Dev.to",
  maxLength: 100000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "form",
  serverKeys: [],
  settings: [titleSetting],
  tools: [],
  rules: "An article of up to 100000 characters (Markdown) with a title. Up to 1 cover image. " + "Follow-up comments are not supported."
}

export const hashnode: Network = {
  identifier: "hashnode",
  name: "Hashnode",
  maxLength: 10000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "An article of up to 10000 characters (Markdown). Up to 1 cover image. Follow-up comments are not supported."
}

export const wordpress: Network = {
  identifier: "wordpress",
  name: "WordPress",
  maxLength: 100000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "form",
  serverKeys: [],
  settings: [titleSetting],
  tools: [],
  rules: "A post of up to 100000 characters with a title. Up to 1 featured image. Follow-up comments are not supported."
}

export const listmonk: Network = {
  identifier: "listmonk",
  name: "Listmonk",
  maxLength: 100000000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "An email campaign of up to 100000000 characters. Up to 1 image. Follow-up comments are not supported."
}
