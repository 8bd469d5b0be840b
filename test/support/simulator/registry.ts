// Written by `npm run networks` from the folders under services/networks/: do not edit by hand.
import type { NetworkModule } from "./core.js"
import { simulators as blueskySimulator } from "../../../services/networks/bluesky/simulator.js"
import { simulators as devtoSimulator } from "../../../services/networks/devto/simulator.js"
import { simulators as discordSimulator } from "../../../services/networks/discord/simulator.js"
import { simulators as dribbbleSimulator } from "../../../services/networks/dribbble/simulator.js"
import { simulators as facebookSimulator } from "../../../services/networks/facebook/simulator.js"
import { simulators as gmbSimulator } from "../../../services/networks/gmb/simulator.js"
import { simulators as hashnodeSimulator } from "../../../services/networks/hashnode/simulator.js"
import { simulators as instagramSimulator } from "../../../services/networks/instagram/simulator.js"
import { simulators as instagramStandaloneSimulator } from "../../../services/networks/instagram/standaloneSimulator.js"
import { simulators as kickSimulator } from "../../../services/networks/kick/simulator.js"
import { simulators as lemmySimulator } from "../../../services/networks/lemmy/simulator.js"
import { simulators as linkedinSimulator } from "../../../services/networks/linkedin/simulator.js"
import { simulators as listmonkSimulator } from "../../../services/networks/listmonk/simulator.js"
import { simulators as mastodonSimulator } from "../../../services/networks/mastodon/simulator.js"
import { simulators as mediumSimulator } from "../../../services/networks/medium/simulator.js"
import { simulators as nostrSimulator } from "../../../services/networks/nostr/simulator.js"
import { simulators as pinterestSimulator } from "../../../services/networks/pinterest/simulator.js"
import { simulators as redditSimulator } from "../../../services/networks/reddit/simulator.js"
import { simulators as slackSimulator } from "../../../services/networks/slack/simulator.js"
import { simulators as telegramSimulator } from "../../../services/networks/telegram/simulator.js"
import { simulators as threadsSimulator } from "../../../services/networks/threads/simulator.js"
import { simulators as tiktokSimulator } from "../../../services/networks/tiktok/simulator.js"
import { simulators as tumblrSimulator } from "../../../services/networks/tumblr/simulator.js"
import { simulators as twitchSimulator } from "../../../services/networks/twitch/simulator.js"
import { simulators as vkSimulator } from "../../../services/networks/vk/simulator.js"
import { simulators as warpcastSimulator } from "../../../services/networks/warpcast/simulator.js"
import { simulators as wordpressSimulator } from "../../../services/networks/wordpress/simulator.js"
import { simulators as xSimulator } from "../../../services/networks/x/simulator.js"
import { simulators as youtubeSimulator } from "../../../services/networks/youtube/simulator.js"

/** Every simulated network in a folder under services/networks/. */
export const simulatedNetworkModules: ReadonlyArray<NetworkModule> = [
  ...blueskySimulator,
  ...devtoSimulator,
  ...discordSimulator,
  ...dribbbleSimulator,
  ...facebookSimulator,
  ...gmbSimulator,
  ...hashnodeSimulator,
  ...instagramSimulator,
  ...instagramStandaloneSimulator,
  ...kickSimulator,
  ...lemmySimulator,
  ...linkedinSimulator,
  ...listmonkSimulator,
  ...mastodonSimulator,
  ...mediumSimulator,
  ...nostrSimulator,
  ...pinterestSimulator,
  ...redditSimulator,
  ...slackSimulator,
  ...telegramSimulator,
  ...threadsSimulator,
  ...tiktokSimulator,
  ...tumblrSimulator,
  ...twitchSimulator,
  ...vkSimulator,
  ...warpcastSimulator,
  ...wordpressSimulator,
  ...xSimulator,
  ...youtubeSimulator
]
