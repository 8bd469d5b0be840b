/**
 * Benchmark: what each service costs per 1,000 creates a minute and per 1,000 publishes a
 * minute, the figures of docs/scaling.md. Every service runs as its own process, as a
 * scaled deployment runs them (gateway, actor host, scheduler, publisher, webhook
 * dispatcher; with npm start's node flags), and the bench drives two steady loads, one after the other:
 *
 * - creates: POST /public/v1/posts sent on a clock at BENCH_CREATES_PER_MINUTE (default
 *   1,000) over enough workspaces to stay under the 90 an hour each, posts due tomorrow,
 *   so nothing publishes;
 * - publishes: posts written straight to Postgres (as publishing.ts does) due evenly over
 *   the window at BENCH_PUBLISHES_PER_MINUTE (default 1,000), published through the network
 *   simulator (Telegram), each workspace with one webhook for post.published, so the
 *   dispatcher delivers one webhook per post to a local receiver.
 *
 * For each process it prints the CPU it used in the window (utime + stime from /proc), per
 * 1,000 operations done in it (creates answered 200, posts the network received), which is
 * the CPU ms a minute at 1,000 a minute, also above its idle rate; its connections to
 * Postgres, NATS and Redis (its sockets in /proc/<pid>/fd matched to /proc/net/tcp: the
 * pools all set the same application_name, and the shared NATS server has no monitoring
 * port), and, as the same run's baseline, Postgres's own CPU: the backends serving each
 * service (pg_stat_activity's client_port matched to the service's sockets), and every
 * Postgres process on the machine (an upper bound: it includes other work on the server).
 * Before the loads, the same figures with the services idle for BENCH_IDLE_SECONDS.
 *
 *   npm run bench -- scaling
 *   BENCH_SECONDS (60) each load's window; BENCH_IDLE_SECONDS (15); BENCH_CREATES_PER_MINUTE (1000);
 *   BENCH_PUBLISHES_PER_MINUTE (1000); BENCH_PUBLISH_WORKSPACES (50)
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { Agent, request } from "node:http"
import { Effect, Layer, ManagedRuntime } from "effect"
import pg from "pg"
import { WorkspaceId } from "../../domain/ids.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { authorize } from "../../services/platform/policy.js"
import { Webhooks } from "../../services/webhooks/Webhooks.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { urlsFromEnv } from "../support/servers.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, infrastructure } from "../support/system.js"
import { startReceiver } from "../support/webhookReceiver.js"
import { cpuTicks } from "./support/cpuTime.js"
import { npmStartNodeFlags } from "./support/npmStart.js"
import { writeQueuedPosts } from "./support/queuedPosts.js"

const windowS = Number(process.env["BENCH_SECONDS"] ?? 60)
const idleS = Number(process.env["BENCH_IDLE_SECONDS"] ?? 15)
const createsPerMinute = Number(process.env["BENCH_CREATES_PER_MINUTE"] ?? 1000)
const publishesPerMinute = Number(process.env["BENCH_PUBLISHES_PER_MINUTE"] ?? 1000)
const publishWorkspaces = Number(process.env["BENCH_PUBLISH_WORKSPACES"] ?? 50)
/** Creates sent before the window, unmeasured (JIT, pools, shard subscriptions). */
const warmCreates = 200
/** Posts published before the window, unmeasured. */
const warmPublishes = 200
const creates = Math.round((createsPerMinute * windowS) / 60)
const publishes = Math.round((publishesPerMinute * windowS) / 60)
/** POST /posts: 90 an hour per workspace (domain/rateWindow.ts); 80 leaves a margin. */
const createWorkspaces = Math.ceil((creates + warmCreates) / 80)

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

// ---- sockets: which process holds which TCP connection (Linux /proc) ----

/** Established IPv4/IPv6 TCP connections by socket inode: local and remote port. */
const tcpByInode = (): Map<string, { readonly local: number; readonly remote: number }> => {
  const out = new Map<string, { readonly local: number; readonly remote: number }>()
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = readFileSync(file, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10 || f[3] !== "01") continue
      const port = (address: string | undefined) => Number.parseInt(address?.split(":").at(-1) ?? "0", 16)
      out.set(f[9] ?? "", { local: port(f[1]), remote: port(f[2]) })
    }
  }
  return out
}

/** The socket inodes a process holds open. */
const socketsOf = (pid: number): Array<string> => {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        return m?.[1] === undefined ? [] : [m[1]]
      } catch {
        return []
      }
    })
  } catch {
    return []
  }
}

interface Ports {
  readonly postgres: number
  readonly nats: number
  readonly redis: number
}
const PORTS: Ports = { postgres: 5432, nats: 4222, redis: 6379 }
const portOf = (url: string, fallback: number) => Number(new URL(url).port || fallback)

interface Connections {
  readonly postgres: number
  readonly nats: number
  readonly redis: number
  /** Local ports of its Postgres connections (pg_stat_activity's client_port). */
  readonly postgresPorts: ReadonlyArray<number>
}

const connectionsOf = (pid: number, ports: Ports): Connections => {
  const tcp = tcpByInode()
  const mine = socketsOf(pid).flatMap((inode) => {
    const c = tcp.get(inode)
    return c === undefined ? [] : [c]
  })
  const to = (port: number) => mine.filter((c) => c.remote === port)
  return {
    postgres: to(ports.postgres).length,
    nats: to(ports.nats).length,
    redis: to(ports.redis).length,
    postgresPorts: to(ports.postgres).map((c) => c.local)
  }
}

// ---- CPU of the services and of the Postgres backends serving them ----

/** Every process whose command name is `postgres` (the server and all its backends). */
const postgresPids = (): Array<number> =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, "utf8").trim() === "postgres"
      } catch {
        return false
      }
    })
    .map(Number)

interface Window {
  readonly label: string
  readonly ops: number
  readonly seconds: number
  /** CPU ms per process label, of the backends serving it (by label), and of every Postgres process. */
  readonly cpuMs: Record<string, number>
  readonly backendCpuMs: Record<string, number>
  readonly allPostgresMs: number
  /** WAL bytes the whole server wrote meanwhile (an upper bound: other databases write too). */
  readonly walBytes: number
  /** The most connections seen while measuring, per process label. */
  readonly connections: Record<string, { postgres: number; nats: number; redis: number }>
}

const main = async () => {
  const urls = urlsFromEnv()
  const ports = {
    postgres: portOf(urls.databaseUrl, PORTS.postgres),
    nats: portOf(urls.natsUrl, PORTS.nats),
    redis: portOf(urls.redisUrl, PORTS.redis)
  }
  const sim = await startSimulator()
  const receiver = await startReceiver()
  const simEnv = simulatorEnv(sim)
  const env = {
    ...simEnv,
    OUTBOUND_ALLOW: `${simEnv["OUTBOUND_ALLOW"] ?? ""},${receiver.origin}`,
    // the simulator has no per-chat limit; Telegram's real 20 a minute would only measure itself
    PUBLISH_LIMITS: JSON.stringify({ telegram: { channelPerMinute: 0 } }),
    SEED_DEMO: "false"
  }
  const world = await createWorld("benchscaling", urls)
  const admin = ManagedRuntime.make(Webhooks.Default.pipe(Layer.provideMerge(infrastructure(world, env))))
  const ops = await admin.runPromise(makeAdminOperations)
  const group = processGroup()
  const db = new pg.Client({ connectionString: world.databaseUrl })
  await db.connect()
  const database = new URL(world.databaseUrl).pathname.slice(1)
  try {
    // every service its own process, as a scaled deployment runs them
    // with npm start's node flags, as production runs them (deploy/Dockerfile)
    const start = (service: string, ready?: RegExp) =>
      group.start(world, [service], { env, nodeOptions: npmStartNodeFlags(), timeoutMs: 120_000, ...(ready === undefined ? {} : { ready }) })
    const procs: Array<ServiceProcess> = await Promise.all([
      start("gateway"),
      start("actors"),
      start("scheduler", /scheduler started/),
      start("publisher", /publisher started/),
      start("webhooks", /webhook dispatcher started/)
    ])
    const gateway = procs[0]!
    const base = `http://127.0.0.1:${gateway.id.replace("port ", "")}`

    // workspaces that create: a test channel each (no network behind it)
    const creators = await Promise.all(
      Array.from({ length: createWorkspaces }, async (_, i) => {
        const ws = await admin.runPromise(ops.createWorkspace({ name: `Create ${i}`, plan: "standard" }))
        const { channelId } = await admin.runPromise(
          ops.createChannel({ workspaceId: ws.workspaceId, network: "test", name: `Create ${i}`, customerId: null, postingTimes: [] })
        )
        return { ...ws, channelId }
      })
    )
    // workspaces that publish: a Telegram chat on the simulator and a webhook for post.published each
    const publishers = await Promise.all(
      Array.from({ length: publishWorkspaces }, async (_, i) => {
        const ws = await admin.runPromise(ops.createWorkspace({ name: `Publish ${i}`, plan: "ultimate" }))
        const credentials = await seedAccount(sim, "telegram", { title: `Publish ${i}` })
        const { channelId } = await admin.runPromise(
          ops.createChannel({
            workspaceId: ws.workspaceId,
            network: "telegram",
            name: `Publish ${i}`,
            customerId: null,
            postingTimes: [],
            credentials
          })
        )
        await admin.runPromise(
          Effect.flatMap(Webhooks, (w) =>
            w.create({ name: `hook ${i}`, url: receiver.url("/hook"), events: ["post.published"], channelIds: [], active: true })
          ).pipe(
            authorize("webhooks.manage"),
            Effect.provideService(CurrentPrincipal, {
              workspaceId: WorkspaceId.make(ws.workspaceId),
              userId: null,
              role: "owner",
              tokenKind: "live",
              actor: "bench"
            })
          )
        )
        return { workspaceId: ws.workspaceId, channelId }
      })
    )
    // the actor host owns its shards once the lease round has run
    await sleep(3_000)

    /** Measures CPU and connections of every process while `run` runs; `run` answers how many operations were done. */
    const measure = async (label: string, run: () => Promise<number>): Promise<Window> => {
      const backendsOf = async () => {
        const rows = (
          await db.query<{ pid: number; port: number | null }>(
            "SELECT pid, client_port AS port FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [database]
          )
        ).rows
        const owner = new Map<number, string>()
        for (const p of procs) for (const port of connectionsOf(p.pid, ports).postgresPorts) owner.set(port, p.label)
        return rows.flatMap((r) => {
          const who = r.port === null ? undefined : owner.get(r.port)
          return who === undefined ? [] : [{ pid: r.pid, who }]
        })
      }
      const connections: Window["connections"] = {}
      // CPU ticks of each Postgres process at the start (0 for one started later) and when last seen:
      // a backend that exits meanwhile (a pool shrinking) keeps what it had used
      const first = new Map<number, number>()
      const last = new Map<number, number>()
      const owner = new Map<number, string>()
      const tick = (pid: number, atStart: boolean) => {
        const t = cpuTicks(pid)
        if (!first.has(pid)) first.set(pid, atStart ? t : 0)
        last.set(pid, Math.max(last.get(pid) ?? 0, t))
      }
      const sample = async (atStart = false) => {
        for (const p of procs) {
          const c = connectionsOf(p.pid, ports)
          const seen = connections[p.label] ?? { postgres: 0, nats: 0, redis: 0 }
          connections[p.label] = {
            postgres: Math.max(seen.postgres, c.postgres),
            nats: Math.max(seen.nats, c.nats),
            redis: Math.max(seen.redis, c.redis)
          }
        }
        for (const b of await backendsOf()) owner.set(b.pid, b.who)
        for (const pid of postgresPids()) tick(pid, atStart)
      }
      let sampling = Promise.resolve()
      const before = new Map(procs.map((p) => [p.pid, cpuTicks(p.pid)]))
      await sample(true)
      const lsnBefore = (await db.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!.lsn
      const sampler = setInterval(() => {
        sampling = sampling.then(() => sample())
      }, 2_000)
      const started = performance.now()
      let ops = 0
      try {
        ops = await run()
      } finally {
        clearInterval(sampler)
      }
      const seconds = (performance.now() - started) / 1000
      const cpuMs: Record<string, number> = {}
      for (const p of procs) cpuMs[p.label] = (cpuTicks(p.pid) - (before.get(p.pid) ?? 0)) * 10
      await sampling
      await sample()
      const used = (pid: number) => ((last.get(pid) ?? 0) - (first.get(pid) ?? 0)) * 10
      const backendCpuMs: Record<string, number> = {}
      for (const [pid, who] of owner) backendCpuMs[who] = (backendCpuMs[who] ?? 0) + used(pid)
      const allPostgresMs = [...first.keys()].reduce((sum, pid) => sum + used(pid), 0)
      const walBytes = Number(
        (await db.query<{ bytes: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS bytes", [lsnBefore])).rows[0]!.bytes
      )
      return { label, ops, seconds, cpuMs, backendCpuMs, allPostgresMs, walBytes, connections }
    }

    // ---- creates ----
    const agent = new Agent({ keepAlive: true, maxSockets: 32 })
    const date = new Date(Date.now() + 24 * 3600_000).toISOString()
    const refused: Array<string> = []
    /** One POST /posts; a kept-alive socket the gateway closed just then ("socket hang up") is sent once more, with the same Idempotency-Key. */
    const post = (i: number, again = true): Promise<number> =>
      new Promise<number>((resolve) => {
        const t = creators[i % creators.length]!
        const body = JSON.stringify({
          type: "schedule",
          date,
          shortLink: false,
          tags: [],
          posts: [{ integration: { id: t.channelId }, value: [{ content: `Scaling post ${i}`, image: [] }], settings: { __type: "test" } }]
        })
        const sent = performance.now()
        const req = request(
          `${base}/public/v1/posts`,
          { method: "POST", agent, headers: { "content-type": "application/json", authorization: t.apiKey, "idempotency-key": `scaling-${i}` } },
          (res) => {
            let text = ""
            res.setEncoding("utf8")
            res.on("data", (c: string) => (text += c))
            res.on("end", () => {
              if (res.statusCode !== 200 && refused.length < 3) refused.push(`${res.statusCode} ${text}`)
              resolve(res.statusCode === 200 ? performance.now() - sent : -1)
            })
          }
        )
        req.on("error", (e) => {
          if (again && req.reusedSocket) return resolve(post(i, false))
          if (refused.length < 3) refused.push(String(e))
          resolve(-1)
        })
        req.end(body)
      })
    /** `count` POST /posts from index `from`, sent evenly on a clock at `perMinute`, whatever the answers' pace. */
    const sendAt = async (from: number, count: number, perMinute: number) => {
      const answers: Array<Promise<number>> = []
      const t0 = performance.now()
      for (let k = 0; k < count; k++) {
        const wait = t0 + (k * 60_000) / perMinute - performance.now()
        if (wait > 0) await sleep(wait)
        answers.push(post(from + k))
      }
      return Promise.all(answers)
    }

    // ---- publishes: rows as POST /posts leaves them, queued, due at the given times ----
    const text = (i: number) => `scaling publish ${i}`
    const insertDue = async (from: number, count: number, dueOf: (k: number) => Date) => {
      await writeQueuedPosts(
        db,
        Array.from({ length: count }, (_, k) => {
          const c = publishers[(from + k) % publishers.length]!
          return { workspace: c.workspaceId, channel: c.channelId, text: text(from + k), due: dueOf(k) }
        })
      )
    }
    const settled = async () =>
      (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM post_items WHERE status IN ('published','error','unconfirmed')")).rows[0]!.n
    /** Waits until `total` items have settled and `total` webhooks arrived, or `deadline`. */
    const drained = async (total: number, deadline: number) => {
      while (Date.now() < deadline) {
        if ((await settled()) >= total && receiver.at("/hook").length >= total) return true
        await sleep(250)
      }
      return false
    }

    // idle: what the services cost doing nothing (lease renewals, the scheduler's polls, …)
    const idle = await measure("idle", () => sleep(idleS * 1000).then(() => 0))

    // warm-up, unmeasured: creates, then publishes due over ten seconds
    await sendAt(0, warmCreates, 6_000)
    await insertDue(0, warmPublishes, (k) => new Date(Date.now() + 3_000 + Math.floor((k * 10_000) / warmPublishes)))
    await drained(warmPublishes, Date.now() + 60_000)

    const createWindow = await measure("creates", async () => {
      const latencies = (await sendAt(warmCreates, creates, createsPerMinute)).filter((ms) => ms >= 0).sort((a, b) => a - b)
      console.log(
        `creates: ${latencies.length}/${creates} answered 200 at ${createsPerMinute}/min over ${createWorkspaces} workspaces, ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms${refused.length > 0 ? `; refused: ${refused.join("; ")}` : ""}`
      )
      return latencies.length
    })
    agent.destroy()

    // due evenly over the window, its first post 15 s after the rows are in; measured from 3 s before it (the scheduler claims 2 s ahead)
    const dueStart = Date.now() + 15_000 + Math.ceil((publishes / 1000) * 300)
    const dueOf = (k: number) => new Date(dueStart + Math.floor((k * windowS * 1000) / publishes))
    await insertDue(warmPublishes, publishes, dueOf)
    await sleep(Math.max(0, dueStart - 3_000 - Date.now()))
    const publishWindow = await measure("publishes", async () => {
      const done = await drained(warmPublishes + publishes, dueStart + windowS * 1000 + 60_000)
      const arrivals = sim.postsOf("telegram").filter((p) => p.text.startsWith("scaling publish "))
      const first = new Map<string, number>()
      for (const p of arrivals) if (!first.has(p.text)) first.set(p.text, p.at.getTime())
      const lateness = Array.from({ length: publishes }, (_, k) => (first.get(text(warmPublishes + k)) ?? Number.NaN) - dueOf(k).getTime())
        .filter((ms) => !Number.isNaN(ms))
        .sort((a, b) => a - b)
      console.log(
        `publishes: ${lateness.length}/${publishes} received at ${publishesPerMinute}/min over ${publishWorkspaces} workspaces${done ? "" : " (NOT drained in time)"}, ` +
          `lateness p50 ${(percentile(lateness, 50) / 1000).toFixed(2)} s, p99 ${(percentile(lateness, 99) / 1000).toFixed(2)} s; ` +
          `duplicates ${arrivals.length - first.size}; webhooks received ${receiver.at("/hook").length - warmPublishes}`
      )
      // the posts that went out while measured: a machine that cannot keep up must not make a publish look cheaper
      return lateness.length
    })

    // ---- the figures ----
    // per 1,000 operations: what the window used, and what it used above the idle rate over as long
    // (the cost that grows with the load; the idle rate is each replica's fixed cost)
    const per1000 = (ms: number, idleMs: number, w: Window) => {
      if (w.ops === 0) return ""
      const above = ms - (idleMs / idle.seconds) * w.seconds
      return `${((ms / w.ops) * 1000).toFixed(0)} (${((above / w.ops) * 1000).toFixed(0)})`
    }
    const idlePerMinute = (ms: number) => ((ms / idle.seconds) * 60).toFixed(0)
    console.log(
      `\nCPU ms per 1,000 operations (= CPU ms a minute at 1,000 a minute; ÷ 60,000 = cores), in brackets above the idle rate; ` +
        `windows ${windowS} s of load each; idle: CPU ms a minute with no load (${idleS} s measured)`
    )
    console.log("process | idle ms/min | creates | publishes | Postgres conns | NATS conns | Redis conns (most seen in any window)")
    const row = (label: string, of: (w: Window) => number) =>
      `${label} | ${idlePerMinute(of(idle))} | ${per1000(of(createWindow), of(idle), createWindow)} | ${per1000(of(publishWindow), of(idle), publishWindow)}`
    for (const p of procs) {
      const c = [idle, createWindow, publishWindow].map((w) => w.connections[p.label] ?? { postgres: 0, nats: 0, redis: 0 })
      const most = (k: "postgres" | "nats" | "redis") => Math.max(...c.map((x) => x[k]))
      console.log(`${row(p.label, (w) => w.cpuMs[p.label] ?? 0)} | ${most("postgres")} | ${most("nats")} | ${most("redis")}`)
    }
    console.log(row("the same run's Postgres: backends of this database", (w) => Object.values(w.backendCpuMs).reduce((a, b) => a + b, 0)))
    for (const p of procs) console.log(row(`  of which serving ${p.label}`, (w) => w.backendCpuMs[p.label] ?? 0))
    console.log(row("every Postgres process on the machine (upper bound: WAL writer, checkpointer, other databases)", (w) => w.allPostgresMs))
    console.log(
      `windows: idle ${idle.seconds.toFixed(1)} s, creates ${createWindow.seconds.toFixed(1)} s, ` +
        `publishes ${publishWindow.seconds.toFixed(1)} s (from 3 s before the first due time to the last webhook)`
    )
    const walPer = (w: Window) => (w.ops === 0 ? "" : `${(w.walBytes / w.ops / 1024).toFixed(1)} kB per operation`)
    console.log(
      `WAL the whole server wrote (upper bound): idle ${(((idle.walBytes / idle.seconds) * 60) / 1024).toFixed(0)} kB a minute; ` +
        `creates ${walPer(createWindow)}; publishes ${walPer(publishWindow)}`
    )
  } finally {
    await group.stopAll()
    await db.end()
    await admin.dispose()
    await world.drop()
    await receiver.close()
    await sim.close()
  }
}

await main()
