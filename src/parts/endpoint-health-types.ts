/** Endpoint health's types and its one constant, below both `endpoint-health.ts` and its probes. */
import type { RoleState } from '../admission/role-state.js';
import type { HeadQuantity } from '../health/config.js';
import type { ClassifiedOutcome } from '../http/outcome.js';
import type { RequestKind } from '../retry/causes.js';
import type { ChainCheck } from './chain-guard.js';

/**
 * A lagging endpoint is judged back only against a tip seen at most this long before its own
 * head (2 s ≈ 5 Solana slots); its probe takes the tip's endpoint along when the tip is older.
 */
export const MAX_TIP_AGE_MS = 2_000;

/** How one endpoint stands, as `snapshot()` shows it. */
export type EndpointHealthState = 'fresh' | 'lagging' | 'out-of-rotation' | 'unknown';

/** An endpoint's last observed head, as `snapshot()` shows it. */
export interface EndpointHeadView {
  /** The head (Solana slot or EVM block number). */
  readonly value: bigint;
  /** How far behind the reference tip it was when observed; undefined before any tip was known. */
  readonly lag: bigint | undefined;
  readonly observedAgoMs: number;
}

/** What the wiring needs from the pool. */
export interface EndpointHealthHost {
  /** Sends one probe through `role` (outside admission, under its `requestTimeoutMs`). */
  ask(role: RoleState, check: Pick<ChainCheck, 'method' | 'body'>): Promise<{ readonly outcome: ClassifiedOutcome; readonly latencyMs: number }>;
  /** Calls waiting for `kind`. */
  waiting(kind: RequestKind): number;
  /** An endpoint came back (lag over, readmitted): waiting calls look again. */
  wake(): void;
  closed(): boolean;
}

export interface Probe {
  quantity: HeadQuantity;
}

/** Where local head observations go besides the head book (fleet mode tells them to the other processes). */
export type HeadSink = (index: number, quantity: HeadQuantity, raw: number | bigint | string, nowMs: number, verdictChanged: boolean) => void;
