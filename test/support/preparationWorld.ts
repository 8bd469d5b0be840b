import { readFile } from "node:fs/promises"
import { afterAll, beforeAll } from "vitest"
import { makeScratch } from "../unit/media/fixtures.js"
import { present, wholePost } from "./answers.js"
import { type Answer, answerFrom, client } from "./http.js"
import type { Simulator } from "./simulator/core.js"
import { simulatorEnv, startSimulator } from "./simulator/index.js"
import { createWorld, type RunningServices, startServices, type TestWorld } from "./system.js"
import { withDb } from "./tokens.js"

/**
 * The world of the media preparation tests: the services that save, prepare and publish
 * (gateway, actors, scheduler, publisher with one preparation at a time), the network
 * simulator, local storage under a scratch folder, and what those tests read back.
 * Registers the file's beforeAll/afterAll; its fields are there once beforeAll has run.
 */
export const usePreparationWorld = (label: string) => {
  let sim!: Simulator
  let world!: TestWorld
  let sys!: RunningServices
  let scratch!: Awaited<ReturnType<typeof makeScratch>>

  beforeAll(async () => {
    scratch = await makeScratch()
    sim = await startSimulator()
    world = await createWorld(label)
    sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
      ...simulatorEnv(sim),
      DATA_DIR: scratch.file("data"),
      MEDIA_PREPARATION_CONCURRENCY: "1"
    })
  }, 60_000)
  afterAll(async () => {
    await sys?.stop()
    await world?.drop()
    await sim?.close()
    await scratch?.remove()
  })

  return {
    get sim() {
      return sim
    },
    get world() {
      return world
    },
    get sys() {
      return sys
    },
    get scratch() {
      return scratch
    },
    get dataDir() {
      return scratch.file("data")
    },
    /** POST /upload as a script would: fetch with FormData. */
    upload: async (apiKey: string, file: string, name: string): Promise<Answer> => {
      const form = new FormData()
      form.append("file", new Blob([await readFile(file)]), name)
      return answerFrom(await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form }))
    },
    newWorkspace: async () => {
      const ws = await sys.admin.createWorkspace("Media", "ultimate")
      return { ...ws, api: client(sys.url, ws.apiKey) }
    },
    testChannel: (workspaceId: string, name: string) =>
      sys.admin.createChannel({ workspaceId, network: "test", name, customerId: null, postingTimes: [] }),
    /** The renditions of a library file, as the preparation worker records them. */
    renditionsOf: (mediaId: string) =>
      withDb(
        world,
        async (c) =>
          (
            await c.query<{ target_key: string; status: string; storage_key: string | null; mime: string | null; bytes: number | null }>(
              "SELECT target_key, status, storage_key, mime, bytes FROM media_renditions WHERE media_id = $1 ORDER BY target_key",
              [mediaId]
            )
          ).rows
      ),
    /** The root item of a whole post's first channel. */
    rootOf: (answer: Answer) => present(wholePost(answer).channels[0], "the post's first channel").root
  }
}
