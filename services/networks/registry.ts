// Written by `npm run networks` from the folders under services/networks/: do not edit by hand.
import { adapters as bluesky } from "./bluesky/index.js"
import { adapters as devto } from "./devto/index.js"
import { adapters as discord } from "./discord/index.js"
import { adapters as dribbble } from "./dribbble/index.js"
import { adapters as facebook } from "./facebook/index.js"
import { adapters as gmb } from "./gmb/index.js"
import { adapters as hashnode } from "./hashnode/index.js"
import { adapters as instagram } from "./instagram/index.js"
import { adapters as kick } from "./kick/index.js"
import { adapters as lemmy } from "./lemmy/index.js"
import { adapters as linkedin } from "./linkedin/index.js"
import { adapters as listmonk } from "./listmonk/index.js"
import { adapters as mastodon } from "./mastodon/index.js"
import { adapters as medium } from "./medium/index.js"
import { adapters as nostr } from "./nostr/index.js"
import { adapters as pinterest } from "./pinterest/index.js"
import { adapters as reddit } from "./reddit/index.js"
import { adapters as slack } from "./slack/index.js"
import { adapters as telegram } from "./telegram/index.js"
import { adapters as threads } from "./threads/index.js"
import { adapters as tiktok } from "./tiktok/index.js"
import { adapters as tumblr } from "./tumblr/index.js"
import { adapters as twitch } from "./twitch/index.js"
import { adapters as vk } from "./vk/index.js"
import { adapters as warpcast } from "./warpcast/index.js"
import { adapters as wordpress } from "./wordpress/index.js"
import { adapters as x } from "./x/index.js"
import { adapters as youtube } from "./youtube/index.js"

/** Every network adapter in a folder under services/networks/ (the test network is added by NetworkAdapters). */
export const networkAdapterMakers = [
  ...bluesky,
  ...devto,
  ...discord,
  ...dribbble,
  ...facebook,
  ...gmb,
  ...hashnode,
  ...instagram,
  ...kick,
  ...lemmy,
  ...linkedin,
  ...listmonk,
  ...mastodon,
  ...medium,
  ...nostr,
  ...pinterest,
  ...reddit,
  ...slack,
  ...telegram,
  ...threads,
  ...tiktok,
  ...tumblr,
  ...twitch,
  ...vk,
  ...warpcast,
  ...wordpress,
  ...x,
  ...youtube
] as const
