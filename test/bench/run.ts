/** `npm run bench -- <name>`: runs test/bench/<name>.ts (posts, read, upload, media, latency, sql-overhead, events, mcp, short-links, oauth, webhooks, publishing, …). */
const name = process.argv[2] ?? "posts"
if (!/^[a-z0-9-]+$/.test(name)) {
  console.error(`Unknown benchmark ${name}`)
  process.exit(2)
}
await import(`./${name}.js`)
export {}
