import type { ApprovedAppRow } from "../../people/personTokensRepo.js"
import type { MemberRow, MembershipRow } from "../../people/peopleRepo.js"
import { assignableRoles } from "../../../domain/members.js"
import { escapeHtml, page } from "./html.js"

/**
 * The app's pages for people (plain HTML, no scripts): sign in, Approved Apps, members,
 * the OAuth Allow screen and the device flow's verification page. Every form posts with
 * the session's CSRF token; the routes (peopleRoutes.ts, oauthPageRoutes.ts) do the work.
 */

export interface Signed {
  readonly publicUrl: string
  readonly csrf: string
  readonly email: string
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`
const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`
const notice = (text: string | null) => (text === null ? "" : `<p role="status"><strong>${escapeHtml(text)}</strong></p>`)

const nav = (s: Signed) => `<nav aria-label="Account"><a href="${escapeHtml(s.publicUrl)}/apps">Approved Apps</a> ·
<a href="${escapeHtml(s.publicUrl)}/members">Members</a> ·
<form method="post" action="${escapeHtml(s.publicUrl)}/sign-out">${csrfField(s.csrf)}<button type="submit" class="secondary">Sign out</button></form>
<span class="meta">${escapeHtml(s.email)}</span></nav>`

const signedPage = (s: Signed, title: string, body: string) => page(title, `${nav(s)}\n<main>${body}</main>`)

const workspacePicker = (workspaces: ReadonlyArray<MembershipRow>) =>
  workspaces.length === 1
    ? `<p>Workspace: <strong>${escapeHtml(workspaces[0]?.workspaceName ?? "")}</strong></p>${hidden("workspace", workspaces[0]?.workspaceId ?? "")}`
    : `<p><label for="workspace">Workspace</label><br><select id="workspace" name="workspace" required>
${workspaces.map((w) => `<option value="${escapeHtml(w.workspaceId)}">${escapeHtml(w.workspaceName)} (${escapeHtml(w.role)})</option>`).join("\n")}
</select></p>`

export const signInPage = (input: { publicUrl: string; csrf: string; next: string; email: string; problem: string | null }) =>
  page(
    "Sign in",
    `<h1>Sign in</h1>
${notice(input.problem)}
<form method="post" action="${escapeHtml(input.publicUrl)}/sign-in" style="display:block">
${csrfField(input.csrf)}${hidden("next", input.next)}
<p><label for="email">Email</label><br><input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(input.email)}"></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
<button type="submit">Sign in</button>
</form>`
  )

export const messagePage = (title: string, text: string, s?: Signed) =>
  s === undefined
    ? page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`)
    : signedPage(s, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`)

export const approvedAppsPage = (s: Signed, apps: ReadonlyArray<ApprovedAppRow>, done: string | null) =>
  signedPage(
    s,
    "Approved Apps",
    `<h1>Approved Apps</h1>
<p>Apps and command line tools that act as you. Revoke stops one at once.</p>
${notice(done)}
${
  apps.length === 0
    ? "<p>No apps are approved.</p>"
    : `<table><thead><tr><th scope="col">App</th><th scope="col">Workspace</th><th scope="col">Approved</th><th scope="col"><span class="meta">Action</span></th></tr></thead><tbody>
${apps
  .map(
    (
      a
    ) => `<tr><td>${escapeHtml(a.label)}</td><td>${escapeHtml(a.workspaceName)}</td><td>${escapeHtml(a.createdAt.toISOString().slice(0, 16).replace("T", " "))} UTC</td>
<td><form method="post" action="${escapeHtml(s.publicUrl)}/apps/revoke">${csrfField(s.csrf)}${hidden("token", a.id)}
<button type="submit" aria-label="Revoke ${escapeHtml(a.label)} in ${escapeHtml(a.workspaceName)}">Revoke</button></form></td></tr>`
  )
  .join("\n")}
</tbody></table>`
}`
  )

export const membersPage = (
  s: Signed,
  input: {
    workspace: MembershipRow
    manageable: ReadonlyArray<MembershipRow>
    members: ReadonlyArray<MemberRow>
    selfId: string
    done: string | null
  }
) => {
  const w = input.workspace
  const others = input.manageable.filter((m) => m.workspaceId !== w.workspaceId)
  const row = (m: MemberRow) => {
    const fixed = m.role === "owner" || m.userId === input.selfId
    const base = `${csrfField(s.csrf)}${hidden("workspace", w.workspaceId)}${hidden("user", m.userId)}`
    const actions = fixed
      ? `<span class="meta">${m.role === "owner" ? "The owner" : "You"}</span>`
      : `<form method="post" action="${escapeHtml(s.publicUrl)}/members/role">${base}
<label for="role-${escapeHtml(m.userId)}" class="meta">Role of ${escapeHtml(m.email)}</label>
<select id="role-${escapeHtml(m.userId)}" name="role">${assignableRoles.map((r) => `<option value="${r}"${r === m.role ? " selected" : ""}>${r}</option>`).join("")}</select>
<button type="submit" class="secondary">Save role</button></form>
<form method="post" action="${escapeHtml(s.publicUrl)}/members/pause">${base}${hidden("paused", m.paused ? "false" : "true")}
<button type="submit" class="secondary">${m.paused ? "Resume" : "Pause"} ${escapeHtml(m.email)}</button></form>`
    return `<tr><td>${escapeHtml(m.email)}</td><td>${escapeHtml(m.role)}</td><td>${m.paused ? "paused" : "active"}</td><td>${actions}</td></tr>`
  }
  return signedPage(
    s,
    "Members",
    `<h1>Members of ${escapeHtml(w.workspaceName)}</h1>
${
  others.length === 0
    ? ""
    : `<p>Other workspaces: ${others
        .map((o) => `<a href="${escapeHtml(s.publicUrl)}/members?workspace=${escapeHtml(o.workspaceId)}">${escapeHtml(o.workspaceName)}</a>`)
        .join(" · ")}</p>`
}
${notice(input.done)}
<table><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Access</th><th scope="col">Change</th></tr></thead><tbody>
${input.members.map(row).join("\n")}
</tbody></table>`
  )
}

export const allowPage = (
  s: Signed,
  input: {
    clientName: string
    redirectUri: string
    params: ReadonlyArray<readonly [string, string]>
    workspaces: ReadonlyArray<MembershipRow>
  }
) => {
  let destination = input.redirectUri
  try {
    const url = new URL(input.redirectUri)
    destination = url.host === "" ? `${url.protocol}` : url.host
  } catch {
    // the address was checked at registration; show it as it is
  }
  return signedPage(
    s,
    `Allow ${input.clientName}?`,
    `<h1>Allow ${escapeHtml(input.clientName)} to act as you?</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> asks to use this service as you (${escapeHtml(s.email)}), with your role, in the workspace below:
it can do what your role allows until you revoke it under Approved Apps.</p>
<form method="post" action="${escapeHtml(s.publicUrl)}/oauth/authorize" style="display:block">
${csrfField(s.csrf)}${input.params.map(([k, v]) => hidden(k, v)).join("")}
${workspacePicker(input.workspaces)}
<p class="meta">After your answer you go back to ${escapeHtml(destination)}.</p>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="cancel" class="secondary">Cancel</button>
</form>`
  )
}

export const devicePage = (s: Signed, input: { userCode: string; workspaces: ReadonlyArray<MembershipRow>; problem: string | null }) =>
  signedPage(
    s,
    "Connect a command line tool",
    `<h1>Connect a command line tool</h1>
<p>Enter the code the command line shows. Approve only if you started it yourself: it will act as you, with your role, in the workspace you pick.</p>
${notice(input.problem)}
<form method="post" action="${escapeHtml(s.publicUrl)}/device" style="display:block">
${csrfField(s.csrf)}
<p><label for="user_code">Code</label><br><input id="user_code" name="user_code" required autocomplete="off"
autocapitalize="characters" spellcheck="false" value="${escapeHtml(input.userCode)}"${input.userCode === "" ? " autofocus" : ""}></p>
${workspacePicker(input.workspaces)}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`
  )
