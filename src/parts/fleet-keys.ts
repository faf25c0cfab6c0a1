/** The fleet's names for what a pool shares: opaque, stable across processes, one-way (no URL, host or key reaches the store). */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/** A SHA-256 of the parts, shortened: the fleet's name for an endpoint fact, bucket or plan. */
export function keyOf(...parts: string[]): string {
  return bytesToHex(sha256(utf8ToBytes(parts.join('\u0000')))).slice(0, 32);
}

/** A URL as the WHATWG parser writes it, so spellings of one endpoint name one key. */
export function normalizedUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
