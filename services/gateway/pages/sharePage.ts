import type { WholePost } from "../../../protocol/http/postResources.js"
import { escapeHtml, page } from "./html.js"

const statusText: Record<WholePost["status"], string> = {
  draft: "Draft",
  review: "Waiting for your approval",
  scheduled: "Scheduled",
  changes: "Changes requested",
  published: "Published",
  partial: "Partly published",
  error: "Failed"
}

/**
 * The share page: the post as each channel will show it, and for a post in review,
 * the client's two choices. Forms post back to the same unguessable link.
 */
export const sharePage = (post: WholePost, link: string, notice: string | null): string => {
  const when = new Date(post.publishAt).toUTCString()
  const channels = post.channels
    .map(
      (c) => `<section class="channel">
  <div class="meta">${escapeHtml(c.channelName)} · ${escapeHtml(c.provider)}</div>
  <p class="text">${escapeHtml(c.root.content)}</p>
  ${c.root.media.map((m) => `<div class="meta">${escapeHtml(m.type)}: ${escapeHtml(m.name || m.url)}</div>`).join("\n")}
  ${c.thread.map((t) => `<div class="thread"><p class="text">${escapeHtml(t.content)}</p><div class="meta">${t.delay} min after the previous one</div></div>`).join("\n")}
</section>`
    )
    .join("\n")
  const review =
    post.status === "review"
      ? `<h2>Your decision</h2>
<form method="post" action="${escapeHtml(link)}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${escapeHtml(link)}/changes" style="display:block">
  <label for="comment">What should change?</label>
  <textarea id="comment" name="comment" required maxlength="5000"></textarea>
  <button type="submit" class="secondary">Ask for changes</button>
</form>`
      : ""
  const comments =
    post.comments.length === 0
      ? ""
      : `<h2>Comments</h2>${post.comments
          .map((c) => `<p><strong>${escapeHtml(c.author)}</strong>: <span class="text">${escapeHtml(c.content)}</span></p>`)
          .join("\n")}`
  return page(
    "Post preview",
    `<h1>Post preview</h1>
<p><span class="status">${statusText[post.status]}</span> <span class="meta">for ${escapeHtml(when)}</span></p>
${notice === null ? "" : `<p role="status"><strong>${escapeHtml(notice)}</strong></p>`}
${channels}
${review}
${comments}`
  )
}

export const notFoundPage = () => page("Not found", "<h1>This link does not lead to a post.</h1><p>It may have been deleted.</p>")
