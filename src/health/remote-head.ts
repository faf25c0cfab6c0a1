/**
 * Whether a head another process observed (fleet mode) is believed here, as an observation
 * of that endpoint. Pure: the caller passes what its head book knows.
 */
import type { HeadQuantity } from './config.js';
import { TIP_BOUNDS } from './reference-tip.js';

/** Observations this close are taken as simultaneous (the later fact wins), in ms. */
export const SAME_INSTANT_MS = 10;

export interface RemoteHeadCandidate {
  readonly quantity: HeadQuantity;
  readonly value: bigint;
  /** When it was observed, on this process's clock (now − its age by the store's clock). */
  readonly observedAtMs: number;
}

/**
 * False when the head is of the other quantity (the endpoint's known one, else the chain's),
 * older than what this process already knows of the endpoint (the newest observation wins,
 * local or remote), or further ahead of the reference tip than the chain can have
 * moved since (the tip's own plausibility rule): such a head can neither end a lag verdict
 * nor, by raising the tip, start one.
 */
export function believeRemoteHead(
  head: RemoteHeadCandidate,
  known: { readonly quantity: HeadQuantity; readonly observedAtMs: number } | undefined,
  chainQuantity: HeadQuantity | undefined,
  tip: { readonly value: bigint; readonly atMs: number } | undefined,
): boolean {
  const expected = known?.quantity ?? chainQuantity;
  if (expected !== undefined && head.quantity !== expected) return false;
  // Ages are whole ms of the store's clock read at different polls: two tells a moment apart may
  // come out a ms or two out of order. Within that slack the later fact is the later observation.
  if (known !== undefined && known.observedAtMs - head.observedAtMs > SAME_INSTANT_MS) return false;
  if (tip === undefined) return true;
  const bounds = TIP_BOUNDS[head.quantity];
  const cap = tip.value + BigInt(Math.ceil((bounds.advancePerSecond * Math.max(0, head.observedAtMs - tip.atMs)) / 1000 + bounds.maxJump));
  return head.value <= cap;
}
