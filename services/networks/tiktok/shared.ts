import { Effect } from "effect"
import { ConnectFailed, PublishAnswer } from "../adapter.js"
import { trimBase } from "../networkHttp.js"

/**
 * What the two TikTok adapters share (the Content Posting API for creators, adapter.ts, and
 * the API for Business for business accounts, businessAdapter.ts): TikTok's sign-in page,
 * the addresses of an account and its posts, and what the end states of a publish mean.
 */

/** The account's page, or TikTok's home when the handle is not known. */
export const profileUrl = (username: string | undefined) =>
  username === undefined ? "https://www.tiktok.com" : `https://www.tiktok.com/@${username}`

/** A public post's address: `/video/` or `/photo/` under the account. */
export const postUrl = (username: string | undefined, kind: "video" | "photo", postId: string) => `${profileUrl(username)}/${kind}/${postId}`

/** TikTok's sign-in page (`/v2/auth/authorize/`, `client_key` and comma-separated scopes), both APIs alike. */
export const authorizeUrl = (input: {
  readonly networkName: string
  readonly envName: string
  readonly authUrl: string
  readonly clientKey: string | undefined
  readonly scopes: string
  readonly redirectUri: string
  readonly state: string
}) =>
  input.clientKey === undefined
    ? Effect.fail(new ConnectFailed({ message: `${input.networkName} is not set up on this server (${input.envName}).` }))
    : Effect.succeed(
        `${trimBase(input.authUrl)}/v2/auth/authorize/?${new URLSearchParams({
          client_key: input.clientKey,
          scope: input.scopes,
          response_type: "code",
          redirect_uri: input.redirectUri,
          state: input.state
        }).toString()}`
      )

/** FAILED: TikTok's reason, and whether the file (re-encode it) or the post (its rules) is what to change. */
export const failedAnswer = (reason: string | undefined) =>
  PublishAnswer.Rejected({
    message: `TikTok could not publish the post: ${reason ?? "no reason given"}.`,
    fix: /duration|size|resolution|format|frame|picture|pull/i.test(reason ?? "")
      ? "Change the file to what TikTok takes, then retry."
      : "Check the post against TikTok's rules, then retry."
  })

/** SEND_TO_USER_INBOX: a draft, not a post. */
export const inboxAnswer = () =>
  PublishAnswer.Rejected({
    message: "TikTok put the post in the creator's inbox as a draft instead of publishing it.",
    fix: "Finish it in the TikTok app."
  })
