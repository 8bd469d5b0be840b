import { describe, expect, it } from "vitest"
import { redirectUriProblem } from "../../domain/oauth/redirectUris.js"
import { acceptedRedirectUris, refusedRedirectUris } from "../support/redirectUris.js"

/** Spec: POST /oauth/register, redirect_uris rules. */
const MAX = 2000

describe("redirect addresses that may be registered", () => {
  it.each(acceptedRedirectUris)("%s", (uri) => {
    expect(redirectUriProblem(uri, MAX)).toBeNull()
  })
})

describe("redirect addresses that are refused", () => {
  it.each(refusedRedirectUris)("%s: %s", (_, uri) => {
    expect(redirectUriProblem(uri, MAX)).toEqual(expect.any(String))
  })
})
