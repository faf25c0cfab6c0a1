/**
 * Peak-EWMA latency of one endpoint role (after Finagle's and Linkerd's balancers): a
 * sample above the estimate replaces it at once (a node that turns slow is noticed on its
 * first slow answer); samples below pull it down exponentially, with `decayMs` as the time
 * constant. With no traffic the estimate relaxes toward a baseline (the pool's median), so
 * an endpoint that was slow is tried again after a while instead of being shunned forever.
 * Before its first sample an endpoint is assumed fast (Finagle's start), so it gets measured.
 * Pure arithmetic over caller-supplied instants.
 */
export class PeakEwma {
  readonly decayMs: number;
  #valueMs = 0;
  #stampMs = 0;
  #samples = 0;

  constructor(decayMs: number) {
    this.decayMs = decayMs;
  }

  /** Latency samples seen so far. */
  get samples(): number {
    return this.#samples;
  }

  /** An answer that took `latencyMs`. */
  observe(latencyMs: number, nowMs: number): void {
    if (this.#samples === 0 || latencyMs >= this.#valueMs) {
      this.#valueMs = latencyMs;
    } else {
      const keep = Math.exp(-Math.max(0, nowMs - this.#stampMs) / this.decayMs);
      this.#valueMs = this.#valueMs * keep + latencyMs * (1 - keep);
    }
    this.#stampMs = nowMs;
    this.#samples++;
  }

  /** An attempt cancelled after `elapsedMs` (a hedge's loser, a timeout): the latency is at least that. */
  observeAtLeast(elapsedMs: number, nowMs: number): void {
    if (this.#samples > 0 && elapsedMs <= this.#valueMs) return;
    this.#valueMs = elapsedMs;
    this.#stampMs = nowMs;
    this.#samples++;
  }

  /**
   * The estimate at `nowMs`, relaxed toward `baselineMs` for the time since the last sample.
   * 0 before any sample: an endpoint never measured is tried first, and so measured.
   */
  estimate(nowMs: number, baselineMs: number): number {
    if (this.#samples === 0) return 0;
    const keep = Math.exp(-Math.max(0, nowMs - this.#stampMs) / this.decayMs);
    return baselineMs + (this.#valueMs - baselineMs) * keep;
  }
}
