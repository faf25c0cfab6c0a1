/**
 * Peak-EWMA latency of one endpoint (after Finagle's and Linkerd's balancers): a sample
 * above the estimate replaces it at once (a node that turns slow is noticed on its first
 * slow answer); each sample below pulls it a tenth of the way down ({@link SAMPLE_WEIGHT}:
 * per answer, not per unit of time). With no traffic the estimate relaxes toward a baseline
 * (the pool's median), so an endpoint that was slow is tried again instead of being shunned
 * forever, with a time constant proportional to the endpoint's own latency scale
 * ({@link RELAX_LATENCIES} of it, at most `decayMs`; the scale is a plain EWMA of its answers,
 * which one hiccup moves only a tenth of the way): an old sample says little once the endpoint
 * could have answered many times since, so a scheduler's 50 ms hiccup on a 0.3 ms loopback
 * node is forgotten within milliseconds (a fixed 10 s starved it for the whole run: issue 27),
 * while a node that answers in 1.6 s stays out for the full `decayMs`. A lower bound (a timeout, a lost hedge race) says nothing of the
 * scale and always relaxes over `decayMs`.
 * Before its first sample an endpoint is assumed fast (Finagle's start), so it gets measured;
 * its first answer ({@link WARM_UP_ANSWERS}) paid the connection set-up (TCP and TLS
 * handshakes), which is not the node's latency: it counts as heard from but sets no estimate,
 * so the next answer, on the warm connection, is the first measurement.
 * Pure arithmetic over caller-supplied instants.
 */
/** How far one faster answer pulls the estimate toward itself. */
export const SAMPLE_WEIGHT = 0.1;
/** Answers of an endpoint that carry its connection set-up and so set no estimate. */
export const WARM_UP_ANSWERS = 1;
/** The idle relaxation's time constant, in multiples of the endpoint's latency scale (capped by `decayMs`). */
export const RELAX_LATENCIES = 1;

export class PeakEwma {
  readonly decayMs: number;
  #valueMs = 0;
  #stampMs = 0;
  #samples = 0;
  #answers = 0;
  /** Whether the value is a lower bound (a timeout, a lost race) rather than a measured answer. */
  #bound = false;
  /** The endpoint's latency scale: a plain EWMA of its answers, which one hiccup moves a tenth of the way only. */
  #scaleMs = 0;

  constructor(decayMs: number) {
    this.decayMs = decayMs;
  }

  /** Instant of the last sample (0 before any). */
  get lastSampleAtMs(): number {
    return this.#stampMs;
  }

  /** The estimate as last set by a sample, before any relaxation, in ms (0 before any sample). */
  get lastValueMs(): number {
    return this.#valueMs;
  }

  /** Latency samples seen so far. */
  get samples(): number {
    return this.#samples;
  }

  /** An answer that took `latencyMs`; the relaxation toward `baselineMs` since the last sample counts first. */
  observe(latencyMs: number, nowMs: number, baselineMs = 0): void {
    if (this.#answers < WARM_UP_ANSWERS && this.#samples === 0) {
      // The connection set-up's answer: heard from (no exploration due), nothing measured yet.
      this.#answers++;
      this.#stampMs = nowMs;
      return;
    }
    const current = this.estimate(nowMs, baselineMs);
    this.#bound = false;
    this.#scaleMs = this.#samples === 0 ? latencyMs : this.#scaleMs + (latencyMs - this.#scaleMs) * SAMPLE_WEIGHT;
    if (this.#samples === 0 || latencyMs >= current) this.#valueMs = latencyMs;
    else this.#valueMs = current + (latencyMs - current) * SAMPLE_WEIGHT;
    this.#stampMs = nowMs;
    this.#samples++;
  }

  /** An attempt cancelled after `elapsedMs` (a hedge's loser, a timeout): the latency is at least that. */
  observeAtLeast(elapsedMs: number, nowMs: number): void {
    if (this.#samples > 0 && elapsedMs <= this.#valueMs) return;
    this.#valueMs = elapsedMs;
    this.#bound = true;
    this.#stampMs = nowMs;
    this.#samples++;
  }

  /**
   * The estimate at `nowMs`, relaxed toward `baselineMs` for the time since the last sample.
   * 0 before any sample: an endpoint never measured is tried first, and so measured.
   */
  estimate(nowMs: number, baselineMs: number): number {
    if (this.#samples === 0) return 0;
    // A lower bound says nothing of the latency's scale: it relaxes at the full `decayMs`.
    const relaxMs = this.#bound ? this.decayMs : Math.min(this.decayMs, RELAX_LATENCIES * this.#scaleMs);
    const idleMs = Math.max(0, nowMs - this.#stampMs);
    if (idleMs === 0) return this.#valueMs;
    if (relaxMs <= 0) return baselineMs;
    const keep = Math.exp(-idleMs / relaxMs);
    return baselineMs + (this.#valueMs - baselineMs) * keep;
  }
}
