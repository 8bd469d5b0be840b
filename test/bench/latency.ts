/**
 * Latency breakdown at one request in flight: HTTP alone, authentication, a read, a
 * command through the workspace actor, and POST /posts. Each step's extra time is what
 * that layer costs.   npm run bench -- latency
 */
import { client } from "../support/http.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, startServices } from "../support/system.js"
const world = await createWorld("probe", urlsFromEnv())
const sys = await startServices(world, ["gateway", "actors"])
const ws = await sys.admin.createWorkspace()
const { channelId } = await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "P", customerId: null, postingTimes: [] })
const c = client(sys.url, ws.apiKey)
const time = async (label: string, f: () => Promise<unknown>, n = 200) => {
  for (let i = 0; i < 20; i++) await f()
  const t = performance.now()
  for (let i = 0; i < n; i++) await f()
  console.log(label, ((performance.now() - t) / n).toFixed(2), "ms")
}
await time("GET /healthz", () => fetch(`${sys.url}/healthz`))
await time("GET /is-connected (auth)", () => c.get("/public/v1/is-connected"))
await time("GET /integrations (auth + 1 query)", () => c.get("/public/v1/integrations"))
await time("DELETE /integrations/<unknown> (actor)", () => c.del(`/public/v1/integrations/${crypto.randomUUID()}`))
await time("POST /posts draft", () => c.post("/public/v1/posts", { type: "draft", content: "x", channels: [channelId] }), 60)
await sys.stop()
await world.drop()
process.exit(0)
