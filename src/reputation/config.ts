/**
 * Reputation and host-breaker settings. Every constant of the PATH-gateway
 * model is configurable; `reputationConfigSchema.parse({})` yields the defaults. The pool
 * accepts `reputation: false` to switch the whole system off — that switch lives in the
 * pool's schema, not here.
 */
import * as z from 'zod/mini';

// zod 4 numbers are finite already (classic zod's `.finite()` was a no-op).
const ms = () => z.number().check(z.nonnegative());
const positiveMs = () => z.number().check(z.positive());
const score = () => z.number().check(z.minimum(0), z.maximum(100));
const rate = () => z.number().check(z.positive(), z.maximum(1));
const count = () => z.number().check(z.int(), z.nonnegative());
const finite = () => z.number();

/** Latency thresholds of one chain profile, in ms. Each must be ≥ the one before. */
export const latencyThresholdsSchema = z.object({
  /** A success at or under this latency earns `multipliers.fast`. */
  fastMs: ms(),
  /** At or under this (and above `fastMs`): `multipliers.normal`. */
  normalMs: ms(),
  /** At or under this (and above `normalMs`): `multipliers.slow`; above it: `multipliers.beyondSlow`. */
  slowMs: ms(),
  /** A success above this also counts as a `slow` signal. */
  penaltyMs: ms(),
  /** A success above this counts as a `very-slow` signal instead. */
  severeMs: ms(),
});
export type LatencyThresholds = z.output<typeof latencyThresholdsSchema>;

/** Built-in chain profiles. `generic` is the PATH gateway's global default. */
export const LATENCY_PROFILES = {
  solana: { fastMs: 100, normalMs: 300, slowMs: 800, penaltyMs: 1_500, severeMs: 4_000 },
  evm: { fastMs: 50, normalMs: 200, slowMs: 500, penaltyMs: 1_000, severeMs: 3_000 },
  generic: { fastMs: 100, normalMs: 500, slowMs: 1_000, penaltyMs: 2_000, severeMs: 5_000 },
} as const satisfies Record<string, LatencyThresholds>;
export type LatencyProfileName = keyof typeof LATENCY_PROFILES;

const rateDetectorShape = (d: { alpha: number; threshold: number; minObservations: number }) =>
  z.object({
    /** EWMA smoothing factor per observation (memory ≈ 1/alpha observations). */
    alpha: z._default(rate(), d.alpha),
    /** The EWMA at or above which the detector trips (0..1). */
    threshold: z._default(rate(), d.threshold),
    /** Observations since the last trip (or since creation) before the detector may trip. */
    minObservations: z._default(count(), d.minObservations),
    /** Cooldown per escalation step: the n-th consecutive trip benches for n × this. @default 600_000 (10 min) */
    cooldownStepMs: z._default(positiveMs(), 600_000),
    /** Cap on one cooldown. @default 3_600_000 (1 h) */
    maxCooldownMs: z._default(positiveMs(), 3_600_000),
    /**
     * A trip is "consecutive" (escalates) when it lands less than this long after the end of
     * this detector's own previous cooldown; otherwise the count restarts at 1.
     * @default 3_600_000 (1 h)
     */
    escalationResetMs: z._default(positiveMs(), 3_600_000),
  });

export const reputationConfigSchema = z
  .object({
    /**
     * What one score belongs to: `per-url` (endpoints with the same URL share a score),
     * `per-endpoint` (each configured endpoint), `per-domain` (the registrable domain).
     * @default 'per-url'
     */
    granularity: z._default(z.enum(['per-url', 'per-endpoint', 'per-domain']), 'per-url'),
    /** Score of a key never seen, and the target of time-based recovery. @default 80 */
    initialScore: z._default(score(), 80),
    /** Minimum score to be eligible for traffic. @default 30 */
    eligibleScore: z._default(score(), 30),
    /** Band thresholds used for admission order (`good` ≥ 70, `fair` ≥ 50, `poor` ≥ `eligibleScore`). */
    bands: z.prefault(
      z.object({
        /** @default 70 */
        good: z._default(score(), 70),
        /** @default 50 */
        fair: z._default(score(), 50),
      }),
      {},
    ),
    /**
     * After this long without any signal, a score below `initialScore` reads as
     * `initialScore` again. `0` disables time-based recovery. @default 300_000 (5 min)
     */
    recoveryTimeoutMs: z._default(ms(), 300_000),
    /** Score change per signal, before the latency multiplier (success only). */
    impacts: z.prefault(
      z.object({
        /** @default 1 */ success: z._default(finite(), 1),
        /** @default 5 */ recovery: z._default(finite(), 5),
        /** @default -1 */ slow: z._default(finite(), -1),
        /** @default -3 */ verySlow: z._default(finite(), -3),
        /** @default -3 */ minor: z._default(finite(), -3),
        /** @default -10 */ major: z._default(finite(), -10),
        /** @default -25 */ critical: z._default(finite(), -25),
        /** @default -50 */ fatal: z._default(finite(), -50),
      }),
      {},
    ),
    /** How a success's latency scales its impact. */
    latency: z.prefault(
      z.object({
        /** A built-in chain profile or custom thresholds. @default 'generic' */
        profile: z._default(z.union([z.enum(['solana', 'evm', 'generic']), latencyThresholdsSchema]), 'generic'),
        /** Multipliers of the success impact per latency class. */
        multipliers: z.prefault(
          z.object({
            /** @default 2 */ fast: z._default(z.number().check(z.nonnegative()), 2),
            /** @default 1 */ normal: z._default(z.number().check(z.nonnegative()), 1),
            /** @default 0.5 */ slow: z._default(z.number().check(z.nonnegative()), 0.5),
            /** @default 0 */ beyondSlow: z._default(z.number().check(z.nonnegative()), 0),
          }),
          {},
        ),
      }),
      {},
    ),
    /** Consecutive-strike detector: critical/fatal add a strike, positive signals remove some. */
    strikes: z.prefault(
      z.object({
        /** Strikes at which the cooldown starts. @default 5 */
        threshold: z._default(z.number().check(z.int(), z.positive()), 5),
        /** Strikes removed by each positive signal (success or recovery), floor 0. @default 3 */
        decayPerPositive: z._default(count(), 3),
        /** Cooldown at `threshold` strikes; doubles per further strike. @default 300_000 (5 min) */
        baseCooldownMs: z._default(positiveMs(), 300_000),
        /** Cap on one strike cooldown. @default 3_600_000 (1 h) */
        maxCooldownMs: z._default(positiveMs(), 3_600_000),
      }),
      {},
    ),
    /**
     * Critical-rate detector: EWMA of "this signal was critical/fatal" over non-probe signals.
     * Defaults: alpha 0.05, threshold 0.30, minObservations 20.
     */
    criticalRate: z.prefault(rateDetectorShape({ alpha: 0.05, threshold: 0.3, minObservations: 20 }), {}),
    /**
     * Invalid-rate detector: EWMA of "this signal was a protocol violation" over non-probe
     * signals. Defaults: alpha 0.001, threshold 0.005, minObservations 200 (at 200 samples
     * from a zero start only a violation rate above ~2.7% can reach 0.005, so a short unlucky
     * burst cannot bench an endpoint; a steady 1% rate trips after ~700 samples).
     */
    invalidRate: z.prefault(rateDetectorShape({ alpha: 0.001, threshold: 0.005, minObservations: 200 }), {}),
  })
  .check(z.superRefine((c, ctx) => {
    if (c.bands.fair > c.bands.good) {
      ctx.addIssue({ code: 'custom', path: ['bands', 'fair'], message: 'must be ≤ bands.good' });
    }
    if (c.eligibleScore > c.bands.fair) {
      ctx.addIssue({ code: 'custom', path: ['eligibleScore'], message: 'must be ≤ bands.fair' });
    }
    if (typeof c.latency.profile === 'object') {
      const p = c.latency.profile;
      const order = ['fastMs', 'normalMs', 'slowMs', 'penaltyMs', 'severeMs'] as const;
      for (let i = 1; i < order.length; i++) {
        const prev = order[i - 1]!;
        const name = order[i]!;
        if (p[name] < p[prev]) {
          ctx.addIssue({ code: 'custom', path: ['latency', 'profile', name], message: `must be ≥ ${prev}` });
        }
      }
    }
  }));

/** Reputation settings as written by the user (every field optional). */
export type ReputationOptions = z.input<typeof reputationConfigSchema>;
/** Reputation settings with every default filled in. */
export type ReputationConfig = z.output<typeof reputationConfigSchema>;
export type ReputationGranularity = ReputationConfig['granularity'];
export type RateDetectorConfig = ReputationConfig['criticalRate'];
export type StrikeConfig = ReputationConfig['strikes'];

/** Host circuit breaker settings (one breaker per host and port, or per `operator` when set). */
export const hostBreakerConfigSchema = z.object({
  /** Length of one tumbling window (aligned to multiples of it). @default 30_000 (30 s) */
  windowMs: z._default(positiveMs(), 30_000),
  /** Failures needed in one window before the breaker may open. @default 5 */
  minFailures: z._default(z.number().check(z.int(), z.positive()), 5),
  /** Failure rate (failures / all outcomes in the window) at which it opens. @default 0.2 */
  failureRate: z._default(rate(), 0.2),
  /**
   * Added to `failureRate` for a host readmitted less than `memoryMs` ago, so a host that
   * just came back is not re-broken by the same marginal rate. @default 0.15 (→ 0.35)
   */
  hysteresis: z._default(z.number().check(z.nonnegative()), 0.15),
  /** How long an open is remembered for hysteresis and escalation, from its end. @default 3_600_000 (1 h) */
  memoryMs: z._default(positiveMs(), 3_600_000),
  /** First open lasts this long; each repeat within `memoryMs` doubles it. @default 60_000 (1 min) */
  baseOpenMs: z._default(positiveMs(), 60_000),
  /** Cap on one open. @default 1_800_000 (30 min) */
  maxOpenMs: z._default(positiveMs(), 1_800_000),
});

/** Host-breaker settings as written by the user (every field optional). */
export type HostBreakerOptions = z.input<typeof hostBreakerConfigSchema>;
/** Host-breaker settings with every default filled in. */
export type HostBreakerConfig = z.output<typeof hostBreakerConfigSchema>;

/** Resolves the latency thresholds of a configured profile. */
export function latencyThresholdsOf(config: ReputationConfig): LatencyThresholds {
  const p = config.latency.profile;
  return typeof p === 'string' ? LATENCY_PROFILES[p] : p;
}
