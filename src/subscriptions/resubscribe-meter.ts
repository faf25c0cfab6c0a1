/**
 * How resubscribes after a socket died reach the endpoint they move to (pure). When an
 * endpoint holding hundreds of subscriptions dies, each of them would call the survivor at
 * once: instead each waits a jitter first (so clients and subscriptions do not move in
 * lockstep), then takes a token of the survivor's role like any HTTP call — waiting out a
 * rate-limit cooldown, and reserving a token ahead (the bucket goes into debt) so that a
 * crowd of resubscribes is spread at the role's rate with one wait each.
 */
import type { Random } from '../clock.js';
import type { BackoffSettings } from '../retry/backoff.js';

/** The wait before a moving subscription first looks for a new endpoint: uniform in [0, initialBackoffMs). */
export function resubscribeJitterMs(settings: BackoffSettings, random: Random): number {
  return random() * settings.initialBackoffMs;
}

/** What the survivor's role says of one more resubscribe now. */
export type MeterDecision =
  /** Send now; a token was taken when the role has a bucket. */
  | { readonly type: 'go' }
  /** A token is reserved (taken into debt): send after `waitMs` without asking again. */
  | { readonly type: 'reserve'; readonly waitMs: number }
  /** Nothing taken: ask again after `waitMs` (a cooldown, or a shared bucket whose next token has no known instant). */
  | { readonly type: 'later'; readonly waitMs: number };

/**
 * `tokenWaitMs`: the role bucket's wait for one token (0: one is there; undefined: the role
 * has no rate; Infinity: unknown). `retryMs`: how long to wait when it is unknown.
 */
export function meterDecision(nowMs: number, cooldownUntilMs: number, tokenWaitMs: number | undefined, retryMs: number): MeterDecision {
  if (nowMs < cooldownUntilMs) return { type: 'later', waitMs: cooldownUntilMs - nowMs };
  if (tokenWaitMs === undefined || tokenWaitMs <= 0) return { type: 'go' };
  if (!Number.isFinite(tokenWaitMs)) return { type: 'later', waitMs: Math.max(1, retryMs) };
  return { type: 'reserve', waitMs: tokenWaitMs };
}
