import { afterAll, beforeAll, expect } from "vitest"
import type { WholePost } from "../../protocol/http/postResources.js"
import { answerOf, present } from "./answers.js"
import { type Answer, client, decoded } from "./http.js"
import { png } from "./mediaFiles.js"
import { freePort } from "./publishingProcesses.js"
import type { Simulator } from "./simulator/core.js"
import { seedAccount, simulatorEnv, startSimulator } from "./simulator/index.js"
import { createWorld, type RunningServices, startServices, type TestWorld } from "./system.js"
import { withDb } from "./tokens.js"

/**
 * What the networks' system tests share (test/system/networks.*.test.ts): a simulator of
 * every network, a world, and the gateway, actors, scheduler and publisher pointed at it,
 * started in the file's beforeAll and stopped in its afterAll. The gateway listens on a port
 * of its own that PUBLIC_URL names, so networks that fetch media from the signed public
 * address reach it.
 */
export const useNetworksWorld = (name: string) => {
  const state: { sim?: Simulator & { readonly networks: ReadonlyArray<string> }; world?: TestWorld; sys?: RunningServices; publicUrl?: string } = {}
  beforeAll(async () => {
    state.sim = await startSimulator()
    state.world = await createWorld(name)
    const port = await freePort()
    state.publicUrl = `http://127.0.0.1:${port}`
    state.sys = await startServices(state.world, ["gateway", "actors", "scheduler", "publisher"], {
      ...simulatorEnv(state.sim),
      PORT: String(port),
      PUBLIC_URL: state.publicUrl,
      PUBLISH_TIMEOUT_MS: "5000"
    })
  })
  afterAll(async () => {
    await state.sys?.stop()
    await state.world?.drop()
    await state.sim?.close()
  })
  const started = <A>(value: A | undefined, what: string): A => {
    if (value === undefined) throw new Error(`${what} is started in beforeAll`)
    return value
  }
  const world = {
    get sim() {
      return started(state.sim, "the simulator")
    },
    get world() {
      return started(state.world, "the world")
    },
    get sys() {
      return started(state.sys, "the services")
    },
    get publicUrl() {
      return started(state.publicUrl, "the gateway")
    }
  }

  /** A workspace on the ultimate plan and its API client. */
  const newWorkspace = async () => {
    const ws = await world.sys.admin.createWorkspace(name, "ultimate")
    return { ...ws, api: client(world.sys.url, ws.apiKey) }
  }

  /** A channel made with the admin CLI's `--credentials` of an account seeded on the simulated network. */
  const channelOf = async (workspaceId: string, network: string, input: Record<string, unknown> = {}) => {
    const credentials = await seedAccount(world.sim, network, input)
    const { channelId } = await world.sys.admin.createChannel({
      workspaceId,
      network,
      name: `${network} channel`,
      customerId: null,
      postingTimes: [],
      credentials
    })
    return { channelId, credentials }
  }

  /** A PNG (32×32 unless said) uploaded to the workspace's media library. */
  const upload = async (apiKey: string, width = 32, height = 32) => {
    const form = new FormData()
    form.append("file", new Blob([png(width, height)], { type: "image/png" }), "photo.png")
    const res = await fetch(`${world.sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
    expect(res.status).toBe(200)
    return (await res.json()) as { id: string; path: string }
  }

  /** The workspace's post groups and items, to show that a refused request saved nothing. */
  const counts = (workspaceId: string) =>
    withDb(world.world, async (c) => {
      const r = await c.query(
        `SELECT (SELECT count(*)::int FROM post_groups WHERE workspace_id = $1) AS groups,
                (SELECT count(*)::int FROM post_items WHERE workspace_id = $1) AS items`,
        [workspaceId]
      )
      return r.rows[0] as { groups: number; items: number }
    })

  return Object.assign(world, { newWorkspace, channelOf, upload, counts })
}

export const firstChannel = (post: WholePost) => present(post.channels[0], "the post's first channel")
export const channelsOf = (answer: Answer) => decoded(answer, answerOf("account", "listIntegrations"))
export const connectUrlOf = (answer: Answer) => decoded(answer, answerOf("account", "socialConnect")).url
