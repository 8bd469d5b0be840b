import { describe, expect, it } from "vitest"
import { mastodon } from "../../../domain/networks/decentralized.js"
import { InstanceLimitKeys, withInstanceLimits } from "../../../domain/networks/instanceLimits.js"
import { lemmy } from "../../../domain/networks/decentralized.js"

/** A Mastodon-API server's own limits (kept as the channel's default settings at connect) replace the catalog's. */
describe("withInstanceLimits", () => {
  it("a GoToSocial channel takes 5000 characters and 6 files; a Pixelfed one needs media", () => {
    const gts = withInstanceLimits(mastodon, { [InstanceLimitKeys.maxCharacters]: 5000, [InstanceLimitKeys.maxMedia]: 6 })
    expect(gts).toMatchObject({ maxLength: 5000, maxMedia: 6, needs: null })
    expect(withInstanceLimits(mastodon, { [InstanceLimitKeys.needsMedia]: true }).needs).toBe("media")
  })

  it("without announced limits, with nonsense, or for another network, the catalog's stand", () => {
    expect(withInstanceLimits(mastodon, {})).toEqual(mastodon)
    expect(withInstanceLimits(mastodon, { [InstanceLimitKeys.maxCharacters]: "lots", [InstanceLimitKeys.maxMedia]: -1 })).toEqual(mastodon)
    expect(withInstanceLimits(lemmy, { [InstanceLimitKeys.maxCharacters]: 5 })).toEqual(lemmy)
  })
})
