import { lookup } from "node:dns/promises"

/** Resolves a host name to every address it has; injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>

/** getaddrinfo, like Node itself, so /etc/hosts and the system resolver are honoured. */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, order: "verbatim" })
