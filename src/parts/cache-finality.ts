/**
 * Where each endpoint's finality stands, as the read cache knows it (docs/reads.md "Read cache",
 * "Finalized means proven"): an endpoint's finalized head is what it answered when asked with
 * the `finalized` tag — the caller's own reads, or (`probeFinality`) the cache's question once
 * an unproven by-number read comes back to a block, at most once per endpoint every 12 s.
 */
import { blockIdentityOf } from '../cache/answer-class.js';
import type { Clock } from '../clock.js';

/** At most one finalized-head question per endpoint this often, in ms: finality moves per epoch, not per call. */
export const FINALITY_REFRESH_MS = 12_000;
/** Blocks of unproven reads remembered (oldest out). */
const MAX_UNPROVEN = 1_024;

export class CacheFinality {
  readonly #heads = new Map<string, number>();
  readonly #askedAtMs = new Map<string, number>();
  readonly #unproven = new Set<number>();
  readonly #clock: Clock;
  /** Asks the endpoint for its `finalized` block; undefined: the cache sends nothing of its own. */
  readonly #ask: ((endpointId: string) => Promise<unknown>) | undefined;

  constructor(clock: Clock, ask: ((endpointId: string) => Promise<unknown>) | undefined) {
    this.#clock = clock;
    this.#ask = ask;
  }

  /** The endpoint's finalized head; undefined when it never said. */
  headOf(endpointId: string): number | undefined {
    return this.#heads.get(endpointId);
  }

  /** The lowest finalized head any endpoint reported (-1 when none did): no reorg reaches at or below it. */
  floor(): number {
    let floor = Number.POSITIVE_INFINITY;
    for (const head of this.#heads.values()) floor = Math.min(floor, head);
    return floor === Number.POSITIVE_INFINITY ? -1 : floor;
  }

  /** The highest finalized head any endpoint reported (-1 when none did). */
  ceiling(): number {
    let ceiling = -1;
    for (const head of this.#heads.values()) ceiling = Math.max(ceiling, head);
    return ceiling;
  }

  /** An endpoint's answer to a `finalized` block read. Finality never goes back: an older answer arriving late changes nothing. */
  learn(endpointId: string, block: unknown): void {
    const identity = blockIdentityOf(block);
    if (identity !== undefined && identity.number > (this.#heads.get(endpointId) ?? -1)) this.#heads.set(endpointId, identity.number);
  }

  /**
   * A by-number answer not yet proven final. Only reads that come back to a block (the same
   * read again, or its receipts after its logs) are worth proving, so a pool whose reads never
   * do sends nothing of its own.
   */
  unproven(endpointId: string, number: number): void {
    if (!this.#unproven.has(number)) {
      this.#unproven.add(number);
      if (this.#unproven.size > MAX_UNPROVEN) this.#unproven.delete(this.#unproven.keys().next().value!);
      return;
    }
    if (this.#ask === undefined || (this.#heads.get(endpointId) ?? -1) >= number) return;
    const now = this.#clock.now();
    const askedAt = this.#askedAtMs.get(endpointId);
    if (askedAt !== undefined && now - askedAt < FINALITY_REFRESH_MS) return;
    this.#askedAtMs.set(endpointId, now);
    this.#ask(endpointId).then(
      (block) => this.learn(endpointId, block),
      () => undefined,
    );
  }
}
