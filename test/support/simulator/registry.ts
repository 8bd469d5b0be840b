// Written by `npm run networks` from the folders under services/networks/: do not edit by hand.
import type { NetworkModule } from "./core.js"
import { simulators as blueskySimulator } from "../../../services/networks/bluesky/simulator.js"
import { simulators as discordSimulator } from "../../../services/networks/discord/simulator.js"
import { simulators as facebookSimulator } from "../../../services/networks/facebook/simulator.js"
import { simulators as gmbSimulator } from "../../../services/networks/gmb/simulator.js"
import { simulators as instagramSimulator } from "../../../services/networks/instagram/simulator.js"
import { simulators as instagramStandaloneSimulator } from "../../../services/networks/instagram/standaloneSimulator.js"
import { simulators as linkedinSimulator } from "../../../services/networks/linkedin/simulator.js"
import { simulators as mastodonSimulator } from "../../../services/networks/mastodon/simulator.js"
import { simulators as nostrSimulator } from "../../../services/networks/nostr/simulator.js"
import { simulators as pinterestSimulator } from "../../../services/networks/pinterest/simulator.js"
import { simulators as redditSimulator } from "../../../services/networks/reddit/simulator.js"
import { simulators as telegramSimulator } from "../../../services/networks/telegram/simulator.js"
import { simulators as threadsSimulator } from "../../../services/networks/threads/simulator.js"
import { simulators as tiktokSimulator } from "../../../services/networks/tiktok/simulator.js"
import { simulators as xSimulator } from "../../../services/networks/x/simulator.js"
import { simulators as youtubeSimulator } from "../../../services/networks/youtube/simulator.js"

/** Every simulated network in a folder under services/networks/. */
export const simulatedNetworkModules: ReadonlyArray<NetworkModule> = [
  ...blueskySimulator,
  ...discordSimulator,
  ...facebookSimulator,
  ...gmbSimulator,
  ...instagramSimulator,
  ...instagramStandaloneSimulator,
  ...linkedinSimulator,
  ...mastodonSimulator,
  ...nostrSimulator,
  ...pinterestSimulator,
  ...redditSimulator,
  ...telegramSimulator,
  ...threadsSimulator,
  ...tiktokSimulator,
  ...xSimulator,
  ...youtubeSimulator
]
