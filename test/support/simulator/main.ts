import { simulatorEnv, startSimulator } from "./index.js"

/**
 * `npm run simulate`: the network simulator as a tool, so a person can try the service
 * against "real-looking" networks on this machine. Prints the environment the service
 * needs to reach it and how to make accounts and read what arrived.
 */
const port = Number(process.env["SIMULATOR_PORT"] ?? "4010")
const sim = await startSimulator({ port })
const origin = sim.origin
const lines = [
  `network simulator listening on ${origin}`,
  "",
  "Start the service with:",
  `  ${Object.entries(simulatorEnv(sim))
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")} npm start`,
  "",
  "Make an account and get the admin CLI's --credentials for it:",
  `  curl -s -X POST ${origin}/_sim/accounts/mastodon -d '{"username":"alice"}'`,
  `  (networks: ${sim.networks.join(", ")})`,
  "Then: npm run -s admin -- channel create --workspace <id> --network mastodon --name Alice --credentials '<that JSON>'",
  "",
  `What arrived: curl -s ${origin}/_sim/posts   Faults: curl -s -X POST ${origin}/_sim/faults -d '{"network":"x","op":"publish","mode":"rate-limit","times":1}'`
]
console.log(lines.join("\n"))
const stop = () => void sim.close().then(() => process.exit(0))
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
