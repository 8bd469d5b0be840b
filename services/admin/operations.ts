import { SqlClient } from "@effect/sql"
import { Data, Effect, Either, Option, Predicate } from "effect"
import { applyBillingEvent, eventPlan, publishingPaused, releasesHolds, startTrial, type BillingEvent, type Plan } from "../../domain/billing.js"
import { planHasTeam } from "../../domain/plans.js"
import { makeDueItemsRepo } from "../scheduler/dueItemsRepo.js"
import type { BillingDetails } from "./cliArgs.js"
import { channelLimitReached } from "../channels/channelConnections.js"
import { connectWithCredentials } from "../channels/connectWithCredentials.js"
import { findNetwork } from "../../domain/networks/index.js"
import { parsePostingTimes } from "../../domain/postingTimes.js"
import type { Role } from "../../domain/roles.js"
import * as Outbox from "../platform/outbox.js"
import { newToken, tokenHash } from "../platform/secrets.js"
import { makePeopleRepo } from "../people/peopleRepo.js"
import * as ChannelsRepo from "../repos/channelsRepo.js"
import * as CustomersRepo from "../repos/customersRepo.js"
import { makeTokensRepo } from "../repos/tokensRepo.js"
import * as WorkspacesRepo from "../repos/workspacesRepo.js"
import { hashPassword } from "../people/passwords.js"

/** An operator's request that cannot be carried out as given. */
export class AdminInputError extends Data.TaggedError("AdminInputError")<{ readonly message: string }> {}

const uuid = () => crypto.randomUUID()

/** Postgres 23505: a unique constraint refused the row. */
export const isUniqueViolation = (e: unknown): boolean =>
  Predicate.hasProperty(e, "cause") && Predicate.hasProperty(e.cause, "code") && e.cause.code === "23505"

/**
 * What operators do from the admin CLI (and what the first start does for the demo
 * workspace). Each operation is one transaction.
 */
export const makeAdminOperations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const dueItems = yield* makeDueItemsRepo
  const people = yield* makePeopleRepo
  const tokens = yield* makeTokensRepo

  const requireWorkspace = (workspaceId: string) =>
    Effect.gen(function* () {
      const row = yield* WorkspacesRepo.findBillingState(workspaceId)
      if (Option.isNone(row)) return yield* new AdminInputError({ message: `No workspace ${workspaceId}.` })
      return row.value
    })

  const issueWorkspaceKey = (workspaceId: string) =>
    Effect.gen(function* () {
      const apiKey = newToken("svc_live_")
      yield* tokens.revokeWorkspaceKeys(workspaceId)
      yield* tokens.insertWorkspaceKey({ id: uuid(), workspaceId, tokenHash: tokenHash(apiKey), label: "Workspace API key" })
      return apiKey
    })

  /** A workspace on a paid plan, or (`trial`) in its 7-day trial with that plan to try. */
  const createWorkspace = (input: { name: string; plan: Plan; trial?: boolean }) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const workspaceId = uuid()
        const trialEndsAt = input.trial === true ? startTrial(input.plan, new Date()).trialEndsAt : null
        yield* WorkspacesRepo.insertWorkspace({ id: workspaceId, name: input.name, plan: input.plan, trialEndsAt })
        const apiKey = yield* issueWorkspaceKey(workspaceId)
        return { workspaceId, apiKey }
      })
    )

  const createUser = (input: { workspaceId: string; email: string; password: string; role: Role; timezone: string | null }) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          yield* requireWorkspace(input.workspaceId)
          let userId = yield* people.findUserIdByEmail(input.email)
          if (userId === undefined) {
            userId = uuid()
            const passwordHash = yield* Effect.promise(() => hashPassword(input.password))
            yield* people.insertUser({ id: userId, email: input.email, passwordHash, timezone: input.timezone })
          }
          yield* people.insertMembership({ workspaceId: input.workspaceId, userId, role: input.role })
          return { userId }
        })
      )
      .pipe(
        Effect.catchIf(
          isUniqueViolation,
          () => new AdminInputError({ message: "That person is already a member, or the workspace already has an owner." })
        )
      )

  const createCustomer = (input: { workspaceId: string; name: string; approval: boolean }) =>
    Effect.gen(function* () {
      yield* requireWorkspace(input.workspaceId)
      const customerId = uuid()
      yield* CustomersRepo.insertCustomer({ id: customerId, ...input })
      return { customerId }
    })

  const createChannel = (input: {
    workspaceId: string
    network: string
    name: string
    customerId: string | null
    postingTimes: ReadonlyArray<string>
    /** The `--credentials` JSON, checked against the network before anything is saved. */
    credentials?: unknown
  }) =>
    Effect.gen(function* () {
      yield* requireWorkspace(input.workspaceId)
      if (Option.isNone(findNetwork(input.network))) {
        return yield* new AdminInputError({ message: `Unknown network ${input.network}. GET /public/v1/networks lists them.` })
      }
      const postingTimes = parsePostingTimes(input.postingTimes)
      if (postingTimes === null) return yield* new AdminInputError({ message: "Posting times are HH:MM, e.g. 09:00,13:30." })
      if (input.customerId !== null) {
        if (!(yield* CustomersRepo.customerExists(input.workspaceId, input.customerId)))
          return yield* new AdminInputError({ message: `No customer ${input.customerId} in this workspace.` })
      }
      // without credentials the channel exists but cannot publish until it is connected
      // (GET /social?refresh=<id>); the test network needs none
      if (input.credentials === undefined || input.credentials === null) {
        // the workspace row locked while counting, so two at once cannot both pass the plan's limit
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const overLimit = yield* channelLimitReached(input.workspaceId, true)
            if (Option.isSome(overLimit))
              return yield* new AdminInputError({ message: `${overLimit.value.error} ${overLimit.value.fix ?? ""}`.trim() })
            const channelId = uuid()
            yield* ChannelsRepo.insertChannel({
              id: channelId,
              workspaceId: input.workspaceId,
              customerId: input.customerId,
              network: input.network,
              name: input.name,
              profile: input.name.toLowerCase().replace(/[^a-z0-9]+/g, "_"),
              postingTimes: [...postingTimes]
            })
            return { channelId }
          })
        )
      }
      const { channelId } = yield* connectWithCredentials({
        workspaceId: input.workspaceId,
        network: input.network,
        name: input.name,
        customerId: input.customerId,
        postingTimes,
        credentials: input.credentials
      }).pipe(Effect.mapError((e) => new AdminInputError({ message: e.message })))
      return { channelId }
    })

  const rotateKey = (workspaceId: string) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* requireWorkspace(workspaceId)
        return { apiKey: yield* issueWorkspaceKey(workspaceId) }
      })
    )

  /**
   * A billing event (domain/billing.ts decides whether it may happen now and what it
   * changes). In one transaction: the workspace's billing, people paused or resumed by
   * whether the plan has a team, due items held when publishing pauses or released when a
   * payment lifts the pause (the scheduler claims them at once, oldest due first), and
   * `billing.changed` in the outbox. An event out of order changes nothing.
   */
  const setBilling = (input: { workspaceId: string; event: BillingEvent } & Partial<BillingDetails>) =>
    Outbox.transaction(
      Effect.gen(function* () {
        const account = yield* WorkspacesRepo.lockBillingAccount(input.workspaceId)
        if (Option.isNone(account)) return yield* new AdminInputError({ message: `No workspace ${input.workspaceId}.` })
        const before = account.value
        const now = new Date()
        const applied = applyBillingEvent(before, { event: input.event, plan: input.plan ?? null, periodEnd: input.periodEnd ?? null }, now)
        if (Either.isLeft(applied)) return yield* new AdminInputError({ message: applied.left.message })
        const after = applied.right
        yield* WorkspacesRepo.saveBilling(input.workspaceId, input.event, after)
        // nothing is deleted: people are paused while the plan has no team and resumed with one
        if (planHasTeam(after.plan)) yield* people.resumePausedByPlan(input.workspaceId)
        else yield* people.pauseForPlan(input.workspaceId)
        if (publishingPaused(after.state, after.pastDueSince, now)) yield* dueItems.holdForBilling([input.workspaceId])
        else if (releasesHolds(before, after, now)) yield* dueItems.releaseBillingHolds([input.workspaceId])
        yield* Outbox.write(input.workspaceId, [
          {
            event: "billing.changed",
            data: {
              plan: eventPlan(after, input.event),
              test: input.test ?? false,
              event: input.event,
              amount: input.amount ?? null,
              period: input.period ?? null,
              currency: input.currency ?? null,
              periodEnd: after.periodEnd
            }
          }
        ])
        return { workspaceId: input.workspaceId, billingState: after.state }
      })
    )

  return { createWorkspace, createUser, createCustomer, createChannel, rotateKey, setBilling }
})

export type AdminOperations = Effect.Effect.Success<typeof makeAdminOperations>
