/** A client as a script would be: fetch with the key in Authorization. */
export const client = (baseUrl: string, key?: string) => {
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key !== undefined ? { authorization: key } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {})
    })
    const text = await res.text()
    let json: unknown = undefined
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    // responses are inspected freely in tests; assertions check their shape
    return { status: res.status, headers: res.headers, text, json: json as any }
  }
  return {
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => request("POST", path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => request("PUT", path, body, headers),
    del: (path: string, headers?: Record<string, string>) => request("DELETE", path, undefined, headers),
    request
  }
}
