/**
 * Reputation keys: what one score belongs to. A key may contain an endpoint URL — which can
 * carry an API key in its host or path — so keys are internal: never put one in an event,
 * snapshot, error or log line. The brand keeps a plain string from being passed by mistake.
 */
import type { ReputationGranularity } from './config.js';

declare const reputationKeyBrand: unique symbol;

/** Opaque identity of one score. Internal: never expose it (it may contain a URL). */
export type ReputationKey = string & { readonly [reputationKeyBrand]: true };

export interface ReputationKeyParts {
  /** The endpoint's full URL. Two endpoints with the same URL share a `per-url` score. */
  readonly url: string;
  /** The endpoint's configured id. */
  readonly endpointId: string;
  /** The endpoint's registrable domain (eTLD+1) or operator, resolved by the caller. */
  readonly domain: string;
}

/**
 * The key of an endpoint's score under a granularity. URLs are compared after WHATWG
 * normalisation (`https://Node.example` and `https://node.example/` are one backend);
 * an unparseable URL is used as written.
 */
export function reputationKey(granularity: ReputationGranularity, parts: ReputationKeyParts): ReputationKey {
  switch (granularity) {
    case 'per-url':
      return `url:${normaliseUrl(parts.url)}` as ReputationKey;
    case 'per-endpoint':
      return `endpoint:${parts.endpointId}` as ReputationKey;
    case 'per-domain':
      return `domain:${parts.domain.toLowerCase()}` as ReputationKey;
  }
}

function normaliseUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
