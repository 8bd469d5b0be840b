import { createHash } from "node:crypto"
import {
  bearerOf,
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Medium's API as github.com/Medium/medium-api-docs documents it: GET /me (the User in a
 * `data` envelope), POST /users/{authorId}/posts (title, contentFormat `html` or
 * `markdown`, content, tags, canonicalUrl, publishStatus `public`/`draft`/`unlisted`;
 * 201 with the Post; 400 for invalid fields, 401 for a bad token, 403 when authorId is not
 * the token's user) and POST /images (multipart, field `image`, JPEG, PNG, GIF or TIFF;
 * 201 with `{url, md5}`). Images named in the content are side-loaded (fetched) as Medium
 * does. There is no endpoint that lists posts. Errors are `{errors: [{message, code}]}`.
 */
const NETWORK = "medium"

interface Account {
  readonly id: string
  readonly username: string
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const images = new WeakMap<SimCore, Map<string, { readonly mime: string; readonly size: number }>>()

const error = (status: number, code: number, message: string): SimResponse => ({ status, body: { errors: [{ message, code }] } })
const unauthorized = error(401, 6003, "Token was invalid.")

export const seedMediumAccount = (core: SimCore, input: { readonly username?: string } = {}) => {
  const all = stateOf(accounts, core)
  const id = `${core.newId()}${core.newId()}`.slice(0, 32)
  const username = input.username ?? `writer${all.size + 1}`
  all.set(id, { id, username })
  return { integrationToken: core.issueToken(NETWORK, id, "access", null) }
}

/** Medium shows the content's first heading as the article's title: the body is what follows, images apart. */
const bodyOf = (format: string, content: string) =>
  format === "markdown"
    ? content
        .replace(/^#\s[^\n]*\n*/, "")
        .split(/\n{2,}/)
        .filter((p) => !/^!\[[^\]]*\]\([^)]*\)$/.test(p.trim()))
        .join("\n\n")
        .trim()
    : content
        .replace(/^<h1>.*?<\/h1>/s, "")
        .replace(/<img\b[^>]*>/g, "")
        .trim()

const imageAddresses = (format: string, content: string) =>
  format === "markdown"
    ? [...content.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "")
    : [...content.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1] ?? "")

const createPost = async (request: SimRequest, core: SimCore, account: Account, authorId: string): Promise<SimResponse> => {
  if (authorId !== account.id) return error(403, 6027, "User does not have permission to publish, or the authorId points to another user.")
  const raw = jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  const title = typeof body["title"] === "string" ? body["title"] : ""
  const format = body["contentFormat"]
  const content = typeof body["content"] === "string" ? body["content"] : ""
  if (title === "" || content === "") return error(400, 6000, "Required fields were invalid, not specified: title, content.")
  if (format !== "html" && format !== "markdown") return error(400, 6000, "contentFormat must be html or markdown.")
  const status = body["publishStatus"] ?? "public"
  if (status !== "public" && status !== "draft" && status !== "unlisted") return error(400, 6000, "publishStatus must be public, draft or unlisted.")
  const media: Array<{ id: string; mime: string; size: number }> = []
  for (const url of imageAddresses(format, content)) {
    // an image uploaded with POST /images is Medium's own; any other address is fetched
    const known = stateOf(images, core).get(url)
    if (known !== undefined) {
      media.push({ id: url, mime: known.mime, size: known.size })
      continue
    }
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) return error(400, 6000, `An image of the content could not be side-loaded (${fetched.reason}).`)
    media.push({ id: url, mime: fetched.mime, size: fetched.bytes.length })
  }
  const tags = (Array.isArray(body["tags"]) ? body["tags"] : []).filter((t): t is string => typeof t === "string" && t.length <= 25).slice(0, 3)
  const id = core.newId().slice(-12)
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
  const url = `https://medium.com/@${account.username}/${slug}-${id}`
  core.record({
    network: NETWORK,
    id,
    url,
    account: account.id,
    text: bodyOf(format, content),
    replyTo: null,
    media,
    dedupeKey: null,
    extra: { title, contentFormat: format, content, tags, publishStatus: status, canonicalUrl: body["canonicalUrl"] }
  })
  return {
    status: 201,
    body: {
      data: {
        id,
        title,
        authorId: account.id,
        tags,
        url,
        ...(typeof body["canonicalUrl"] === "string" ? { canonicalUrl: body["canonicalUrl"] } : {}),
        publishStatus: status,
        ...(status === "draft" ? {} : { publishedAt: Date.now() }),
        license: "all-rights-reserved",
        licenseUrl: "https://medium.com/policy/9db0094a1e0f"
      }
    }
  }
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  const account = accountId === null ? undefined : stateOf(accounts, core).get(accountId)
  if (account === undefined) return unauthorized
  const { method, path } = request
  if (method === "GET" && path === "/me")
    return {
      status: 200,
      body: {
        data: {
          id: account.id,
          username: account.username,
          name: account.username,
          url: `https://medium.com/@${account.username}`,
          imageUrl: `https://images.medium.com/${account.id}.png`
        }
      }
    }
  if (method === "POST" && path === "/images") {
    const file = parseMultipart(request.headers, request.body).files.find((f) => f.field === "image")
    if (file === undefined) return error(400, 6000, "The field name must be image.")
    if (!["image/jpeg", "image/png", "image/gif", "image/tiff"].includes(file.mime)) return error(400, 6000, `Unsupported image type ${file.mime}.`)
    const md5 = createHash("md5").update(file.bytes).digest("base64url").slice(0, 16)
    const url = `https://cdn-images-1.medium.com/0*${md5}.${file.mime.split("/")[1] ?? "png"}`
    stateOf(images, core).set(url, { mime: file.mime, size: file.bytes.length })
    return { status: 201, body: { data: { url, md5 } } }
  }
  const posts = /^\/users\/([^/]+)\/posts$/.exec(path)
  if (method === "POST" && posts !== null) return createPost(request, core, account, decodeURIComponent(posts[1] ?? ""))
  return undefined
}

export const mediumModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ MEDIUM_API_URL: base }),
  handle,
  opOf: ({ method, path }) => (method === "POST" && /^\/users\/[^/]+\/posts$/.test(path) ? "publish" : path === "/images" ? "media" : "account"),
  rejectBody: (status) => error(status ?? 400, 6000, "Required fields were invalid, not specified."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) => seedMediumAccount(core, typeof input["username"] === "string" ? { username: input["username"] } : {})
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [mediumModule]
