import { Effect, Layer } from "effect"
import { MediaRepo } from "../media/mediaRepo.js"
import { SavepointRepo } from "../platform/savepointRepo.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { CreatePostRepo } from "./createPostRepo.js"
import { IdempotencyRepo } from "./idempotencyRepo.js"
import { makeImportedPosts } from "./importedPosts.js"
import { makeNewPosts } from "./newPosts.js"
import { makePostChanges } from "./postChanges.js"
import { PostStepsRepo } from "./postStepsRepo.js"
import { PostsReadRepo } from "./postsReadRepo.js"
import { TagsRepo } from "./tagsRepo.js"

export { requestHashOf, type PostsAnswer } from "./newPosts.js"

/**
 * The posts feature's writes, run by the workspace's actor one at a time
 * (docs/architecture.md: Workspace actors). Every change is decided by the state machine (domain/posts/states.ts),
 * checked against the network rules (domain/posts/rules.ts) and written with its activity
 * and events in one transaction, or, for a new post without tags, in one statement.
 * New posts: newPosts.ts; an import's rows as one batch: importedPosts.ts; changes of stored posts: postChanges.ts. No SQL here: the
 * repositories hold it.
 */
export class PostWriter extends Effect.Service<PostWriter>()("posts/PostWriter", {
  effect: Effect.gen(function* () {
    const newPosts = yield* makeNewPosts()
    const { importPosts } = yield* makeImportedPosts(newPosts)
    const changes = yield* makePostChanges
    return { keptAnswer: newPosts.keptAnswer, create: newPosts.create, importPosts, ...changes }
  }),
  // Transactions is the host's (services/sharding/fencedTransactions.ts): fenced by the shard's lease
  dependencies: [
    PostsReadRepo.Live,
    PostStepsRepo.Live,
    CreatePostRepo.Live,
    ChannelsRepo.Live,
    MediaRepo.Live,
    IdempotencyRepo.Live,
    TagsRepo.Live,
    SavepointRepo.Live
  ]
}) {
  /** The writer without a database: give it Test layers of its repositories (test/unit). */
  static readonly Test = PostWriter.DefaultWithoutDependencies.pipe(Layer.provide(Transactions.Test), Layer.provide(SavepointRepo.Test))
}
