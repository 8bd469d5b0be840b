import { Effect, Option } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import { linksToShorten, shortenedFor, shortUrl } from "../../domain/shortLinks.js"
import { AppConfig } from "../platform/config.js"
import { ShortLinksRepo } from "../shortLinks/shortLinksRepo.js"
import type { ItemToPublish } from "./attemptsRepo.js"
import { withSpan } from "../platform/tracing.js"

/**
 * The text the network gets: for a post with `shortLink`, its links replaced by short
 * links of this server (domain/shortLinks.ts says which; the codes are made once per link
 * and channel post, so a publish that runs again sends the very same text). The stored
 * post keeps the original text.
 */
export const textToSend = (item: ItemToPublish) =>
  Effect.gen(function* () {
    const repo = yield* ShortLinksRepo
    const { publicUrl } = yield* AppConfig
    const network = findNetwork(item.network)
    const links = linksToShorten(item.content, publicUrl)
    if (links.length === 0 || Option.isNone(network) || !(yield* repo.enabledFor(item.groupId))) return item.content
    const codes = yield* repo.codesFor({ workspaceId: item.workspaceId, postId: item.postId, urls: links.map((l) => l.url) })
    return shortenedFor(network.value, item.content, links, (url) => shortUrl(publicUrl, codes.get(url) ?? ""))
  }).pipe(withSpan("publisher.textToSend"))
