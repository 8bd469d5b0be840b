/**
 * What the MCP surface costs over REST, one request in flight: the same read (channels),
 * the same actor command (a draft post) and a protocol-only ping, each next to its REST
 * baseline measured in the same run.   npm run bench -- mcp
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { client } from "../support/http.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, startServices } from "../support/system.js"

const world = await createWorld("mcpbench", urlsFromEnv())
const sys = await startServices(world, ["gateway", "actors"])
const ws = await sys.admin.createWorkspace()
const { channelId } = await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "B", customerId: null, postingTimes: [] })
const rest = client(sys.url, ws.apiKey)
const mcp = new Client({ name: "bench", version: "1.0.0" })
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(`${sys.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ws.apiKey}` } } })
)

// under 600 MCP requests a minute per workspace in total: warm-up 10 + measured n per line
const time = async (label: string, f: () => Promise<unknown>, n: number) => {
  for (let i = 0; i < 10; i++) await f()
  const t = performance.now()
  for (let i = 0; i < n; i++) await f()
  const ms = (performance.now() - t) / n
  console.log(label.padEnd(44), ms.toFixed(2), "ms")
  return ms
}
const restRead = await time("REST GET /integrations (baseline)", () => rest.get("/public/v1/integrations"), 150)
const mcpRead = await time("MCP tools/call list_channels", () => mcp.callTool({ name: "list_channels", arguments: {} }), 150)
const raw = (body: unknown) =>
  fetch(`${sys.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body)
  }).then((r) => r.text())
await time(
  "MCP list_channels, plain fetch (no SDK client)",
  () => raw({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_channels", arguments: {} } }),
  100
)
const mcpPing = await time("MCP ping (auth + window + SDK only)", () => mcp.ping(), 100)
const restWrite = await time(
  "REST POST /posts draft (baseline)",
  () => rest.post("/public/v1/posts", { type: "draft", content: "x", channels: [channelId] }),
  30
)
const mcpWrite = await time(
  "MCP tools/call create_post draft",
  () => mcp.callTool({ name: "create_post", arguments: { type: "draft", content: "x", channels: [channelId] } }),
  30
)
console.log(
  `MCP read costs ${(mcpRead - restRead).toFixed(2)} ms over REST; a write ${(mcpWrite - restWrite).toFixed(2)} ms; ping ${mcpPing.toFixed(2)} ms`
)
await mcp.close()
await sys.stop()
await world.drop()
process.exit(0)
