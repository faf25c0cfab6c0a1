import { parse } from 'tldts';

const OPTIONS = { allowPrivateDomains: false, extractHostname: false, validateHostname: false } as const;

/**
 * The ICANN registrable domain of a hostname (`abc.mainnet.helius-rpc.com` →
 * `helius-rpc.com`), or undefined when it has none we can trust. Unknown suffixes
 * (`.local`, `.internal`, `.localhost`) are not trusted: the public-suffix list's
 * catch-all rule would make `KEY.local` a "domain" and leak the key label. Private
 * suffixes (`workers.dev`) are ignored for the same reason: `<key>.workers.dev`.
 */
export function registrableDomain(hostname: string): string | undefined {
  const parsed = parse(hostname, OPTIONS);
  return parsed.isIcann === true && parsed.domain !== null ? parsed.domain : undefined;
}
