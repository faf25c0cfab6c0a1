/**
 * The `health` option: head tracking, the sync allowance, the bench loop of probes and
 * archival routing (docs/health.md "Endpoint health between calls"). Validated with zod at
 * construction; a bad value is `INVALID_CONFIG` naming the field.
 */
import * as z from 'zod/mini';

/** What a head counts: Solana slots, or EVM blocks. Kept apart: a block height is not a slot. */
export type HeadQuantity = 'slot' | 'block';

/** Settings of the `health` option (`false` turns off every active probe; passive head tracking stays). */
export interface HealthSettings {
  /**
   * How far behind the reference tip an endpoint may be and still count as fresh, in slots
   * (Solana) or blocks (EVM). Further behind: lagging, out of reads and sends until it is
   * back within half of it. Within it every endpoint is equal (no lock-in on the freshest).
   * @default 100 slots for Solana heads (eRPC's value, ≈ 40 s), 16 blocks for EVM heads (eRPC's value)
   */
  readonly syncAllowance?: number;
  /** Pause between two probes of one endpoint that is out of rotation, in ms (jittered ±10 %). @default 10000 */
  readonly probeIntervalMs?: number;
  /** Probe every endpoint, healthy ones too (a fresh head on idle endpoints). @default false */
  readonly probeAll?: boolean;
  /** Ask every verified endpoint the `expectedChain` questions again after this long, in ms (0 = never). @default 600000 */
  readonly chainRecheckMs?: number;
  /**
   * A read of state at a block this far below the reference tip (or at a block hash, or
   * `earliest`) is historical: it goes only to endpoints not known to be pruned. In blocks (EVM).
   * @default 128 (PATH's archival threshold; geth keeps the state of the last 128 blocks)
   */
  readonly historicalDepth?: number;
}

export interface ResolvedHealth {
  /** False with `health: false`: no probes, no chain re-checks. */
  readonly active: boolean;
  readonly allowance: Readonly<Record<HeadQuantity, number>>;
  readonly probeIntervalMs: number;
  readonly probeAll: boolean;
  readonly chainRecheckMs: number;
  readonly historicalDepth: number;
}

export const DEFAULT_SYNC_ALLOWANCE: Readonly<Record<HeadQuantity, number>> = { slot: 100, block: 16 };
export const DEFAULT_PROBE_INTERVAL_MS = 10_000;
export const DEFAULT_CHAIN_RECHECK_MS = 600_000;
export const DEFAULT_HISTORICAL_DEPTH = 128;

const positiveInt = () => z.number({ error: 'must be a number' }).check(z.int('must be an integer'), z.positive('must be > 0'));

export const healthSettingsSchema = z.strictObject({
  syncAllowance: z.optional(positiveInt()),
  probeIntervalMs: z.optional(z.number({ error: 'must be a number' }).check(z.minimum(50, 'must be >= 50'))),
  probeAll: z.optional(z.boolean({ error: 'must be a boolean' })),
  chainRecheckMs: z.optional(z.number({ error: 'must be a number' }).check(z.nonnegative('must be >= 0'))),
  historicalDepth: z.optional(positiveInt()),
});

/** Fills in the defaults (the value was validated by the pool's config schema). */
export function resolveHealth(option: false | HealthSettings | undefined): ResolvedHealth {
  const settings = option === false || option === undefined ? {} : option;
  const allowance = settings.syncAllowance;
  return {
    active: option !== false,
    allowance: allowance === undefined ? DEFAULT_SYNC_ALLOWANCE : { slot: allowance, block: allowance },
  probeIntervalMs: settings.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS,
  probeAll: settings.probeAll ?? false,
    chainRecheckMs: settings.chainRecheckMs ?? DEFAULT_CHAIN_RECHECK_MS,
  historicalDepth: settings.historicalDepth ?? DEFAULT_HISTORICAL_DEPTH,
  };
}
