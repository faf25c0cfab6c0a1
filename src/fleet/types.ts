/**
 * The fleet as the pool sees it: a types-only contract, so the core never imports Redis.
 * `createRedisFleet()` (`sturdy-rpc/fleet`) implements it over ioredis; a test or another
 * store can implement it too. Every key that crosses this interface is an opaque hash made
 * by the pool: no URL, host, header or API key ever reaches the fleet.
 */
import type { LearnedRateSettings } from '../admission/learned-rate.js';
import type { AdmissionBucket } from '../admission/token-bucket.js';
import type { Clock } from '../clock.js';

/**
 * What processes tell each other. `cooldown`: a role was rate limited; `bench`: reputation
 * benched an endpoint; `breaker`: a host breaker opened; `chain`: the chain guard's verdict on
 * an endpoint; `head`: an endpoint's head as one process observed it (`fleet/head-facts.ts`:
 * quantity, decimal head, its age carried by the TTL). A new topic goes here, to `TOPICS` in
 * `redis-backend.ts`, and gets a handler in `parts/fleet-wiring.ts`.
 */
export type FleetTopic = 'cooldown' | 'bench' | 'breaker' | 'chain' | 'head';

/** One shared fact: about which key, for how long from now, with a small JSON-safe payload. */
export interface FleetFact {
  readonly topic: FleetTopic;
  /** Opaque key made by the pool (a hash). */
  readonly key: string;
  /** How long the fact holds from the moment it is read, in ms (aged by the store's own clock, never by a process's). */
  readonly ttlMs: number;
  readonly data: Readonly<Record<string, string | number | boolean>>;
}

/** A role's shared token bucket. */
export interface FleetBucketSpec {
  /** Opaque key: the same endpoint URL and kind give the same key in every process. */
  readonly key: string;
  readonly requestsPerSecond: number;
  readonly burstCapacity: number;
  /** Set for a learned rate (`requestsPerSecond: 'auto'`): the fleet's one tuner sets the rate (`learned-lease.ts`). */
  readonly learned?: LearnedRateSettings | undefined;
}

/** `shared`: limits and knowledge go through the store; `local`: the store is out of reach, each process keeps its share. */
export type FleetMode = 'shared' | 'local';

export interface FleetStatus {
  readonly mode: FleetMode;
  /**
   * Members the local share divides each quota by: the most live members heartbeats counted over
   * the last two heartbeat periods, and at least the configured `expectedMembers` until a full
   * period of heartbeats has been answered (an uncertain count is taken as the larger fleet).
   */
  readonly members: number;
  /**
   * Why the mode last changed: `started`, `starting` (the client is not `ready` yet, within
   * `readyTimeoutMs` of creation: the local share meanwhile, not an outage), `ready` (shared
   * after starting), `recovered`, `unreachable` (the client is not connected), `timeout`, `auth` (NOAUTH, WRONGPASS, NOPERM), `refused` (Redis refuses writes:
   * OOM, READONLY, MISCONF), `error`, `closed`.
   */
  readonly reason: string;
}

/** What a pool hands the fleet when it joins. */
export interface FleetJoinOptions {
  /** The pool's clock: bucket instants are on it. */
  readonly clock: Clock;
  readonly buckets: readonly FleetBucketSpec[];
  /** Facts the pool wants recalled when it joins and after every outage. */
  readonly facts: readonly { readonly topic: FleetTopic; readonly key: string }[];
  /** A fact from another process (or recalled from the store). */
  onFact(fact: FleetFact): void;
  /** A bucket gained tokens or changed mode without a take (a lease arrived): admission must look again. */
  onTokens(bucketKey: string): void;
  /** The fleet's mode changed. */
  onStatus(status: FleetStatus): void;
}

/** What the store holds for a shared read: its text, or whether this member now fetches it (`claimed`), another does (`busy`), or it was just fetched and not kept (`pass`). */
export type StoredRead = { readonly text: string } | { readonly state: 'claimed' | 'busy' | 'pass' };

/**
 * The read cache's side of a fleet: final answers shared through the store, and a claim per
 * read so one member asks a node while the others wait for its answer. Keys are hashes made
 * by the pool. Bounded like every store command: `undefined` at once while the fleet is
 * local, or when the store errs or does not answer within `commandTimeoutMs`.
 */
export interface FleetReads {
  /** The stored text, or a claim held for `claimMs` (0: only look: `pass` when there is no text). */
  readOrClaim(key: string, claimMs: number): Promise<StoredRead | undefined>;
  /** Stores a final answer's text for `ttlMs` and frees this member's claim (best effort, never awaited by a call). */
  publish(key: string, text: string, ttlMs: number): void;
  /** Frees this member's claim: the answer was not final (best effort). */
  release(key: string): void;
}

/** A month's credit spend around one member's addition: the fleet's totals before and after it. */
export interface SpendTotals {
  readonly before: number;
  readonly after: number;
}

/** One pool's membership in a fleet. */
export interface FleetMembership {
  /**
   * The admission bucket of a role or of a credit plan (`plan.creditsPerSecond`): leased from
   * the shared bucket, or the local share. A plan's bucket spends credits — it has a
   * `capacity` and a `waitMs(nowMs, need)` (`CreditBucket`); one without them leaves the
   * plan's per-second credits per process. `late`: the spec of a bucket not declared when
   * the pool joined (a role with no configured rate that started learning one), declared now.
   */
  bucket(key: string, late?: FleetBucketSpec): AdmissionBucket;
  /** Tells the other processes (best effort, never awaited by a call). */
  share(fact: FleetFact): void;
  status(): FleetStatus;
  /**
   * Adds `credits` (0: only reads) to a credit plan's month of spend `key` (a hash and the UTC
   * month), bounded like every store command: `undefined` when the store is out of reach. A
   * fleet without it leaves each pool's monthly budget per process.
   */
  spend?(key: string, credits: number): Promise<SpendTotals | undefined>;
  /** The shared read cache; a fleet without one leaves each pool's cache local. */
  readonly reads?: FleetReads;
  /** Stops this pool's part of the background work (the pool calls it on close). */
  leave(): void;
}

/**
 * The fleet's side of one pool, made by the fleet itself (`wire`): what turns the pool's buckets
 * into leased ones and its cooldowns, benches, breaker opens, chain verdicts and heads into
 * shared facts (`parts/fleet-wiring.ts`). Opaque outside the pool.
 */
export interface FleetPoolWiring {
  readonly fleetWiring: true;
}

/** The `fleet` pool option: anything that can take a pool as a member. */
export interface PoolFleet {
  join(options: FleetJoinOptions): FleetMembership;
  /**
   * The wiring of one pool into this fleet; the pool calls it once, in its constructor. The fleet
   * brings it, rather than the pool importing it, so a pool without `fleet` holds no fleet code
   * (nor SHA-256) in a browser bundle. Implement it as `wire: (clock) => wireFleet(this, clock)`
   * (`wireFleet` from `sturdy-rpc/fleet`).
   */
  wire(clock: Clock): FleetPoolWiring;
}
