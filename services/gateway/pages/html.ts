/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** A small self-contained page (no scripts, no outside assets). */
export const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:720px;margin:2rem auto;padding:0 1rem;color:#1f2937}
.channel{border:1px solid #e5e7eb;border-radius:8px;padding:1rem;margin:1rem 0}
.meta{color:#6b7280;font-size:.9rem}.text{white-space:pre-wrap}.thread{margin-left:1rem;border-left:3px solid #e5e7eb;padding-left:.75rem}
.status{display:inline-block;padding:.1rem .5rem;border-radius:999px;background:#eef2ff;font-size:.85rem}
form{display:inline-block;margin:.5rem .5rem 0 0}textarea{width:100%;min-height:5rem}button{padding:.5rem 1rem;border-radius:6px;border:1px solid #4f46e5;background:#4f46e5;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#4f46e5}
</style></head><body>${body}</body></html>`
