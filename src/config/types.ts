import type { Clock, Random } from '../clock.js';
import type { ConsensusOptions } from '../consensus/types.js';
import type { CacheSettings } from '../cache/cache-settings.js';
import type { BalanceSettings } from '../balance/balance-settings.js';
import type { HedgeSettings } from '../balance/hedge-policy.js';
import type { HealthSettings } from '../health/config.js';
import type { PoolFleet } from '../fleet/types.js';
import type { HttpExecutor } from '../http/executor.js';
import type { PoolLogger } from '../logging/pool-logger.js';
import type { MicroBatchSettings } from '../batch/types.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import type { SubscriptionSettings } from '../subscriptions/types.js';
import type { CreditPlanOptions, LearnedConcurrencyOptions, LearnedRateOptions } from './quota-types.js';

export type { CreditPlanOptions, LearnedConcurrencyOptions, LearnedRateOptions } from './quota-types.js';

/** Admission settings of a role: one endpoint serving one request kind. */
export interface RoleSettings {
  /** Priority tier; 0 is the most preferred. Lower tiers are used only when higher ones cannot admit. @default 0 */
  readonly tier?: number;
  /**
   * Token-bucket refill rate. Unit: requests per second. No value means no rate limit until
   * the provider refuses the role without naming a delay: from then on it is learned.
   * `'auto'` (or `{ auto: { min, max, start } }`) learns it (docs/concepts.md "Learned rates"): lower
   * on each rate limit that names no delay, higher only while demand presses on the learned
   * rate; the provider's hints (`Retry-After`, `backoff_seconds`, Infura's `allowed_rps`)
   * win. The burst of an `'auto'` role is one second of its learned rate.
   * @default none (no rate limit until a rate limit without delay; then learned)
   */
  readonly requestsPerSecond?: number | 'auto' | { readonly auto: LearnedRateOptions };
  /** Token-bucket capacity (≥ 1); not with `requestsPerSecond: 'auto'`. @default one second of `requestsPerSecond` (at least 1) */
  readonly burstCapacity?: number;
  /** Concurrency permits. No value means unlimited. */
  readonly maxConcurrentRequests?: number;
  /** Time allowed for one attempt on this role, in ms (the call's deadline is the pool's `timeoutMs`). @default 10000 */
  readonly requestTimeoutMs?: number;
  /**
   * Minimum pause after a rate limit, in ms. The cooldown is
   * `max(pauseAfterRateLimitMs, min(providerDelayMs, 60000))`. @default 1000; 0 for a
   * `requestsPerSecond: 'auto'` role, whose learned rate answers a rate limit instead
   */
  readonly pauseAfterRateLimitMs?: number;
}

export interface EndpointConfig extends Omit<RoleSettings, 'maxConcurrentRequests'> {
  /**
   * Concurrency permits of the endpoint, shared by its roles (a role may set a lower
   * number). `'auto'` (or `{ auto: { min, max, start } }`) learns it from latency, after
   * Gradient2 (README "Learned concurrency"): lower when answers slow down past 1.5 times
   * their long-run average (a provider throttling by delay), higher only while at least
   * half the permits are in use. @default unlimited
   */
  readonly maxConcurrentRequests?: number | 'auto' | { readonly auto: LearnedConcurrencyOptions };
  /**
   * Stable name used in errors, events and snapshots. @default `<eTLD+1>-<index>` — never
   * derived from the full host or path, because providers put keys there.
   */
  readonly id?: string;
  /** The JSON-RPC URL. May contain keys: it never appears in errors, events or snapshots. */
  readonly url: string;
  /**
   * The WebSocket URL (`ws:`/`wss:`) for `pool.subscribe()`. As secret as `url`: it never
   * appears in errors, events or snapshots. Without it the endpoint takes no subscriptions,
   * unless `subscriptions.deriveWsUrl` is on. @default none
   */
  readonly wsUrl?: string;
  /** Extra request headers (e.g. an API key header). Values are never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Operator for the concentration cap. @default the URL's registrable domain (eTLD+1) */
  readonly operator?: string;
  /** Request kinds this endpoint serves. @default ['read', 'submit'] plus every kind named in `roles` */
  readonly kinds?: readonly RequestKind[];
  /** Per-kind overrides of the role settings, e.g. `{ submit: { requestsPerSecond: 5 } }`. */
  readonly roles?: Readonly<Record<string, RoleSettings>>;
  /**
   * Whether the pool's `expectedChain` check runs on this endpoint. Turn it off for an
   * endpoint that answers no reads (a send-only relay). @default true
   */
  readonly verifyChain?: boolean;
  /**
   * Whether this node keeps historical state (EVM) or the full ledger (Solana). Historical
   * reads go to endpoints known or declared archival and never to one declared `false`
   * (unless no other endpoint is left). Unset: learned from answers. @default undefined (learned)
   */
  readonly archival?: boolean;
  /**
   * Most calls in one JSON-RPC batch request to this endpoint (`pool.batch`, micro-batches);
   * larger batches are split. Providers cap it (some plans at 10 or 50). @default 100
   */
  readonly maxBatchSize?: number;
  /**
   * The provider plan this endpoint bills against (README "Credits and monthly budgets"):
   * admission counts each call's credits — the endpoint's own `cost` over the plan's `table`
   * — against `creditsPerSecond` and `creditsPerMonth`. @default none (calls are not priced)
   */
  readonly plan?: CreditPlanOptions;
  /**
   * Credits per method (`'*'`: any method not listed), over the provider's table, e.g.
   * `{ eth_getLogs: 75, eth_blockNumber: 10 }`. Needs `plan`. @default the provider's table, else 1 per call
   */
  readonly cost?: Readonly<Record<string, number>>;
}

/**
 * The chain every endpoint must be on. Before an endpoint's first call the pool asks it
 * (Solana: `getGenesisHash`; EVM: `eth_chainId`, and block 0's hash when `genesisHash` is
 * given); an endpoint on another chain is excluded for good.
 */
export interface ExpectedChain {
  /** Solana: base58 genesis hash (mainnet-beta `5eykt4Us…`). EVM: `0x` + 64 hex digits, the hash of block 0. */
  readonly genesisHash?: string;
  /** EVM chain id (`eth_chainId`), e.g. 1 for Ethereum mainnet. */
  readonly chainId?: number | bigint;
}

export interface RetrySettings {
  /** Retries after the first attempt. @default 3 */
  readonly maxRetries?: number;
  /** Lower bound of every backoff, in ms. @default 100 */
  readonly initialBackoffMs?: number;
  /** Upper bound of every backoff, in ms. @default 2000 */
  readonly maxBackoffMs?: number;
}

export interface ConcentrationSettings {
  /** Largest share of a tier's traffic any one operator may carry; 0 or ≥ 1 disables the cap. @default 0.65 */
  readonly maxOperatorShare?: number;
}

export type { MethodClassification } from '../jsonrpc/method-table.js';

/**
 * One entry of the pool's `methods` table: a classification (either field unset: the built-in
 * table's, else an unknown method's `read` / `never-after-dispatch`) and the consensus every
 * call of the method asks for (reads only; a call's own `consensus` wins).
 */
export interface MethodSettings {
  readonly kind?: RequestKind;
  readonly retryClass?: RetryClass;
  readonly consensus?: ConsensusOptions;
}

/** Integrity settings (`integrity` option). */
export interface IntegritySettings {
  /** How far below the reference tip an EVM block's hash is settled (no reorg replaces it), in blocks. @default 64 */
  readonly reorgWindowBlocks?: number;
}

/** `retryEmpty` as an object: per-method choices over the built-in table, and the pace. */
export interface RetryEmptySettings {
  /** `false` turns a method of the table off (`true` keeps it; methods outside the table have no proof to retry on). */
  readonly methods?: Readonly<Record<string, boolean>>;
  /** How long before asking again, in ms: about one block. @default 400 on Solana, 1000 otherwise */
  readonly blockTimeMs?: number;
}

export interface HttpTransportPoolOptions {
  readonly endpoints: readonly EndpointConfig[];
  readonly retry?: RetrySettings;
  readonly concentration?: ConcentrationSettings;
  /** Reputation settings (score 0–100, initial 80, eligible at ≥ 30; every constant has a default); `false` disables reputation and the host breaker. @default {} */
  readonly reputation?: false | Readonly<Record<string, unknown>>;
  /** Chain profile for latency scoring. @default 'generic' */
  readonly chain?: 'solana' | 'evm' | 'generic';
  /**
   * After a send ends ambiguous (it may have reached a node, so it is never sent again),
   * look its transaction up — Solana `getSignatureStatuses`, EVM `eth_getTransactionByHash`
   * — every `intervalMs` for at most `windowMs` (never past the call's deadline). Found:
   * the call resolves with the signature / hash, as the node would have answered. Not
   * found: `AMBIGUOUS_DISPATCH` as without it. `true` = `{ windowMs: 3000, intervalMs: 500 }`.
   * @default false
   */
  readonly reconcileSends?: boolean | { readonly windowMs?: number; readonly intervalMs?: number };
  /** Check each endpoint's chain before its first call; an endpoint on another chain is excluded. @default no check */
  readonly expectedChain?: ExpectedChain;
  /** Classify custom methods, or reclassify standard ones (unknown methods are `never-after-dispatch`); `consensus` per method. */
  readonly methods?: Readonly<Record<string, MethodSettings>>;
  /**
   * Latency-aware choice inside a tier and reputation band: of two admissible candidates in
   * rotation order, the one with the lower peak-EWMA latency × (in flight + 1) takes the call
   * when it is clearly cheaper. `false`: plain rotation. @default {}
   */
  readonly balance?: BalanceSettings | false;
  /**
   * Hedged reads: an idempotent read with no answer after the hedge delay is also sent to
   * another endpoint (another operator first); the first answer wins, the other attempt is
   * cancelled, no-fault. Hedges and retries share a budget of `budgetRatio` of calls. Sends,
   * unknown methods and filter polls are never hedged. `false`: no hedges and no retry
   * budget. @default { delayMs: 'auto', maxHedges: 1, budgetRatio: 0.1 }
   */
  readonly hedge?: HedgeSettings | false;
  /**
   * Endpoint health between calls: head tracking (always on), the sync allowance that takes
   * lagging endpoints out of reads and sends, the bench loop that probes endpoints out of
   * rotation, chain re-checks and archival routing. `false` turns off every active probe
   * and re-check; passive head tracking and lag exclusion stay.
   * @default { syncAllowance: 100 slots / 16 blocks, probeIntervalMs: 10000, probeAll: false, chainRecheckMs: 600000, historicalDepth: 128 }
   */
  readonly health?: HealthSettings | false;
  /**
   * Coalescing: identical idempotent reads in flight at the same moment (same method,
   * params, pin and `timeoutMs`, compared on the serialized body) share one request. Never
   * for sends, unknown methods or filter polls; a call's `coalesce: false` opts it out.
   * @default true
   */
  readonly coalesce?: boolean;
  /**
   * Sessions (README "Sessions"): an empty answer the session's floor proves wrong — `null`
   * for a receipt or transaction it saw included, for a block at or below its floor, for a
   * signature status it saw — is asked again (of an endpoint at or past where the data is, of
   * another operator first), once a block, inside the call's deadline, at no cost to the
   * node. Per method: `{ eth_getBlockByNumber: false }` turns one off; `false`, all.
   * `blockTimeMs` paces these and a read that waits for an endpoint to reach the floor.
   * @default true, every method of the table (eth_getTransactionReceipt, eth_getTransactionByHash, eth_getBlockByNumber, getTransaction, getSignatureStatuses); blockTimeMs: 400 on Solana, 1000 otherwise
   */
  readonly retryEmpty?: boolean | RetryEmptySettings;
  /**
   * Intrinsic integrity checks on every answer (no extra request): a receipt, transaction or
   * block about another hash or number than asked, logs outside the asked filter or out of
   * order, a Solana `getTransaction` without the asked signature, a context slot below the
   * `minContextSlot` sent, an `eth_chainId` / genesis hash off `expectedChain`. A failed check
   * is `invalid-response` (detail `integrity`, and the check's name), asked of another
   * endpoint and counted against the node; so is an EVM block whose hash contradicts the one
   * two operators gave for its number beyond `reorgWindowBlocks` below the tip. `false` turns
   * every check off.
   * @default true (reorgWindowBlocks: 64)
   */
  readonly integrity?: boolean | IntegritySettings;
  /**
   * The read cache (docs/reads.md "Read cache"): answers that cannot change — by hash, the chain id,
   * blocks, receipts and logs at or below the answering endpoint's finalized head, Solana
   * `getBlock`/`getTransaction` at `finalized` — are served from memory, bounded by
   * `maxBytes` (LRU). Unfinalized and realtime answers only with their TTL set. `false`
   * removes the stage. With `fleet`, finalized answers are shared through its store (`fleet: false` keeps them local).
   * @default { maxBytes: 33554432, maxEntries: 100000, maxEntryBytes: 1048576, ttl: { unfinalized: 0, realtime: 0 }, verify: 'none', fleet: { ttl: 3600000 } }
   */
  readonly cache?: CacheSettings | false;
  /**
   * Micro-batching: idempotent reads made within `waitMs` (`0`: the same tick) go as one
   * JSON-RPC batch of at most `maxSize` calls. Pinned calls and sends go alone. `false` or
   * unset: off. @default off
   */
  readonly batch?: MicroBatchSettings | false;
  /** Largest accepted response body, in bytes (decoded). @default 16777216 (16 MiB) */
  readonly maxResponseBytes?: number;
  /**
   * Default deadline of a call (all its attempts, waits and backoffs), in ms; a call's own
   * `timeoutMs` wins. `requestTimeoutMs` bounds each attempt only.
   * @default per kind: the largest `requestTimeoutMs` of the endpoints serving it plus the
   * smallest — room for one failover, whichever endpoint fails first (a call pinned to one
   * endpoint: that endpoint's `requestTimeoutMs`)
   */
  readonly timeoutMs?: number;
  /**
   * Where the pool logs its state changes — cooldowns, benches, breaker opens, chain
   * verdicts, ambiguous sends and their reconciliation — once per change, never once per
   * call, as `logger[level](fields, message)` (pino's shape; `console` works too). Fields
   * and messages name endpoints by id and operator only. @default none: the pool never logs
   */
  readonly logger?: PoolLogger;
  /** WebSocket subscriptions (`pool.subscribe()`): sockets, keep-alive, silence, rebind backoff, buffers. @default {} */
  readonly subscriptions?: SubscriptionSettings;
  /** How attempts reach endpoints. @default the undici executor */
  readonly executor?: HttpExecutor;
  /**
   * Fleet mode: share each role's RPS/burst quota, rate-limit cooldowns, reputation benches,
   * host-breaker opens and chain verdicts with other processes, e.g.
   * `createRedisFleet({ redis, namespace })` from `sturdy-rpc/fleet`. Calls spend tokens
   * leased ahead of need (no store round trip on most calls); when the store is out of reach
   * each process keeps quota ÷ live members. Concurrency permits stay per process.
   * @default none (this pool owns its quotas)
   */
  readonly fleet?: PoolFleet;
  /** Injected clock (tests pass `createFakeClock()`). @default the system clock */
  readonly clock?: Clock;
  /** Injected random source in [0, 1). @default Math.random */
  readonly random?: Random;
}
