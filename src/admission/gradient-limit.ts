/**
 * The learned concurrency of a `maxConcurrentRequests: 'auto'` endpoint (issue 30 §1),
 * after Netflix's Gradient2 (REFERENCE "Adaptive limits"): the limit follows the ratio of the
 * endpoint's long-run latency to its latency now. A provider that throttles by delay — it
 * queues what it cannot serve instead of refusing it — shows it in latency before it shows it
 * anywhere else: the short average rises above the long one, the gradient drops below 1 and
 * the limit with it. While latency holds, the limit grows by a small queue allowance per
 * answer, but only while demand presses on it (half the permits in use at least: an
 * endpoint used lightly learns no higher limit; rising latency lowers it at any load). Pure arithmetic over samples.
 */

/** Bounds and start of a learned concurrency, in requests in flight. */
export interface GradientLimitSettings {
  readonly min: number;
  readonly max: number;
  readonly start: number;
}

/** Defaults: Netflix starts at 20; the floor keeps a slow node in use, the ceiling bounds sockets. */
export const DEFAULT_GRADIENT_LIMIT: GradientLimitSettings = { min: 4, max: 500, start: 20 };
/** How far latency may rise over its long-run average before the limit drops (Gradient2's 1.5). */
export const RTT_TOLERANCE = 1.5;
/** Share of each new estimate taken into the limit (Gradient2's smoothing). */
export const SMOOTHING = 0.2;
/** Requests the limit allows above what the gradient keeps: its room to grow (Gradient2's queue size). */
export const QUEUE_ALLOWANCE = 4;
/** Samples in the short and the long latency average. */
export const SHORT_SAMPLES = 10;
export const LONG_SAMPLES = 600;
/** When the long average is this many times the short one, it was learned in a slow spell: it decays toward now. */
const LONG_RECOVERY_RATIO = 2;

export class GradientLimit {
  readonly settings: GradientLimitSettings;
  /** The limit, fractional (admission uses its floor). */
  private estimate: number;
  private shortMs = 0;
  private longMs = 0;
  private samples = 0;

  constructor(settings: GradientLimitSettings) {
    this.settings = settings;
    this.estimate = settings.start;
  }

  /** Requests in flight admission allows now. */
  get limit(): number {
    return Math.floor(this.estimate);
  }

  /** An answer took `latencyMs` while `inFlight` requests (this one included) were out; returns the new limit. */
  onSample(latencyMs: number, inFlight: number): number {
    if (!(latencyMs >= 0)) return this.limit;
    this.samples++;
    const short = Math.min(this.samples, SHORT_SAMPLES);
    const long = Math.min(this.samples, LONG_SAMPLES);
    this.shortMs += (latencyMs - this.shortMs) / short;
    this.longMs += (latencyMs - this.longMs) / long;
    if (this.longMs > LONG_RECOVERY_RATIO * this.shortMs) this.longMs *= 0.95;
    if (this.shortMs <= 0) return this.limit;
    const gradient = Math.max(0.5, Math.min(1, (RTT_TOLERANCE * this.longMs) / this.shortMs));
    // App-limited: with fewer than half the permits in use, holding latency says nothing of the limit (a rising one still lowers it).
    if (gradient === 1 && inFlight * 2 < this.estimate) return this.limit;
    const next = this.estimate * gradient + QUEUE_ALLOWANCE;
    const smoothed = this.estimate * (1 - SMOOTHING) + next * SMOOTHING;
    this.estimate = Math.min(this.settings.max, Math.max(this.settings.min, smoothed));
    return this.limit;
  }
}
