/**
 * The redirect-URI rules of POST /oauth/register (spec: OAuth 2.0 for apps): https; or
 * http only on localhost, 127.0.0.1 or [::1]; or the app's own custom scheme. Other http
 * hosts, other web or script schemes and addresses with a `#` part are refused.
 * Returns why an address is refused, or null when it may be registered.
 */

/** Loopback hosts an http address may name, spelled exactly (no `127.1`, `2130706433`, …). */
const loopbackHosts = ["localhost", "127.0.0.1", "[::1]"]

/**
 * Schemes that are the web's, a browser's or a script's, never an app's own: a redirect
 * there would hand the code to a page, a file or a script.
 */
export const refusedSchemes = [
  "ws",
  "wss",
  "ftp",
  "ftps",
  "sftp",
  "file",
  "javascript",
  "vbscript",
  "data",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "jar",
  "gopher",
  "mailto",
  "tel",
  "sms",
  "news",
  "nntp",
  "telnet",
  "ssh",
  "ldap",
  "ldaps",
  "irc",
  "smb",
  "chrome",
  "chrome-extension",
  "moz-extension",
  "resource",
  "intent",
  "content",
  "ms-appx",
  "wyciwyg"
] as const

export const redirectUriProblem = (uri: string, maxLength: number): string | null => {
  if (uri.length > maxLength) return `A redirect address is longer than ${maxLength} characters.`
  if (uri.includes("#")) return `The redirect address ${uri} has a # part. Register it without the fragment.`
  if (/\s/.test(uri)) return `The redirect address ${JSON.stringify(uri)} has spaces in it.`
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `The redirect address ${JSON.stringify(uri)} is not an absolute URL.`
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase()
  if (url.username !== "" || url.password !== "") return `The redirect address ${uri} may not hold a user name or password.`
  if (scheme === "https") return url.hostname === "" ? `The redirect address ${uri} has no host.` : null
  if (scheme === "http") {
    const host = url.hostname.toLowerCase()
    const written = uri.slice("http://".length).toLowerCase()
    // the host as written, not as URL parsing rewrote it (127.1 and 0x7f.1 become 127.0.0.1)
    const exact = loopbackHosts.includes(host) && written.startsWith(host) && /^[:/?]|^$/.test(written.slice(host.length))
    return exact ? null : `The redirect address ${uri} uses http on a host other than localhost, 127.0.0.1 or [::1]. Use https.`
  }
  if ((refusedSchemes as ReadonlyArray<string>).includes(scheme)) {
    return `The redirect address ${uri} uses the ${scheme}: scheme, which apps cannot use. Use https, http on localhost, or the app's own scheme.`
  }
  return null
}
