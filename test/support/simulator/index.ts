import { startSimulatorCore, type Simulator } from "./core.js"
import { simulatedNetworkModules } from "./registry.js"

/** Every simulated network: one server, a prefix each (test/support/simulator/core.ts), found in the network folders. */
export const simulatedNetworks = simulatedNetworkModules

export const startSimulator = async (options: { readonly port?: number } = {}): Promise<Simulator & { readonly networks: ReadonlyArray<string> }> => {
  const sim = await startSimulatorCore(simulatedNetworks, options)
  return Object.assign(sim, { networks: simulatedNetworks.map((m) => m.network) })
}

/** The environment that points the service's adapters at the simulator (and allows its port). */
export const simulatorEnv = (sim: Simulator): Record<string, string> =>
  Object.assign({ OUTBOUND_ALLOW: `127.0.0.1:${sim.port}` }, ...simulatedNetworks.map((m) => m.env?.(sim.baseOf(m.network)) ?? {}))

/** Makes an account on a simulated network (POST /_sim/accounts/<network>): the admin CLI's `--credentials` for it. */
export const seedAccount = async (sim: Simulator, network: string, input: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
  (await (await fetch(`${sim.origin}/_sim/accounts/${network}`, { method: "POST", body: JSON.stringify(input) })).json()) as Record<string, unknown>
