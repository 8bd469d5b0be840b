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
  settings: [
    titleSetting,
    {
      key: "contentFormat",
      label: "Format",
      type: "select",
      options: ["markdown", "html"],
      help: "How the text is written: Markdown (default) or an HTML fragment."
    },
    {
      key: "publishStatus",
      label: "Status",
      type: "select",
      options: ["public", "draft", "unlisted"],
      help: "public (default), draft or unlisted."
    },
    { key: "tags", label: "Tags", type: "text", options: [], help: "Up to 3 tags, comma-separated, each up to 25 characters." },
    { key: "canonicalUrl", label: "Canonical address", type: "text", options: [], help: "Where the article was first published, if elsewhere." }
  ],
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
  settings: [
    titleSetting,
    { key: "description", label: "Description", type: "text", options: [], help: "The summary shown under the title in feeds (optional)." },
    { key: "tags", label: "Tags", type: "list", options: [], help: "Up to 4 tags, letters and digits only (a list of text)." },
    { key: "canonical_url", label: "Canonical URL", type: "text", options: [], help: "Where the article first appeared (optional)." },
    { key: "series", label: "Series", type: "text", options: [], help: "The name of the series the article belongs to (optional)." }
  ],
  tools: [],
  rules:
    "An article of up to 100000 characters (Markdown) with a title and up to 4 tags. Up to 1 cover image. " + "Follow-up comments are not supported."
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
  settings: [
    titleSetting,
    { key: "subtitle", label: "Subtitle", type: "text", options: [], help: "A line under the title (optional)." },
    { key: "tags", label: "Tags", type: "list", options: [], help: "Up to 15 tag slugs (a list of text); new tags are created." },
    { key: "canonical_url", label: "Canonical URL", type: "text", options: [], help: "Where the article first appeared (optional)." },
    { key: "series", label: "Series", type: "text", options: [], help: "The id of one of the publication's series (optional)." }
  ],
  tools: [],
  rules:
    "An article of up to 10000 characters (Markdown) with a title and up to 15 tags. Up to 1 cover image. " + "Follow-up comments are not supported."
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
  settings: [
    titleSetting,
    {
      key: "status",
      label: "Status",
      type: "select",
      options: ["publish", "draft", "pending", "private"],
      help: "publish (default), draft, pending (for review) or private."
    },
    {
      key: "categories",
      label: "Categories",
      type: "text",
      options: [],
      help: "Category ids, comma-separated; list them with the categories tool."
    },
    { key: "tags", label: "Tags", type: "text", options: [], help: "Tag ids, comma-separated; list them with the tags tool." }
  ],
  tools: [
    { methodName: "categories", description: "List the site's categories (id and name).", dataSchema: [] },
    {
      methodName: "tags",
      description: "List the site's tags (id and name), those with the word when one is given.",
      dataSchema: [{ key: "word", type: "string", description: "Word to search tag names for (optional)" }]
    }
  ],
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
  settings: [
    {
      key: "subject",
      label: "Subject",
      type: "text",
      options: [],
      help: "The e-mail's subject. Left out: the text's first line (up to 200 characters)."
    },
    {
      key: "list",
      label: "List",
      type: "text",
      options: [],
      help: "Id of the mailing list to send to; list them with the lists tool. Left out: the channel's list."
    }
  ],
  tools: [{ methodName: "lists", description: "List the instance's mailing lists (id, name, subscribers).", dataSchema: [] }],
  rules:
    "An email campaign of up to 100000000 characters (Markdown), sent to one mailing list (the channel's unless the " +
    "post names one). Up to 1 image. Follow-up comments are not supported."
}
