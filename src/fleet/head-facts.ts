/**
 * Head observations shared by a fleet (`head` topic): the pure parts. What a head fact holds,
 * when a process tells one (rate-limited, so the hot path never pays a store round trip per
 * answer), and whether a fact read back is one to believe.
 *
 * A fact's age is carried by its TTL, which the store ages by its own clock: a fact is told
 * with {@link HEAD_FACT_TTL_MS} and read back with what is left, so `age = HEAD_FACT_TTL_MS −
 * ttlMs` without any process's clock. A head older than that is gone from the store: a head
 * judged against a newer tip overstates the lag, so an old one would exclude wrongly.
 */
import type { HeadQuantity } from '../health/config.js';

/** How long a shared head holds, in ms: a remote head older than this is never adopted. */
export const HEAD_FACT_TTL_MS = 1_000;
/** A head that moved is told at most once per this many ms per endpoint and process. */
export const HEAD_TELL_MOVED_MS = 250;
/**
 * A head that did not move is told again after this long: a stalled node repeating its head
 * while the chain moves on is exactly what the other processes must keep seeing.
 */
export const HEAD_TELL_UNMOVED_MS = 1_000;
/** A decimal head: no sign, no exponent, at most 30 digits (a u64 slot has 20). */
const DECIMAL = /^[0-9]{1,30}$/;

/** A remote head, decoded. */
export interface RemoteHead {
  readonly quantity: HeadQuantity;
  readonly value: bigint;
  /** How long before it was read the head was observed, in ms (store clock). */
  readonly ageMs: number;
}

/** The data of a head fact: the quantity and the head as a decimal string (JSON has no bigint). */
export function headFactData(quantity: HeadQuantity, value: bigint): Readonly<Record<string, string>> {
  return { quantity, head: value.toString() };
}

/**
 * A head fact read back, or undefined when it is not one to believe: an unknown quantity, a
 * head that is not a plain decimal, or a TTL longer than a head fact is ever told with (it
 * would claim an observation from the future).
 */
export function decodeHeadFact(ttlMs: number, data: Readonly<Record<string, unknown>>): RemoteHead | undefined {
  const quantity = data['quantity'];
  const head = data['head'];
  if ((quantity !== 'slot' && quantity !== 'block') || typeof head !== 'string' || !DECIMAL.test(head)) return undefined;
  if (!(ttlMs > 0) || ttlMs > HEAD_FACT_TTL_MS) return undefined;
  return { quantity, value: BigInt(head), ageMs: HEAD_FACT_TTL_MS - ttlMs };
}

/**
 * When to tell: per endpoint, the first head at once, then a moved head after
 * {@link HEAD_TELL_MOVED_MS} and an unmoved one after {@link HEAD_TELL_UNMOVED_MS}; a head
 * that changed this process's lag verdict on the endpoint always at once (an endpoint just
 * judged lagging gets no more traffic, so a later head might not come for a probe interval).
 * One array read and a comparison per answer that carries a head.
 */
export class HeadTeller {
  readonly #lastRaw: unknown[];
  readonly #lastAtMs: number[];

  constructor(endpointCount: number) {
    this.#lastRaw = new Array<unknown>(endpointCount).fill(undefined);
    this.#lastAtMs = new Array<number>(endpointCount).fill(Number.NEGATIVE_INFINITY);
  }

  /** True when the head `raw` observed at `nowMs` on endpoint `index` is to be told (and notes it as told). */
  due(index: number, raw: unknown, nowMs: number, verdictChanged = false): boolean {
    const since = nowMs - this.#lastAtMs[index]!;
    if (!verdictChanged && (since < HEAD_TELL_MOVED_MS || (since < HEAD_TELL_UNMOVED_MS && raw === this.#lastRaw[index]))) return false;
    this.#lastRaw[index] = raw;
    this.#lastAtMs[index] = nowMs;
    return true;
  }
}
