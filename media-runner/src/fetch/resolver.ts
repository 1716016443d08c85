import { lookup } from "node:dns/promises";

/** Turns a host name into the addresses a connection may use. Injectable so tests can fake DNS. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The operating system's resolver (getaddrinfo), every address, in the order the system prefers. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
