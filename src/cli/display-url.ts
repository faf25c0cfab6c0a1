import { parse } from 'tldts';
import { redactUrl } from '../errors/redact.js';

/**
 * How the CLI shows an endpoint URL: scheme + registrable domain (eTLD+1) via `redactUrl`,
 * e.g. `https://…helius-rpc.com`; never userinfo, subdomains, port, path or query.
 *
 * `redactUrl` falls back to the whole hostname when the suffix is not an ICANN one
 * (`key123.localhost`, `key123.internal`, `a.key123.local`), which would print a key hidden
 * in a subdomain. Such hosts keep only their last label here (`http://…localhost`). IP
 * literals and single-label hosts (`localhost`, `geth`) are shown as they are.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<invalid url>';
  }
  const host = parsed.hostname;
  const info = parse(host.startsWith('[') ? host.slice(1, -1) : host, { allowPrivateDomains: false });
  if (info.isIp === true || !host.includes('.')) return `${parsed.protocol}//${host}`;
  if (info.isIcann !== true) return `${parsed.protocol}//…${host.split('.').filter((label) => label !== '').at(-1) ?? ''}`;
  return redactUrl(url);
}

/**
 * An id for an endpoint given without one: `<shown host>-<index>` (`helius-rpc.com-0`,
 * `127.0.0.1-1`), built from {@link displayUrl} so that it never holds more of the URL
 * than the redacted form does.
 */
export function defaultEndpointId(url: string, index: number): string {
  const shown = displayUrl(url).replace(/^[a-z][a-z0-9+.-]*:\/\/(…)?/i, '');
  return `${shown === '' ? 'endpoint' : shown}-${index}`;
}
