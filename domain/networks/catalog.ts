import { bluesky, lemmy, mastodon, nostr, warpcast } from "./decentralized.js"
import { discord, kick, slack, telegram, twitch } from "./chat.js"
import type { Network } from "./network.js"
import { devto, hashnode, listmonk, medium, wordpress } from "./publishing.js"
import { facebook, gmb, linkedin, linkedinPage, mewe, reddit, threads, tumblr, vk, x } from "./social.js"
import { testNetwork } from "./test-network.js"
import { dribbble, instagram, instagramStandalone, pinterest, tiktok, tiktokBusiness, youtube } from "./visual.js"

/**
 * Every network the service knows, in the reference API's order (notes: "Networks of
 * the reference"), then the built-in test network. GET /networks answers this order.
 */
export const networks: ReadonlyArray<Network> = [
  x,
  linkedin,
  linkedinPage,
  reddit,
  instagram,
  instagramStandalone,
  facebook,
  threads,
  youtube,
  gmb,
  tiktok,
  tiktokBusiness,
  pinterest,
  dribbble,
  discord,
  slack,
  kick,
  twitch,
  mastodon,
  bluesky,
  lemmy,
  warpcast,
  telegram,
  nostr,
  vk,
  medium,
  devto,
  hashnode,
  wordpress,
  listmonk,
  tumblr,
  mewe,
  testNetwork
]
