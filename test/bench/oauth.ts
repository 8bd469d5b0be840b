/**
 * What OAuth and the app pages cost at one request in flight, next to the baseline of an
 * authenticated read: a device-code poll (a Lua script in Redis), a whole code exchange
 * (GETDEL of the code, the client's row, a token row), the Allow screen (session, person,
 * memberships), and a sign-in (scrypt, memory-hard on purpose).   npm run bench -- oauth
 */
import { client } from "../support/http.js"
import { authorizeUrl, getPage, pkcePair, pressAllow, registerApp, signIn, startAtOwnAddress, tokenRequest } from "../support/people.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld } from "../support/system.js"

const world = await createWorld("benchoauth", urlsFromEnv())
const sys = await startAtOwnAddress(world, ["gateway"])
const ws = await sys.admin.createWorkspace()
await sys.admin.createUser({ workspaceId: ws.workspaceId, email: "b@bench.test", password: "bench password", role: "owner", timezone: null })
const cookie = await signIn(sys.url, "b@bench.test", "bench password")
const c = client(sys.url, ws.apiKey)
const redirect = "http://127.0.0.1:9/cb"
const app = await registerApp(sys.url, { client_name: "Bench", redirect_uris: [redirect] })
const clientId = String(app.json["client_id"])

const time = async (label: string, f: () => Promise<unknown>, n = 200) => {
  for (let i = 0; i < 10; i++) await f()
  const t = performance.now()
  for (let i = 0; i < n; i++) await f()
  console.log(label.padEnd(48), ((performance.now() - t) / n).toFixed(2), "ms")
}
const device = (await (await fetch(`${sys.url}/oauth/device/code`, { method: "POST" })).json()) as { device_code: string }
const authorize = () =>
  authorizeUrl(sys.url, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256"
  })

await time("baseline: GET /public/v1/is-connected (auth)", () => c.get("/public/v1/is-connected"))
await time("GET /.well-known/oauth-authorization-server", () => fetch(`${sys.url}/.well-known/oauth-authorization-server`))
await time("POST /oauth/token device poll (pending/slow_down)", () =>
  tokenRequest(sys.url, { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.device_code })
)
await time("GET /oauth/authorize (Allow screen)", () => getPage(authorize(), cookie))
await time(
  "Allow + code exchange (2 requests + token)",
  async () => {
    const { verifier, challenge } = pkcePair()
    const url = authorizeUrl(sys.url, {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "S256"
    })
    const back = await pressAllow(sys.url, cookie, url)
    await tokenRequest(sys.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") ?? "",
      client_id: clientId,
      redirect_uri: redirect,
      code_verifier: verifier
    })
  },
  60
)
await time("sign in (scrypt)", () => signIn(sys.url, "b@bench.test", "bench password"), 30)
await sys.stop()
await world.drop()
process.exit(0)
