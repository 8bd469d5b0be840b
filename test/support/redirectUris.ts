/** The redirect-URI cases of the spec (POST /oauth/register), shared by the unit and system tests. */

export const acceptedRedirectUris = [
  "https://app.example.com/callback",
  "https://app.example.com/callback?x=1",
  "http://localhost/callback",
  "http://localhost:8765/callback",
  "http://127.0.0.1:33418/",
  "http://127.0.0.1",
  "http://[::1]:8080/cb",
  "com.example.app:/oauth2redirect",
  "cursor://anysphere.cursor-retrieval/oauth/callback",
  "myapp://callback"
]

export const refusedRedirectUris: ReadonlyArray<readonly [string, string]> = [
  ["http on another host", "http://app.example.com/callback"],
  ["http on a private address", "http://192.168.1.10/callback"],
  ["http on 127.1 (rewritten to 127.0.0.1 by URL parsing)", "http://127.1/callback"],
  ["http on 2130706433", "http://2130706433/callback"],
  ["http on 0x7f.1", "http://0x7f.1/callback"],
  ["http on localhost.example.com", "http://localhost.example.com/callback"],
  ["http on localhost with a userinfo trick", "http://localhost@evil.example/callback"],
  ["https with a fragment", "https://app.example.com/callback#frag"],
  ["localhost with an empty fragment", "http://localhost/cb#"],
  ["a custom scheme with a fragment", "com.example.app:/cb#x"],
  ["ws", "ws://app.example.com/cb"],
  ["wss", "wss://app.example.com/cb"],
  ["ftp", "ftp://app.example.com/cb"],
  ["file", "file:///etc/passwd"],
  ["javascript", "javascript:alert(1)"],
  ["JavaScript in capitals", "JAVASCRIPT:alert(1)"],
  ["data", "data:text/html,<script>alert(1)</script>"],
  ["blob", "blob:https://app.example.com/1234"],
  ["vbscript", "vbscript:msgbox(1)"],
  ["about", "about:blank"],
  ["mailto", "mailto:someone@example.com"],
  ["chrome-extension", "chrome-extension://abcdef/cb"],
  ["user name and password", "https://user:pw@app.example.com/cb"],
  ["a relative address", "/callback"],
  ["no scheme", "app.example.com/callback"],
  ["an empty string", ""],
  ["spaces", "https://app.example.com/call back"],
  ["longer than 2000 characters", `https://app.example.com/${"a".repeat(2000)}`]
]
