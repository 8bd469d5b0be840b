/**
 * Spec transition "any → DELETE /integrations/{id}": the channel's drafts, queued,
 * failed and unconfirmed posts are deleted; live posts stay on the network.
 * Posts being published right now (publishing, pending) are left to finish.
 */
export const channelDeletionRemoves = ["draft", "queued", "error", "unconfirmed"] as const
