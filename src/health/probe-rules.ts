/**
 * Pure decisions of the bench loop: when to probe next, whether a probe may take a token,
 * which cheap method to send, and when good probes readmit an endpoint.
 *
 * Readmission rule: two good probes in a row readmit an endpoint benched by reputation or
 * behind an open host breaker. The second one is a confirmation sent a quarter interval
 * after the first, so a restarted endpoint is back within 1.1 + 0.275 < 2 probe intervals
 * of its restart, instead of after `recoveryTimeoutMs` (5 min). One good answer can be luck
 * (a node restarting may answer one call and die); two a quarter interval apart rarely are.
 */
import type { Random } from '../clock.js';
import type { HeadQuantity } from './config.js';

/** Good probes in a row that readmit a benched endpoint. */
export const READMIT_AFTER_GOOD_PROBES = 2;
/** The confirmation probe follows a good one after this share of the interval. */
export const CONFIRM_AFTER_SHARE = 0.25;
/** Probe intervals are jittered by ±10 % so a fleet started together does not probe in step. */
export const PROBE_JITTER = 0.1;

/** The delay before the next probe: `intervalMs` ± 10 %, from the injected random. */
export function probeDelayMs(intervalMs: number, random: Random): number {
  return intervalMs * (1 - PROBE_JITTER + 2 * PROBE_JITTER * random());
}

/** The delay after a probe: a confirmation soon after a good one on an endpoint still out of rotation, else a normal interval. */
export function nextProbeDelayMs(intervalMs: number, random: Random, goodInARow: number, stillWanted: boolean): number {
  if (stillWanted && goodInARow > 0 && goodInARow < READMIT_AFTER_GOOD_PROBES) return intervalMs * CONFIRM_AFTER_SHARE;
  return probeDelayMs(intervalMs, random);
}

/**
 * Whether a probe may take a token now: only one to spare (at least two in the bucket, so
 * one stays for user traffic), no call waiting for the role, and a free permit.
 */
export function hasSpareCapacity(tokens: number | undefined, waiting: number, inFlight: number, maxInFlight: number | undefined): boolean {
  if (waiting > 0) return false;
  if (maxInFlight !== undefined && inFlight >= maxInFlight) return false;
  return tokens === undefined || tokens >= 2;
}

/** The cheapest head-bearing call per quantity: Solana `getSlot`, EVM `eth_blockNumber` (viem#2540: probes cost compute units). */
export const PROBE_METHOD: Readonly<Record<HeadQuantity, string>> = { slot: 'getSlot', block: 'eth_blockNumber' };

/** The other family's probe, after a node answered "method not found". */
export function otherQuantity(quantity: HeadQuantity): HeadQuantity {
  return quantity === 'slot' ? 'block' : 'slot';
}
