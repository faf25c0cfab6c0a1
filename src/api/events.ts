import type { DispatchState, FailureCause, RequestKind } from '../retry/causes.js';
import type { SubscriptionEvent } from '../subscriptions/types.js';
import type { LearnedRateReason } from '../admission/learned-rate.js';

/** What every event carries. */
export interface EventBase {
  /** Monotonic time of the event, in ms (the pool's clock). */
  readonly atMs: number;
}

/** What every event about one attempt of a call carries. */
export interface CallEventBase extends EventBase {
  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly method: string;
  /** 1 for the first attempt of the call. */
  readonly attempt: number;
}

export type AttemptEvent = CallEventBase;
export interface SuccessEvent extends CallEventBase {
  readonly latencyMs: number;
}
export interface FailureEvent extends CallEventBase {
  readonly cause: FailureCause;
  readonly dispatch: DispatchState;
  readonly status: number | undefined;
  readonly rpcCode: number | undefined;
  readonly latencyMs: number;
  /** Short, secret-free description (`http-502`, `html-body`, `id-mismatch`, `integrity`, …). */
  readonly detail: string;
  /** With detail `integrity`: the check the answer failed (`block-number`, `log-topics`, …). */
  readonly check?: string;
}
export interface RateLimitedEvent extends EventBase {
  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly providerDelayMs: number | undefined;
  readonly cooldownMs: number;
}
/** A `requestsPerSecond: 'auto'` role's learned rate moved. */
export interface RateLearnedEvent extends EventBase {
  readonly endpointId: string;
  readonly kind: RequestKind;
  /** Requests per second before and after; `fromRps` is `Infinity` when a role with no limit starts learning (its first rate limit). */
  readonly fromRps: number;
  readonly toRps: number;
  readonly reason: LearnedRateReason;
}
/** A `maxConcurrentRequests: 'auto'` endpoint's learned concurrency moved (at most one event a second per endpoint). */
export interface ConcurrencyLearnedEvent extends EventBase {
  readonly endpointId: string;
  /** Requests in flight allowed before (as last reported) and now. */
  readonly fromLimit: number;
  readonly toLimit: number;
}
/** An endpoint's spend of its plan's monthly credits (`plan.creditsPerMonth`) crossed 80 %, 95 % or 100 %. */
export interface CreditBudgetEvent extends EventBase {
  readonly endpointId: string;
  /** The share of the month's credits now spent: 0.8, 0.95 or 1. */
  readonly threshold: 0.8 | 0.95 | 1;
  readonly spentCredits: number;
  readonly creditsPerMonth: number;
  /** True at 1 with `onExhausted: 'refuse'`: nothing more goes to the endpoint this month. */
  readonly refusing: boolean;
}
export interface CooldownEvent extends EventBase {
  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly phase: 'start' | 'end';
  /** For `start`: how long the role is paused. */
  readonly durationMs?: number;
}
export interface BreakerEvent extends EventBase {
  /** Endpoints on the affected host (the hostname itself may hide a key, so it is never shown). */
  readonly endpointIds: readonly string[];
  readonly operator: string;
  readonly state: 'open' | 'closed';
  /** For `open`: how long the host stays broken. */
  readonly openForMs?: number;
}
export interface ReshapeEvent extends EventBase {
  readonly kind: RequestKind;
  readonly tier: number;
  readonly maxOperatorShare: number;
  /** False when the cap cannot be met (cap × operators ≤ 1): operators are then weighted uniformly. */
  readonly feasible: boolean;
  readonly operators: readonly { readonly operator: string; readonly members: number; readonly naturalShare: number; readonly cappedShare: number }[];
}
export interface ReputationEvent extends EventBase {
  readonly endpointId: string;
  readonly change: 'band' | 'cooldown-start' | 'cooldown-end';
  readonly score: number;
  readonly band: string;
  readonly detector?: string;
  readonly cooldownMs?: number;
}

export interface ChainEvent extends EventBase {
  readonly endpointId: string;
  /**
   * `verified`: every `expectedChain` check matched, the endpoint admits calls;
   * `wrong-chain`: excluded for good; `check-failed`: no answer to judge (it is asked again).
   */
  readonly status: 'verified' | 'wrong-chain' | 'check-failed';
  /** For `wrong-chain`: the check that told, and the endpoint's normalized answer (a chain id or a hash). */
  readonly method?: string;
  readonly reported?: string;
  /** For `check-failed`: what went wrong (`attempt-timeout`, `http-502`, `chain-check-invalid`, …) and when it is asked again. */
  readonly detail?: string;
  readonly retryInMs?: number;
}

export interface ReconcileEvent extends EventBase {
  /** The endpoint the ambiguous send went to last. */
  readonly endpointId: string;
  readonly method: string;
  /** True when a lookup found the transaction: the call resolved with its id. */
  readonly found: boolean;
  readonly lookups: number;
}

/** A hedged read: `started` (a second attempt went to `hedgeEndpointId`), `won` (the hedge answered first), `lost` (the first attempt did; the hedge was cancelled). */
export interface HedgeEvent extends EventBase {
  readonly kind: RequestKind;
  readonly method: string;
  /** The first attempt's endpoint. */
  readonly endpointId: string;
  readonly hedgeEndpointId: string;
  readonly phase: 'started' | 'won' | 'lost';
  /** The wait before the hedge, in ms. */
  readonly delayMs: number;
}

/** An endpoint started (`lagging`) or stopped (`fresh`) lagging the reference tip by more than the sync allowance. */
export interface HeadEvent extends EventBase {
  readonly endpointId: string;
  readonly state: 'lagging' | 'fresh';
  /** What the heads count: Solana slots or EVM blocks. */
  readonly quantity: 'slot' | 'block';
  /** The endpoint's head, the reference tip and how far behind it is (0 when at or past it). */
  readonly head: bigint;
  readonly tip: bigint;
  readonly lag: bigint;
  /** The sync allowance in force, in slots or blocks (a lagging endpoint is back within half of it). */
  readonly syncAllowance: number;
}

/** One probe of the bench loop (`health`): sent once per backend for every endpoint entry sharing it. */
export interface ProbeEvent extends EventBase {
  /** The endpoint the probe went through. */
  readonly endpointId: string;
  /** Every endpoint entry sharing the probed backend (the outcome counts for each). */
  readonly endpointIds: readonly string[];
  readonly method: string;
  /**
   * Why it was probed: out of rotation (benched, broken host), lagging, holding the reference
   * tip, its head aged (the tip moved on by more than the allowance since it was judged), or `probeAll`.
   */
  readonly reason: 'out-of-rotation' | 'lagging' | 'reference' | 'aged' | 'all';
  /** `skipped`: no token to spare, a call waiting, or no free permit, or (fleet mode) another process observed its head recently; nothing was sent. */
  readonly outcome: 'ok' | 'failed' | 'skipped';
  readonly latencyMs?: number;
  /** The head the answer gave. */
  readonly head?: bigint;
  /** For `failed`: what went wrong (`connection-refused`, `http-502`, …). */
  readonly detail?: string;
  /** Good probes in a row so far (two readmit an endpoint benched by reputation or a broken host). */
  readonly goodInARow?: number;
  /** True when this probe readmitted the endpoints. */
  readonly readmitted?: boolean;
}
/**
 * Fleet mode (`fleet` option). `mode`: the process went `local` (Redis unreachable, a command
 * timed out or failed: it now keeps its share of each quota) or back to `shared`.
 * `adopted`: a fact from another process took effect here — a rate-limit `cooldown`, a
 * reputation `bench`, a `breaker` open or a `chain` verdict — on these endpoints.
 */
export type FleetEvent = EventBase &
  (
    | {
        readonly type: 'mode';
        readonly mode: 'shared' | 'local';
        /** `started`, `recovered`, `unreachable`, `timeout`, `auth`, `refused`, `error` or `closed` (`FleetStatus.reason`). */
        readonly reason: string;
        /** Members assumed (the local share is each quota ÷ this): the most seen recently, never fewer when uncertain. */
        readonly members: number;
      }
    | {
        readonly type: 'adopted';
        /** `head`: an adopted head changed a lag verdict (heads that change none are adopted silently). */
        readonly topic: 'cooldown' | 'bench' | 'breaker' | 'chain' | 'head';
        readonly endpointIds: readonly string[];
        /** How long the fact still holds, in ms. */
        readonly remainingMs: number;
      }
  );

/** The read cache dropped the unfinalized entries a reorg may have undone (docs/reads.md "Read cache"). */
export interface CacheEvent extends EventBase {
  readonly type: 'reorg-eviction';
  /** The block at which another hash was seen. */
  readonly forkAt: number;
  /** Entries depending on this block or a later one were dropped (at most the lowest finalized head reported + 1). */
  readonly fromBlock: number;
  readonly dropped: number;
}

/**
 * A consensus read whose answers disagreed (docs/reads.md "Consensus reads"): `resolved` when enough
 * operators still agreed (the others were struck), `failed` when not (`CONSENSUS_FAILED`).
 * `answers` names which endpoint gave which answer class (`a`, `b`, …), never a value.
 */
export interface ConsensusEvent extends EventBase {
  readonly method: string;
  readonly kind: RequestKind;
  readonly outcome: 'resolved' | 'failed';
  readonly answers: readonly { readonly endpointId: string; readonly answerClass: string }[];
  /** The endpoints struck (outside the agreeing answers); empty when the call failed. */
  readonly outliers: readonly string[];
}

export interface PoolEventMap {
  attempt: AttemptEvent;
  success: SuccessEvent;
  failure: FailureEvent;
  'rate-limited': RateLimitedEvent;
  'rate-learned': RateLearnedEvent;
  'credit-budget': CreditBudgetEvent;
  'concurrency-learned': ConcurrencyLearnedEvent;
  cooldown: CooldownEvent;
  breaker: BreakerEvent;
  reshape: ReshapeEvent;
  reputation: ReputationEvent;
  chain: ChainEvent;
  reconcile: ReconcileEvent;
  hedge: HedgeEvent;
  head: HeadEvent;
  probe: ProbeEvent;
  subscription: SubscriptionEvent;
  fleet: FleetEvent;
  cache: CacheEvent;
  consensus: ConsensusEvent;
}

export type PoolEventName = keyof PoolEventMap;
export type PoolEventListener<E extends PoolEventName> = (event: PoolEventMap[E]) => void;

/**
 * A tiny typed emitter. Listener exceptions are swallowed: a broken metrics hook must never
 * fail a call or corrupt pool state (and the library never writes to the console).
 */
export class PoolEvents {
  private readonly listeners = new Map<PoolEventName, Set<(event: never) => void>>();

  on<E extends PoolEventName>(name: E, listener: PoolEventListener<E>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    return () => {
      set.delete(listener as (event: never) => void);
    };
  }

  /** True when someone listens: lets hot paths skip building event objects. */
  has(name: PoolEventName): boolean {
    const set = this.listeners.get(name);
    return set !== undefined && set.size > 0;
  }

  emit<E extends PoolEventName>(name: E, event: PoolEventMap[E]): void {
    const set = this.listeners.get(name);
    if (!set || set.size === 0) return;
    for (const listener of [...set]) {
      try {
        (listener as PoolEventListener<E>)(event);
      } catch {
        // Deliberately ignored; see the class comment.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
