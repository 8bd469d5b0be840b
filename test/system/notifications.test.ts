import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, errorOf, type Answer } from "../support/http.js"

const notificationsOf = (answer: Answer) => decoded(answer, answerOf("networks", "listNotifications"))
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { answerOf } from "../support/answers.js"

/**
 * GET /notifications (spec: Notifications and networks; Limits rule 5): the workspace's
 * notifications, newest first, 50 a page, `page` from 1. They are written with the events
 * that imply them, so a post the network refuses shows a `fail` notification.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("notifications")
  sys = await startServices(world)
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Rehearsal", customerId: null, postingTimes: [] })
  return { workspaceId, channelId, api: client(sys.url, apiKey) }
}

/** Notifications written straight into the table, `count` of them a second apart, oldest first. */
const addNotifications = (workspaceId: string, count: number) =>
  withDb(world, async (c) => {
    for (let i = 0; i < count; i++) {
      await c.query(
        `INSERT INTO notifications (id, workspace_id, type, title, body, link, created_at)
         VALUES (gen_random_uuid(), $1, 'info', $2, 'body', '/launches', now() - make_interval(secs => $3))`,
        [workspaceId, `n${i}`, count - i]
      )
    }
  })

describe("GET /public/v1/notifications", () => {
  it("answers an empty first page for a new workspace", async () => {
    const w = await newWorkspace()
    const res = await w.api.get("/public/v1/notifications")
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ notifications: [], page: 1 })
  })

  it("pages 50 at a time, newest first, without overlap", async () => {
    const w = await newWorkspace()
    await addNotifications(w.workspaceId, 60)
    const first = notificationsOf(await w.api.get("/public/v1/notifications"))
    const second = notificationsOf(await w.api.get("/public/v1/notifications?page=2"))
    const third = notificationsOf(await w.api.get("/public/v1/notifications?page=3"))
    expect(first.page).toBe(1)
    expect(first.notifications).toHaveLength(50)
    expect(first.notifications[0]?.title).toBe("n59")
    expect(second.page).toBe(2)
    expect(second.notifications.map((n) => n.title)).toEqual(["n9", "n8", "n7", "n6", "n5", "n4", "n3", "n2", "n1", "n0"])
    expect(third.notifications).toEqual([])
    for (const n of first.notifications) {
      expect(Object.keys(n).sort()).toEqual(["body", "created_at", "id", "link", "title", "type"])
      expect(n.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    }
  })

  it("shows a fail notification when the network refuses a post", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: w.channelId }, value: [{ content: "Refuse me" }], settings: { outcome: "reject" } }]
    })
    expect(res.status).toBe(200)
    const found = await waitFor(
      "a fail notification",
      async () => {
        const list = notificationsOf(await w.api.get("/public/v1/notifications")).notifications
        return list.find((n) => n.type === "fail")
      },
      20_000
    )
    expect(found.body).toEqual(expect.any(String))
  })

  it.each(["0", "-1", "abc", "1.5"])("page=%s is a 400 with the spec's error body", async (page) => {
    const w = await newWorkspace()
    const res = await w.api.get(`/public/v1/notifications?page=${page}`)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toEqual(errorOf(res).msg)
  })

  it("never shows another workspace's notifications", async () => {
    const a = await newWorkspace()
    const b = await newWorkspace()
    await addNotifications(a.workspaceId, 3)
    expect(notificationsOf(await b.api.get("/public/v1/notifications")).notifications).toEqual([])
  })
})
