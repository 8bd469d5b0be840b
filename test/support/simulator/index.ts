import { blueskyModule } from "./bluesky.js"
import { startSimulatorCore, type Simulator } from "./core.js"
import { discordModule } from "./discord.js"
import { gmbModule } from "./gmb.js"
import { instagramModule } from "./instagram.js"
import { instagramStandaloneModule } from "./instagramStandalone.js"
import { facebookModule } from "./facebook.js"
import { linkedinModule, linkedinPageModule } from "./linkedin.js"
import { mastodonModule } from "./mastodon.js"
import { pinterestModule } from "./pinterest.js"
import { redditModule } from "./reddit.js"
import { telegramModule } from "./telegram.js"
import { tiktokModule } from "./tiktok.js"
import { threadsModule } from "./threads.js"
import { xModule } from "./x.js"
import { youtubeModule } from "./youtube.js"

/** Every simulated network: one server, a prefix each (test/support/simulator/core.ts). */
export const simulatedNetworks = [
  mastodonModule,
  blueskyModule,
  xModule,
  linkedinModule,
  telegramModule,
  discordModule,
  tiktokModule,
  youtubeModule,
  pinterestModule,
  redditModule,
  gmbModule,
  instagramModule,
  instagramStandaloneModule,
  threadsModule,
  facebookModule,
  linkedinPageModule
] as const

export const startSimulator = async (options: { readonly port?: number } = {}): Promise<Simulator & { readonly networks: ReadonlyArray<string> }> => {
  const sim = await startSimulatorCore(simulatedNetworks, options)
  return Object.assign(sim, { networks: simulatedNetworks.map((m) => m.network) })
}

/** The environment that points the service's adapters at the simulator (and allows its port). */
export const simulatorEnv = (sim: Simulator): Record<string, string> => ({
  OUTBOUND_ALLOW: `127.0.0.1:${sim.port}`,
  MASTODON_URL: sim.baseOf("mastodon"),
  X_API_URL: sim.baseOf("x"),
  X_CLIENT_ID: "sim-client",
  X_CLIENT_SECRET: "sim-secret",
  LINKEDIN_API_URL: sim.baseOf("linkedin"),
  LINKEDIN_CLIENT_ID: "sim-client",
  LINKEDIN_CLIENT_SECRET: "sim-secret",
  TELEGRAM_API_URL: sim.baseOf("telegram"),
  DISCORD_API_URL: sim.baseOf("discord"),
  DISCORD_CLIENT_ID: "sim-client",
  DISCORD_CLIENT_SECRET: "sim-secret",
  DISCORD_BOT_TOKEN_ID: "sim-bot-token",
  TIKTOK_API_URL: sim.baseOf("tiktok"),
  TIKTOK_AUTH_URL: sim.baseOf("tiktok"),
  TIKTOK_CLIENT_ID: "sim-client",
  TIKTOK_CLIENT_SECRET: "sim-secret",
  YOUTUBE_API_URL: sim.baseOf("youtube"),
  YOUTUBE_AUTH_URL: sim.baseOf("youtube"),
  YOUTUBE_CLIENT_ID: "sim-client",
  YOUTUBE_CLIENT_SECRET: "sim-secret",
  PINTEREST_API_URL: sim.baseOf("pinterest"),
  PINTEREST_AUTH_URL: sim.baseOf("pinterest"),
  PINTEREST_CLIENT_ID: "sim-client",
  PINTEREST_CLIENT_SECRET: "sim-secret",
  REDDIT_API_URL: sim.baseOf("reddit"),
  REDDIT_AUTH_URL: sim.baseOf("reddit"),
  REDDIT_CLIENT_ID: "sim-client",
  REDDIT_CLIENT_SECRET: "sim-secret",
  GMB_API_URL: sim.baseOf("gmb"),
  GMB_AUTH_URL: sim.baseOf("gmb"),
  GMB_CLIENT_ID: "sim-client",
  GMB_CLIENT_SECRET: "sim-secret",
  INSTAGRAM_API_URL: sim.baseOf("instagram"),
  INSTAGRAM_AUTH_URL: sim.baseOf("instagram"),
  INSTAGRAM_CLIENT_ID: "sim-client",
  INSTAGRAM_CLIENT_SECRET: "sim-secret",
  INSTAGRAM_STANDALONE_API_URL: sim.baseOf("instagram-standalone"),
  INSTAGRAM_STANDALONE_AUTH_URL: sim.baseOf("instagram-standalone"),
  INSTAGRAM_STANDALONE_CLIENT_ID: "sim-client",
  INSTAGRAM_STANDALONE_CLIENT_SECRET: "sim-secret",
  THREADS_API_URL: sim.baseOf("threads"),
  THREADS_AUTH_URL: sim.baseOf("threads"),
  THREADS_CLIENT_ID: "sim-client",
  THREADS_CLIENT_SECRET: "sim-secret",
  FACEBOOK_API_URL: sim.baseOf("facebook"),
  FACEBOOK_AUTH_URL: sim.baseOf("facebook"),
  FACEBOOK_CLIENT_ID: "sim-client",
  FACEBOOK_CLIENT_SECRET: "sim-secret",
  LINKEDIN_PAGE_API_URL: sim.baseOf("linkedin-page"),
  LINKEDIN_PAGE_CLIENT_ID: "sim-client",
  LINKEDIN_PAGE_CLIENT_SECRET: "sim-secret"
})

/** Makes an account on a simulated network (POST /_sim/accounts/<network>): the admin CLI's `--credentials` for it. */
export const seedAccount = async (sim: Simulator, network: string, input: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
  (await (await fetch(`${sim.origin}/_sim/accounts/${network}`, { method: "POST", body: JSON.stringify(input) })).json()) as Record<string, unknown>
