import { type CallbackOutcome, choosePath } from "../../channels/Connections.js"
import { escapeHtml, page } from "./html.js"

type Choose = Extract<CallbackOutcome, { readonly _tag: "Choose" }>

/**
 * The callback page of an account with several pages, organizations or locations: one
 * button each, a form post to /integrations/social/<network>/choose with the single-use
 * token. The channel is listed (inBetweenSteps) but takes no posts until one is chosen.
 */
export const choosePage = (outcome: Choose): string => {
  const action = escapeHtml(choosePath(outcome.network))
  const token = escapeHtml(outcome.token)
  const buttons = outcome.choices
    .map(
      (c) =>
        `<li><form method="post" action="${action}"><input type="hidden" name="token" value="${token}">` +
        `<button type="submit" name="choice" value="${escapeHtml(c.id)}">${escapeHtml(c.name)}</button></form></li>`
    )
    .join("")
  return page(
    "Choose what to connect",
    `<h1>Choose what to connect</h1><p>${escapeHtml(outcome.name)} signed in to ${escapeHtml(outcome.networkName)}. ` +
      `Choose the one this channel posts to (within 30 minutes); until then the channel takes no posts.</p><ul class="choices">${buttons}</ul>`
  )
}
