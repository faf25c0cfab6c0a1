/**
 * Silent-socket decisions (pure). A socket can answer pings and still deliver nothing
 * (a stuck node, a proxy that keeps the TCP session): streams that must tick (slots, new
 * heads) declare their socket dead after `factor` × their expected interval of silence,
 * never less than `minMs`. Where a stream's interval is unknown (EVM heads), it is learned
 * from the stream: the mean gap between the last notifications, once three have arrived.
 */

export interface SilenceSettings {
  readonly factor: number;
  readonly minMs: number;
}

/** Smoothing of the learned interval: new gap weight. */
const LEARN_WEIGHT = 0.25;
/** Gaps observed before a learned interval is trusted. */
const LEARN_AFTER = 2;

/** Learns a stream's tick interval from arrival times. */
export class IntervalLearner {
  #lastAtMs: number | undefined;
  #meanMs = 0;
  #samples = 0;

  observe(atMs: number): void {
    const last = this.#lastAtMs;
    this.#lastAtMs = atMs;
    if (last === undefined) return;
    const gap = atMs - last;
    this.#meanMs = this.#samples === 0 ? gap : this.#meanMs + LEARN_WEIGHT * (gap - this.#meanMs);
    this.#samples++;
  }

  /** The learned interval, in ms, once enough gaps were seen. */
  get intervalMs(): number | undefined {
    return this.#samples >= LEARN_AFTER ? this.#meanMs : undefined;
  }
}

/** How long a ticking stream may stay silent, in ms (undefined: no interval known yet, no watchdog). */
export function allowedSilenceMs(expectedIntervalMs: number | undefined, settings: SilenceSettings): number | undefined {
  if (expectedIntervalMs === undefined) return undefined;
  return Math.max(settings.minMs, settings.factor * expectedIntervalMs);
}

/** The socket is dead when any ticking stream on it is past its allowed silence; the instant to look again otherwise. */
export function silenceVerdict(
  streams: Iterable<{ readonly lastTickMs: number; readonly allowedSilenceMs: number | undefined }>,
  nowMs: number,
): { readonly silent: true } | { readonly silent: false; readonly checkAtMs: number } {
  let checkAtMs = Number.POSITIVE_INFINITY;
  for (const stream of streams) {
    if (stream.allowedSilenceMs === undefined) continue;
    const deadline = stream.lastTickMs + stream.allowedSilenceMs;
    if (nowMs >= deadline) return { silent: true };
    checkAtMs = Math.min(checkAtMs, deadline);
  }
  return { silent: false, checkAtMs };
}
