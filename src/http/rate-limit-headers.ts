/**
 * What the `X-RateLimit-*` headers (and the IETF draft's `RateLimit-*`) say on a refused
 * request. Their forms vary by provider, so only unambiguous readings count:
 * - `Remaining: 0` with `Reset`: a delay until the window resets — delta-seconds, or an
 *   epoch instant in seconds (a value above 10^9, as GitHub-style limiters send);
 * - a limit with its window (`100;w=10`, the draft's policy form, in `Limit` or
 *   `RateLimit-Policy`): an allowed rate. A bare `Limit: 100` names no window and is ignored.
 * Pure: the wall clock is passed in.
 */
import { clampProviderDelayMs } from '../retry/retry-after.js';

type Headers = Readonly<Record<string, string>>;

const header = (headers: Headers, name: string): string | undefined => headers[`x-ratelimit-${name}`] ?? headers[`ratelimit-${name}`];

/** Epoch seconds start here (2001-09-09): smaller reset values are delta-seconds. */
const EPOCH_SECONDS_FLOOR = 1e9;

/** The delay until the provider's window resets, when it says none are left; in ms, capped like any provider delay. */
export function rateLimitResetDelayMs(headers: Headers, wallNowMs: number): number | undefined {
  const remaining = header(headers, 'remaining');
  const reset = header(headers, 'reset');
  if (remaining === undefined || reset === undefined || !(Number(remaining) <= 0)) return undefined;
  const value = Number(reset.trim());
  if (reset.trim() === '' || !Number.isFinite(value)) return undefined;
  return clampProviderDelayMs(value > EPOCH_SECONDS_FLOOR ? value * 1000 - wallNowMs : value * 1000);
}

/** `quota;w=seconds` anywhere in the header: the allowed rate in requests per second. */
function policyRps(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  for (const item of value.split(',')) {
    const match = /^\s*(\d+(?:\.\d+)?)\s*;(?:.*;)?\s*w\s*=\s*(\d+(?:\.\d+)?)\s*(?:;.*)?$/.exec(item);
    if (match === null) continue;
    const quota = Number(match[1]);
    const windowSeconds = Number(match[2]);
    if (quota > 0 && windowSeconds > 0) return quota / windowSeconds;
  }
  return undefined;
}

/** The rate a limit with its window allows, in requests per second; undefined without a window. */
export function rateLimitAllowedRps(headers: Headers): number | undefined {
  return policyRps(header(headers, 'limit')) ?? policyRps(headers['ratelimit-policy']);
}
