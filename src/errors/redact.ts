import { getDomain } from 'tldts';

/**
 * Scheme and registrable domain only: `https://…helius-rpc.com`. Used where a person must
 * recognise an endpoint (CLI tables); keys hidden in subdomains, paths, queries and
 * userinfo are dropped.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<invalid url>';
  }
  const host = parsed.hostname;
  const domain = getDomain(host, { allowPrivateDomains: false }) ?? host;
  const prefix = domain === host ? '' : '…';
  return `${parsed.protocol}//${prefix}${domain}`;
}

/**
 * Fragments of configured URLs and header values that could be secrets: userinfo, every
 * subdomain label and path segment and query value of 6+ characters, and header values.
 */
export function secretFragments(urls: readonly string[], headerValues: readonly string[] = []): string[] {
  const fragments = new Set<string>();
  const add = (value: string) => {
    if (value.length >= 6) fragments.add(value);
  };
  for (const url of urls) {
    add(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    add(decodeURIComponent(parsed.username));
    add(decodeURIComponent(parsed.password));
    const domain = getDomain(parsed.hostname, { allowPrivateDomains: false }) ?? parsed.hostname;
    const sub = parsed.hostname.slice(0, Math.max(0, parsed.hostname.length - domain.length - 1));
    for (const label of sub.split('.')) add(label);
    for (const segment of parsed.pathname.split('/')) add(decodeURIComponent(segment));
    for (const value of parsed.searchParams.values()) add(value);
  }
  for (const value of headerValues) add(value);
  // Longest first, so a whole URL is replaced before one of its parts.
  return [...fragments].sort((a, b) => b.length - a.length);
}

/**
 * Returns a function that removes any known secret fragment and any URL from text that
 * came from outside (a node's error message), before it goes into an error or event.
 */
export function createRedactor(fragments: readonly string[]): (text: string) => string {
  return (text) => {
    let out = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '<redacted-url>');
    for (const fragment of fragments) {
      if (out.includes(fragment)) out = out.split(fragment).join('<redacted>');
    }
    return out;
  };
}
