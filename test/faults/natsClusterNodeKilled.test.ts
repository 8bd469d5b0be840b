import { connect } from "nats"
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest"
import { names } from "../../protocol/names.js"
import { created } from "../support/answers.js"
import { privateNatsCluster } from "../support/natsCluster.js"
import { everyItemSettles, separateServices, testNetworkCopies, type SeparateServices, type UnsettledItem } from "../support/publishingProcesses.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { sleep, waitFor } from "../support/wait.js"

/**
 * NATS as a 3-node cluster (issue 37) with NATS_REPLICAS=3, gateway, actors, scheduler and
 * publisher each a process of their own, a steady load of POST /posts (each with its own
 * Idempotency-Key, sent again on a 503 as a client would): the gateway's node paused 15 s
 * (its commands are sent again while the first copies wait: never 409 for them; every request
 * answered before the node returns), then the node leading the PUBLISH stream killed (-9),
 * then the node of the actor host (made the shard leases' leader first) killed, then paused
 * 15 s: every workspace's shard serves again within seconds of the kill, and before the
 * paused node returns.
 * Every post is created once and published once, every answer is 200 or a retryable 503,
 * and 503s last a bounded time (an election and a reconnection, not a hang). A killed node
 * is started again after its test. Never the shared server on 4222.
 */

let cluster: Awaited<ReturnType<typeof privateNatsCluster>>
let world: TestWorld
let services: SeparateServices

beforeAll(async () => {
  cluster = await privateNatsCluster()
  world = await createWorld("natscluster", { ...inject("servers"), natsUrl: cluster.url })
  services = await separateServices(world, { NATS_REPLICAS: "3" })
}, 180_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop().catch(() => undefined)
  await cluster?.stop()
})

/** A request not answered for this long fails the test; 503s sent again for this long at most (both far past an election). */
const REQUEST_TIMEOUT_MS = 45_000
const RETRY_FOR_MS = 45_000
/** The running load's stop: afterEach ends it whatever the test's end, so no client outlives its test. */
let stopLoad = async () => {}
/** A node the test killed: started again after it (copies caught up), so the next test has three. */
let killed: string | undefined
afterEach(async () => {
  await stopLoad()
  if (killed !== undefined) await cluster.restartNode(killed)
  killed = undefined
}, 120_000)

/** One answer of the load: which client, when its request was sent and answered, its status. */
interface Answer {
  readonly worker: number
  readonly sent: number
  readonly at: number
  readonly status: number
}

/**
 * The longest outage the clients saw: from the first 503 of a run of 503s to the next 200
 * answered to any client (to the last answer if none came). 0 when nothing was answered 503.
 */
const longest503Ms = (answers: ReadonlyArray<Answer>) => {
  const inOrder = [...answers].sort((a, b) => a.at - b.at)
  let longest = 0
  let since: number | undefined
  for (const a of inOrder) {
    if (a.status === 503) since ??= a.at
    else if (a.status === 200 && since !== undefined) {
      longest = Math.max(longest, a.at - since)
      since = undefined
    }
  }
  return since === undefined ? longest : Math.max(longest, (inOrder.at(-1)?.at ?? since) - since)
}

/** 503s for longer than this would be a hang, not an election (a client leaves a silent node in 3 to 4 s, docs/operations.md). */
const OUTAGE_BOUND_MS = 30_000
/**
 * A node paused this long: every workspace is served again, and every request answered,
 * before it returns (a client leaves it in 3 to 4 s and dials another in 2 s at most; a
 * lease lives 6 s).
 */
const PAUSE_MS = 15_000

/** Three clients, each on a workspace of its own (POST /posts is 90 an hour per workspace, resends included). */
const steadyLoad = async () => {
  const clientsOf = await Promise.all(
    [1, 2, 3].map(async (worker) => {
      const ws = await services.createWorkspace(`Cluster ${worker}`)
      const channel = await services.createChannel({
        workspaceId: ws.workspaceId,
        network: "test",
        name: "Cluster",
        customerId: null,
        postingTimes: []
      })
      return { worker, ws, channelId: channel.channelId }
    })
  )
  const workspaceIds = clientsOf.map((c) => c.ws.workspaceId)
  const statuses: Array<number> = []
  const answers: Array<Answer> = []
  const texts: Array<string> = []
  const postIds = new Map<string, string>()
  const failures: Array<string> = []
  let longestMs = 0
  let running = true
  /** One request, given up (as a failure the test reports) after REQUEST_TIMEOUT_MS: never a hang that hides what happened. */
  const post = (channelId: string, api: (typeof clientsOf)[number]["ws"]["api"], content: string, key: string) =>
    Promise.race([
      api.post(
        "/public/v1/posts",
        { type: "now", posts: [{ integration: { id: channelId }, value: [{ content }], settings: {} }] },
        { "Idempotency-Key": key }
      ),
      sleep(REQUEST_TIMEOUT_MS).then(() => {
        throw new Error(`POST /posts "${content}" not answered within ${REQUEST_TIMEOUT_MS} ms`)
      })
    ])
  /** One client: a post every 300 ms, each with its own key, sent again with it while the answer is 503 (for RETRY_FOR_MS at most). */
  const load = async ({ worker, ws, channelId }: (typeof clientsOf)[number]) => {
    for (let n = 0; running; n++) {
      const content = `cluster ${worker}.${n} ${crypto.randomUUID().slice(0, 8)}`
      texts.push(content)
      const key = crypto.randomUUID()
      const since = Date.now()
      for (;;) {
        const sent = Date.now()
        const res = await post(channelId, ws.api, content, key)
        longestMs = Math.max(longestMs, Date.now() - sent)
        statuses.push(res.status)
        answers.push({ worker, sent, at: Date.now(), status: res.status })
        if (res.status === 200) {
          postIds.set(content, created(res).postId)
          break
        }
        if (res.status !== 503) throw new Error(`POST /posts answered ${res.status}: ${res.text}`)
        if (Date.now() - since > RETRY_FOR_MS) throw new Error(`POST /posts "${content}" answered 503 for ${RETRY_FOR_MS} ms: ${res.text}`)
        await sleep(500)
      }
      await sleep(300)
    }
  }
  const clients = clientsOf.map((c) =>
    load(c).catch((e: unknown) => {
      failures.push(e instanceof Error ? e.message : String(e))
    })
  )
  stopLoad = async () => {
    running = false
    await Promise.all(clients)
  }
  return {
    workspaceIds,
    statuses,
    answers,
    texts,
    postIds,
    longestMs: () => longestMs,
    stop: async () => {
      await stopLoad()
      expect(failures).toEqual([])
    }
  }
}

/**
 * The stream's side of items left unsettled: whether each job's message is still in PUBLISH,
 * and where the publisher's consumer stands (delivered, acknowledged floor, pending), with
 * the stream's and the consumer's leaders.
 */
const streamSide = async (left: ReadonlyArray<UnsettledItem>) => {
  const nc = await connect({ servers: cluster.url.split(","), timeout: 5_000 })
  try {
    const jsm = await nc.jetstreamManager({ timeout: 5_000 })
    const n = names(world.namespace)
    const messages = []
    for (const { jobs } of left) {
      for (const job of jobs) {
        if (job.stream_sequence === null) continue
        const seq = Number(job.stream_sequence)
        const stored = await jsm.streams.getMessage(n.publishStream, { seq }).then(
          (m) => ({ seq, subject: m.subject, id: m.header?.get("Nats-Msg-Id") }),
          (e: unknown) => ({ seq, error: String(e) })
        )
        messages.push(stored)
      }
    }
    const stream = await jsm.streams.info(n.publishStream)
    const consumer = await jsm.consumers.info(n.publishStream, n.publisherConsumer)
    // what the services said about these items
    const ids = left.map(({ item }) => String(item["id"]))
    const said = (["scheduler", "publisher"] as const).flatMap((service) =>
      services
        .current(service)
        .output()
        .split("\n")
        .filter((line) => ids.some((id) => line.includes(id)))
        .map((line) => `${service}: ${line.slice(0, 400)}`)
    )
    return {
      said,
      messages,
      stream: { state: { ...stream.state, subjects: undefined }, cluster: stream.cluster },
      consumer: {
        delivered: consumer.delivered,
        ack_floor: consumer.ack_floor,
        num_ack_pending: consumer.num_ack_pending,
        num_redelivered: consumer.num_redelivered,
        num_waiting: consumer.num_waiting,
        num_pending: consumer.num_pending,
        cluster: consumer.cluster
      }
    }
  } finally {
    await nc.close()
  }
}

/**
 * Every post created once (the one its answer named) and published once; every answer 200
 * or 503, and 503s for a bounded time only.
 */
const expectOnceEach = async ({ workspaceIds, statuses, answers, texts, postIds }: Awaited<ReturnType<typeof steadyLoad>>) => {
  expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([])
  expect(longest503Ms(answers)).toBeLessThanOrEqual(OUTAGE_BOUND_MS)
  expect(texts.length).toBeGreaterThan(10)
  const rows = await withDb(
    world,
    async (c) =>
      (
        await c.query<{ content: string; n: number }>(
          "SELECT content, count(DISTINCT post_id)::int AS n FROM post_items WHERE workspace_id = ANY($1::uuid[]) GROUP BY content",
          [workspaceIds]
        )
      ).rows
  )
  expect(rows.length).toBe(texts.length)
  expect(rows.filter((r) => r.n !== 1)).toEqual([])
  expect(postIds.size).toBe(texts.length)
  const items = await everyItemSettles(world, workspaceIds, 120_000, streamSide)
  expect(items.filter((i) => i.status !== "published").map((i) => `${i.content}: ${i.status}`)).toEqual([])
  const copies = await testNetworkCopies(world, texts)
  expect(texts.filter((t) => copies.get(t) !== 1).map((t) => `${t}: ${copies.get(t) ?? 0}`)).toEqual([])
}

describe("a NATS cluster node paused or killed under a steady load of creates", () => {
  it("the gateway's node paused 15 s (SIGSTOP) and resumed: every post once, no 409 for a client's only request", async () => {
    const load = await steadyLoad()
    await sleep(3_000)
    const gatewayNode = await cluster.nodeOf(`post-scheduler-${services.current("gateway").pid}`)
    expect(gatewayNode).toMatch(/^n[123]$/)
    await cluster.pauseNode(gatewayNode ?? "", PAUSE_MS)
    const resumedAt = Date.now()
    await sleep(8_000)
    await load.stop()
    await expectOnceEach(load)
    // the gateway left the node and sent again what it had asked meanwhile: nothing sent while
    // it was paused waited for its return. After the return, nats-server 2.9 may elect the
    // leaders of the copies it held again for several seconds (the lease buckets answer 503
    // meanwhile, docs/operations.md): bounded by the load's REQUEST_TIMEOUT_MS, and printed
    const longest = (answers: ReadonlyArray<Answer>) => Math.max(0, ...answers.map((a) => a.at - a.sent))
    const whilePaused = longest(load.answers.filter((a) => a.sent < resumedAt))
    expect(whilePaused).toBeLessThan(PAUSE_MS)
    console.log(
      `${load.texts.length} posts, ${load.statuses.filter((s) => s === 503).length} answers 503, longest answer ${whilePaused} ms ` +
        `(sent while paused), ${longest(load.answers.filter((a) => a.sent >= resumedAt))} ms (sent after its return), ` +
        `longest run of 503s ${longest503Ms(load.answers)} ms, node ${gatewayNode} paused 15 s`
    )
  }, 240_000)

  it("the PUBLISH stream leader's node killed (-9): every post once; answers are 200 or a retryable 503", async () => {
    const load = await steadyLoad()
    await sleep(3_000)
    // the node leading the PUBLISH stream: its jobs' stream elects another leader
    const leader = await cluster.leaderOf(names(world.namespace).publishStream)
    expect(leader).toMatch(/^n[123]$/)
    killed = leader
    await cluster.killNode(leader ?? "")
    await sleep(12_000)
    await load.stop()
    await expectOnceEach(load)
    console.log(
      `${load.texts.length} posts, ${load.statuses.filter((s) => s === 503).length} answers 503, longest answer ${load.longestMs()} ms, ` +
        `longest run of 503s ${longest503Ms(load.answers)} ms, node ${leader} killed`
    )
  }, 240_000)

  // killed: the host's connection moves to another node at once and its leases outlive the
  // election. Paused: the host leaves the node after its pings (3 to 4 s), its lease calls
  // give up after 2 s and read from the buckets' new leaders, so its shards are back while the
  // node is still paused
  it.each([
    ["killed (-9)", 0],
    ["paused 15 s (SIGSTOP)", PAUSE_MS]
  ] as const)(
    "the actor host's node %s, leading the shard leases too: every workspace's shard serves again within seconds, every post once",
    async (how, pauseMs) => {
      const actorsNode = await cluster.nodeOf(`post-scheduler-${services.current("actors").pid}`)
      expect(actorsNode).toMatch(/^n[123]$/)
      // the harder case: the node also leads the leases' bucket, so the host's renewals wait
      // for an election while its connection moves to another node
      const leasesLeader = await cluster.moveLeader(`KV_${names(world.namespace).shardLeasesBucket}`, actorsNode ?? "")
      const load = await steadyLoad()
      await sleep(3_000)
      const faultAt = Date.now()
      let paused: Promise<void> = Promise.resolve()
      if (pauseMs === 0) {
        killed = actorsNode
        await cluster.killNode(actorsNode ?? "")
      } else paused = cluster.pauseNode(actorsNode ?? "", pauseMs)
      // back: every workspace has had a request sent after the fault answered 200 (its shard serves again)
      const backMs = () => {
        const each = [1, 2, 3].map((worker) => load.answers.find((a) => a.worker === worker && a.status === 200 && a.sent >= faultAt))
        return each.every((a) => a !== undefined) ? Math.max(...each.map((a) => a.at - faultAt)) : undefined
      }
      const back = await waitFor("a workspace's shard not serving again", async () => backMs(), pauseMs + 60_000).catch((e: unknown) => {
        // what the host said meanwhile (its lease rounds' failures) is what tells why
        const said = services
          .current("actors")
          .output()
          .split("\n")
          .filter((line) => line.includes('"warn"') || line.includes('"error"'))
        throw new Error(`${e instanceof Error ? e.message : String(e)}; the actor host's last warnings:\n${said.slice(-15).join("\n")}`)
      })
      await paused
      await sleep(3_000)
      await load.stop()
      // a pause too: before the node returns
      expect(back).toBeLessThan(pauseMs === 0 ? OUTAGE_BOUND_MS : pauseMs)
      await expectOnceEach(load)
      console.log(
        `${load.texts.length} posts, ${load.statuses.filter((s) => s === 503).length} answers 503, longest answer ${load.longestMs()} ms, ` +
          `longest run of 503s ${longest503Ms(load.answers)} ms, actor host's node ${actorsNode} ${how} (leases led by ${leasesLeader}), ` +
          `every shard serving again ${back} ms after the fault`
      )
    },
    // a second try is allowed (a second failure still fails the run): here the shards' return after the
    // pause has varied from 3.5 to 13 s against its 15 s bound, with nats-server 2.9 electing the lease
    // buckets' leaders, and once in about fifteen runs a post created during the pause stayed
    // `publishing` past the settle wait, which the scheduler now claims again (requeueLostJobs)
    { timeout: 240_000, retry: 1 }
  )
})
