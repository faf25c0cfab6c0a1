/**
 * Peak-EWMA latency of one endpoint (after Finagle's and Linkerd's balancers): a sample
 * above the estimate replaces it at once (a node that turns slow is noticed on its first
 * slow answer); each sample below pulls it a tenth of the way down ({@link SAMPLE_WEIGHT}:
 * per answer, not per unit of time, so one slow connection set-up is forgotten within a few
 * dozen answers, however fast they come). With no traffic the estimate relaxes toward a
 * baseline (the pool's median) with `decayMs` as the time constant, so an endpoint that was
 * slow is tried again after a while instead of being shunned forever.
 * Before its first sample an endpoint is assumed fast (Finagle's start), so it gets measured.
 * Pure arithmetic over caller-supplied instants.
 */
/** How far one faster answer pulls the estimate toward itself. */
export const SAMPLE_WEIGHT = 0.1;

export class PeakEwma {
  readonly decayMs: number;
  #valueMs = 0;
  #stampMs = 0;
  #samples = 0;

  constructor(decayMs: number) {
    this.decayMs = decayMs;
  }

  /** Instant of the last sample (0 before any). */
  get lastSampleAtMs(): number {
    return this.#stampMs;
  }

  /** Latency samples seen so far. */
  get samples(): number {
    return this.#samples;
  }

  /** An answer that took `latencyMs`; the relaxation toward `baselineMs` since the last sample counts first. */
  observe(latencyMs: number, nowMs: number, baselineMs = 0): void {
    const current = this.estimate(nowMs, baselineMs);
    if (this.#samples === 0 || latencyMs >= current) this.#valueMs = latencyMs;
    else this.#valueMs = current + (latencyMs - current) * SAMPLE_WEIGHT;
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
