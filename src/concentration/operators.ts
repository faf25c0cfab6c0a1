import { registrableDomain } from './registrable-domain.js';

/**
 * Operator grouping for the concentration cap.
 *
 * An operator name is shown in snapshots and `reshape` events, so it is built only from
 * parts of a URL that are never secret: the registrable domain (eTLD+1), an IP literal,
 * `localhost`, a user-supplied override, or a short hash. It never contains a path, a
 * query, userinfo, a port or a subdomain label (providers put API keys in all of them).
 */

/**
 * Public-suffix lookup options.
 *
 * `allowPrivateDomains: false` on purpose: with the PSL's private section, a hosted
 * customer label becomes part of the "domain" (`<key>.workers.dev`, `<app>.herokuapp.com`),
 * which would (a) leak that label — often a key or account name — into operator names and
 * (b) split endpoints that share one infrastructure operator (Cloudflare, Heroku) into
 * separate "operators", defeating the point of the cap, which is to limit correlated
 * failure. ICANN-only suffixes give `workers.dev`, `herokuapp.com`, `quiknode.pro`.
 *
 * `validateHostname: false` because the hostname already went through the WHATWG URL
 * parser, which is stricter about what reaches the network than tldts' DNS-label check
 * (that check rejects labels such as `-rpc-` that resolvers accept).
 */
/** `localhost` and every name under `.localhost` resolve to loopback (RFC 6761 §6.3). */
const LOCALHOST = 'localhost';

/** Operator names for hosts that have no registrable domain start with this prefix. */
const UNRESOLVED_OPERATOR_PREFIX = 'host-';

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** IPv4-mapped IPv6 as the URL parser serialises it: `[::ffff:7f00:1]`. */
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/**
 * The operator an endpoint belongs to, for the per-operator traffic cap.
 *
 * - `override` (the endpoint's `operator` config field), when non-blank, wins, trimmed and
 *   otherwise verbatim: the user chose it, so it is what they expect to see.
 * - Otherwise the registrable domain of the URL's host, ICANN suffixes only:
 *   `https://abc123key.mainnet.helius-rpc.com/?api-key=XYZ` → `helius-rpc.com`,
 *   `https://rpc.foo.co.uk` → `foo.co.uk`. The host is lower-cased, IDNs are punycode and
 *   a trailing dot is ignored, so spellings of one host are one operator.
 * - IP literals are their own operator: `127.0.0.1`, `[::1]` (IPv6 keeps its brackets, as in
 *   a URL, so it cannot be mistaken for a `host:port`); IPv4-mapped IPv6 is folded into the
 *   IPv4 address. Ports are ignored, so several loopback test endpoints on different ports
 *   of `127.0.0.1` are ONE operator unless each gets an `override`; `localhost` (and any
 *   `*.localhost`) is one operator, distinct from `127.0.0.1` because we never resolve names.
 * - A host with no registrable domain (a single label such as a Docker service `my-node`, a
 *   bare public suffix such as `co.uk`) or a URL that does not parse is a singleton
 *   operator named `host-<8 hex digits>`: a 32-bit FNV-1a hash of the hostname (of the whole
 *   string when it does not parse). The hostname itself is not used because it may hold a
 *   key; 32 bits of a hash cannot reveal a key, and the same host always maps to the same
 *   name, so its endpoints still group together across ports.
 */
export function operatorOf(url: string, override?: string): string {
  if (override !== undefined) {
    const trimmed = override.trim();
    if (trimmed !== '') return trimmed;
  }
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return unresolvedOperator(url);
  }
  // `example.com.` is the same host as `example.com`.
  while (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname === '') return unresolvedOperator(url);
  if (hostname.startsWith('[')) return ipv6Operator(hostname);
  // The URL parser has already normalised `0x7f.1` and friends to dotted quads.
  if (IPV4.test(hostname)) return hostname;
  if (hostname === LOCALHOST || hostname.endsWith(`.${LOCALHOST}`)) return LOCALHOST;
  return registrableDomain(hostname) ?? unresolvedOperator(hostname);
}

function ipv6Operator(bracketed: string): string {
  const mapped = IPV4_MAPPED.exec(bracketed);
  if (mapped) {
    const high = Number.parseInt(mapped[1] ?? '0', 16);
    const low = Number.parseInt(mapped[2] ?? '0', 16);
    return `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`;
  }
  return bracketed;
}

function unresolvedOperator(text: string): string {
  return `${UNRESOLVED_OPERATOR_PREFIX}${fnv1a32(text).toString(16).padStart(8, '0')}`;
}

/** FNV-1a, 32 bits, over UTF-16 code units: stable across runs and platforms. */
function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
