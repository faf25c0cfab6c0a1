import { registrableDomain } from '../concentration/registrable-domain.js';
import { basicAuthorizationOf, safeDecode } from '../http/url-credentials.js';

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Options of {@link redactUrl}. */
export interface RedactUrlOptions {
  /**
   * Show the port after an IP literal or a single-label host (`http://127.0.0.1:8899`), so two
   * local nodes can be told apart (the CLI's probe table does). A named host's port is never
   * shown. @default false
   */
  readonly localPort?: boolean;
}

/**
 * Scheme and registrable domain only: `https://…helius-rpc.com`. Used where a person must
 * recognise an endpoint (CLI tables, recorded fixtures); keys hidden in subdomains, paths,
 * queries, ports and userinfo are dropped. IP literals and single-label hosts (`localhost`,
 * `geth`) are shown as they are (with their port when `localPort` is set); a host without an
 * ICANN suffix (`key123.internal`, `a.key123.local`) keeps only its last label (`http://…local`).
 */
export function redactUrl(url: string, options: RedactUrlOptions = {}): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<invalid url>';
  }
  const host = parsed.hostname;
  if (host.startsWith('[') || IPV4.test(host) || !host.includes('.')) {
    return `${parsed.protocol}//${host}${options.localPort === true && parsed.port !== '' ? `:${parsed.port}` : ''}`;
  }
  const domain = registrableDomain(host);
  if (domain === undefined) return `${parsed.protocol}//…${host.split('.').filter((label) => label !== '').at(-1) ?? ''}`;
  return `${parsed.protocol}//${domain === host ? '' : '…'}${domain}`;
}

/**
 * Fragments of configured URLs and header values that could be secrets, in every form
 * they take on the wire or in a node's echo: userinfo (and the `Basic` credential the
 * executors derive from it), every subdomain label, path segment and query value of 6+
 * characters, header values and each of their words (a `Bearer` token alone), each as
 * configured, percent-decoded and percent-encoded.
 */
export function secretFragments(urls: readonly string[], headerValues: readonly string[] = []): string[] {
  const fragments = new Set<string>();
  const add = (value: string) => {
    for (const form of [value, safeDecode(value), encodeURIComponent(value), encodeURIComponent(safeDecode(value))]) {
      if (form.length >= 6) fragments.add(form);
    }
  };
  for (const url of urls) {
    add(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    add(parsed.username);
    add(parsed.password);
    const authorization = basicAuthorizationOf(parsed);
    if (authorization !== undefined) add(authorization.slice('Basic '.length));
    // Every label left of the registrable domain (all labels when there is none) may be a key.
    const domain = registrableDomain(parsed.hostname);
    const sub = domain === undefined ? parsed.hostname : parsed.hostname.slice(0, Math.max(0, parsed.hostname.length - domain.length - 1));
    for (const label of sub.split('.')) add(label);
    for (const segment of parsed.pathname.split('/')) add(segment);
    // Query values as written (`+` or `%20` for a space) and as parsed.
    for (const pair of parsed.search.slice(1).split('&')) add(pair.slice(pair.indexOf('=') + 1));
    for (const value of parsed.searchParams.values()) add(value);
  }
  for (const value of headerValues) {
    add(value);
    for (const word of value.split(/\s+/)) add(word);
  }
  // Longest first, so a whole URL is replaced before one of its parts.
  return [...fragments].sort((a, b) => b.length - a.length);
}

/**
 * Returns a function that removes any known secret fragment and any URL from text that
 * came from outside (a node's error message), before it goes into an error or event.
 */
export function createRedactor(fragments: readonly string[]): (text: string) => string {
  // One case-insensitive pass: hostnames are case-insensitive, and over-redacting is safe.
  const escaped = fragments.map((fragment) => fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const known = escaped.length === 0 ? undefined : new RegExp(escaped.join('|'), 'gi');
  return (text) => {
    const out = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '<redacted-url>');
    return known === undefined ? out : out.replace(known, '<redacted>');
  };
}
