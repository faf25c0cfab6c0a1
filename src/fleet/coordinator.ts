/**
 * The fleet's machinery over a {@link FleetBackend}: leases, heartbeats, the poll that brings
 * other processes' facts, and the fall-back to a local share when the store is out of reach.
 * Every store command is bounded by `commandTimeoutMs`; a client known to be disconnected turns
 * the process local at once, other failures after a few in a row (`store-judge.ts`), and only
 * writes answered for a while bring it back to shared mode (while local, the poll's ticks probe).
 */
import { setBackgroundTimer, type Clock, type Random, type TimerHandle } from '../clock.js';
import type { FleetBackend, FleetGrant } from './backend.js';
import { runBounded } from './bounded-command.js';
import type { LeasedBucket } from './lease-bucket.js';
import { fleetBucketOf, stopTuners, tunerOf } from './learned-lease.js';
import { MemberCount } from './member-count.js';
import { notReadyVerdict } from './start-up.js';
import { fleetReads } from './shared-reads.js';
import { StoreJudge, type FleetFailure } from './store-judge.js';
import type { FleetBucketSpec, FleetFact, FleetJoinOptions, FleetMembership, FleetMode, FleetPoolWiring, FleetReads, FleetStatus, PoolFleet } from './types.js';
import { wireFleet } from '../parts/fleet-wiring.js';

export interface FleetCoordinatorSettings {
  readonly clock: Clock;
  /** Spreads retries of processes waiting on the same token. */
  readonly random: Random;
  readonly memberId: string;
  readonly commandTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly expectedMembers: number;
  /** How long from creation a client never yet ready counts as starting, not unreachable (`start-up.ts`). @default 0 */
  readonly readyTimeoutMs?: number;
}

interface Joined {
  readonly options: FleetJoinOptions;
  readonly buckets: Map<string, LeasedBucket>;
}

/** A command unanswered this long no longer blocks the next of its kind (a hung store must not stop recovery for good). */
const STUCK_AFTER_MS = 2_000;
/** Facts kept while the store is out of reach, shared when it returns. */
const MAX_PENDING_FACTS = 1_000;
const undeclared = (): never => {
  throw new Error('no fleet bucket was declared for this key');
};

export class FleetCoordinator implements PoolFleet {
  readonly #backend: FleetBackend;
  readonly #settings: FleetCoordinatorSettings;
  readonly #joined = new Set<Joined>();
  readonly #busySince = new Map<'poll' | 'heartbeat', number>();
  /** Facts shared while local, by topic and key: the store learns them when it returns. */
  readonly #pending = new Map<string, { readonly fact: FleetFact; readonly atMs: number }>();
  #mode: FleetMode = 'shared';
  #reason = 'started';
  readonly #members: MemberCount;
  readonly #judge = new StoreJudge();
  readonly #reads: FleetReads;
  #cursor = '';
  #pollTimer: TimerHandle | undefined;
  #heartbeatTimer: TimerHandle | undefined;
  #closed = false;
  /** Until the store first answers (then -∞), and at most until this instant, a client not ready is starting. */
  #startingUntilMs: number;

  constructor(backend: FleetBackend, settings: FleetCoordinatorSettings) {
    this.#backend = backend;
    this.#settings = settings;
    this.#members = new MemberCount(settings.expectedMembers, settings.heartbeatMs);
    this.#startingUntilMs = settings.clock.now() + (settings.readyTimeoutMs ?? 0);
    this.#reads = fleetReads(backend, settings.memberId, (command) => (this.#mode === 'shared' ? this.#command(command, true) : Promise.resolve(undefined)));
  }

  get memberId(): string {
    return this.#settings.memberId;
  }

  status(): FleetStatus {
    return { mode: this.#mode, members: this.#members.assumed(), reason: this.#reason };
  }

  wire(clock: Clock): FleetPoolWiring {
    return wireFleet(this, clock);
  }

  join(options: FleetJoinOptions): FleetMembership {
    const joined: Joined = { options, buckets: new Map() };
    for (const spec of options.buckets) this.#declare(joined, spec);
    this.#joined.add(joined);
    // After the pool's constructor returns, so its listeners see the first mode change.
    queueMicrotask(() => {
      if (this.#closed || !this.#joined.has(joined)) return;
      this.#start();
      if (this.#mode === 'shared') {
        for (const bucket of joined.buckets.values()) bucket.prime();
        void this.#recall(joined);
      }
    });
    return {
      bucket: (key, late) => joined.buckets.get(key) ?? (late?.key === key ? this.#declare(joined, late, this.#mode === 'shared') : undeclared()),
      share: (fact) => {
        // Other pools of this process learn it at once; other processes through the store.
        for (const other of this.#joined) if (other !== joined) other.options.onFact(fact);
        this.#share(fact);
      },
      status: () => this.status(),
      spend: (key, credits) => (this.#mode === 'shared' ? this.#command(() => this.#backend.spend(key, credits), true) : Promise.resolve(undefined)),
      reads: this.#reads,
      leave: () => (stopTuners(joined.buckets.values()), this.#leave(joined)),
    };
  }

  /** Stops every timer and leaves the fleet; pools still open keep their local share. The caller's client is left as it is. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopTimers();
    this.#goLocal('closed');
    await this.#command(() => this.#backend.leave(this.#settings.memberId), true);
  }

  #leave(joined: Joined): void {
    if (!this.#joined.delete(joined) || this.#joined.size > 0) return;
    this.#stopTimers();
    if (!this.#closed && this.#mode === 'shared') void this.#command(() => this.#backend.leave(this.#settings.memberId), true);
  }

  #start(): void {
    if (this.#pollTimer !== undefined) return;
    void this.#heartbeat();
    this.#schedulePoll();
    this.#scheduleHeartbeat();
  }

  #stopTimers(): void {
    this.#pollTimer?.cancel();
    this.#pollTimer = undefined;
    this.#heartbeatTimer?.cancel();
    this.#heartbeatTimer = undefined;
  }

  #schedulePoll(): void {
    this.#pollTimer = setBackgroundTimer(this.#settings.clock, () => {
      // Local: nothing to read, but a probe of whether Redis takes writes again (see `StoreJudge`).
      void (this.#mode === 'local' ? this.#heartbeat() : this.#poll());
      if (this.#pollTimer !== undefined) this.#schedulePoll();
    }, this.#settings.pollIntervalMs);
  }

  #scheduleHeartbeat(): void {
    this.#heartbeatTimer = setBackgroundTimer(this.#settings.clock, () => {
      void this.#heartbeat();
      if (this.#heartbeatTimer !== undefined) this.#scheduleHeartbeat();
    }, this.#settings.heartbeatMs);
  }

  /** One command at a time per kind, unless the last one is stuck. */
  #begin(kind: 'poll' | 'heartbeat'): boolean {
    const since = this.#busySince.get(kind);
    const now = this.#settings.clock.now();
    if (since !== undefined && now - since < STUCK_AFTER_MS) return false;
    this.#busySince.set(kind, now);
    return true;
  }

  async #heartbeat(): Promise<void> {
    if (!this.#begin('heartbeat')) return;
    const sentAtMs = this.#settings.clock.now();
    const members = await this.#command(
      () => this.#backend.heartbeat(this.#settings.memberId, this.#settings.heartbeatMs * 3),
      true,
      () => this.#busySince.delete('heartbeat'),
    );
    if (members !== undefined) this.#members.record(members, sentAtMs);
  }

  async #poll(): Promise<void> {
    if (!this.#begin('poll')) return;
    const cursor = this.#cursor;
    const answer = await this.#command(() => this.#backend.poll(cursor), false, () => this.#busySince.delete('poll'));
    if (answer === undefined || this.#mode !== 'shared') return;
    // A recovery in between reset the cursor: this answer belongs to the old log.
    if (cursor !== this.#cursor) return;
    this.#cursor = answer.cursor;
    for (const { from, fact } of answer.facts) {
      if (from === this.#settings.memberId) continue;
      for (const joined of this.#joined) joined.options.onFact(fact);
    }
  }

  async #recall(joined: Joined): Promise<void> {
    if (joined.options.facts.length === 0) return;
    const facts = await this.#command(() => this.#backend.recall(joined.options.facts), false);
    if (facts === undefined || !this.#joined.has(joined)) return;
    for (const fact of facts) joined.options.onFact(fact);
  }

  /** A pool's bucket of `spec`, in the fleet's mode; `prime`: declared after the join, it leases at once. */
  #declare(joined: Joined, spec: FleetBucketSpec, prime = false): LeasedBucket {
    const { clock, onTokens } = joined.options;
    const bucket: LeasedBucket = fleetBucketOf(spec, this.#settings.leaseMs, clock, this.#settings.random, {
      take: (want, startEmpty, restart) => this.#take(bucket, want, startEmpty, restart),
      changed: () => onTokens(spec.key),
      ...tunerOf(this.#backend, spec.key, this.#settings.memberId, this.#settings.heartbeatMs * 3, (run) => this.#command(run, true)),
    });
    if (this.#mode === 'local') bucket.goLocal(clock.now(), this.#members.assumed());
    else if (prime) bucket.prime();
    joined.buckets.set(spec.key, bucket);
    return bucket;
  }

  #take(bucket: LeasedBucket, want: number, startEmpty: boolean, restart: boolean): Promise<FleetGrant | undefined> {
    const { key, requestsPerSecond, burstCapacity, learned } = bucket.spec;
    const take = () => this.#backend.take(key, requestsPerSecond, burstCapacity, want, startEmpty, restart, learned !== undefined);
    return this.#command(take, true, undefined, (late) => bucket.credit(late.granted));
  }

  #share(fact: FleetFact): void {
    if (this.#closed) return;
    if (this.#mode === 'local') {
      if (this.#pending.size < MAX_PENDING_FACTS) this.#pending.set(`${fact.topic}:${fact.key}`, { fact, atMs: this.#settings.clock.now() });
      return;
    }
    void this.#command(() => this.#backend.share(this.#settings.memberId, fact), true);
  }

  /**
   * Runs one store command under `commandTimeoutMs` (`bounded-command.ts`). Resolves
   * `undefined` when the store is not connected, errs or does not answer in time; `write`: the
   * command changes the store (only writes prove it usable); `settled` runs when the command
   * finally ends either way, `late` with a value that came after its timeout.
   */
  #command<T>(run: () => Promise<T>, write: boolean, settled?: () => void, late?: (value: T) => void): Promise<T | undefined> {
    if (!this.#backend.ready()) {
      settled?.();
      this.#notReady();
      return Promise.resolve(undefined);
    }
    const sentAtMs = this.#settings.clock.now();
    return runBounded(this.#settings.clock, this.#settings.commandTimeoutMs, run, {
      answered: () => {
        this.#startingUntilMs = Number.NEGATIVE_INFINITY;
        if (this.#judge.answered(this.#mode, write, sentAtMs)) this.#recover();
      },
      failed: (failure) => this.#failed(failure),
      ...(late ? { late } : {}),
      ...(settled ? { settled } : {}),
    });
  }

  /** The client is not `ready`: starting (no outage), or unreachable (`start-up.ts`). */
  #notReady(): void {
    const verdict = notReadyVerdict(this.#settings.clock.now(), this.#startingUntilMs, this.#mode, this.#reason);
    if (verdict === 'starting') return this.#goLocal('starting');
    if (verdict === 'unreachable') return this.#failed('unreachable');
    this.#reason = 'unreachable';
    for (const joined of this.#joined) joined.options.onStatus(this.status());
  }

  #failed(failure: FleetFailure): void {
    if (this.#judge.failed(this.#mode, failure)) this.#goLocal(failure);
  }

  #goLocal(reason: string): void {
    if (this.#mode === 'local') return;
    this.#mode = 'local';
    this.#reason = reason;
    this.#judge.reset();
    const status = this.status();
    for (const joined of this.#joined) {
      const now = joined.options.clock.now();
      for (const bucket of joined.buckets.values()) bucket.goLocal(now, status.members);
      joined.options.onStatus(status);
      for (const key of joined.buckets.keys()) joined.options.onTokens(key);
    }
  }

  /** A command succeeded: the store is reachable again. */
  #recover(): void {
    if (this.#mode === 'shared' || this.#closed) return;
    this.#mode = 'shared';
    this.#reason = this.#reason === 'starting' ? 'ready' : 'recovered';
    this.#judge.reset();
    // The log may have been lost or trimmed while away: start it from now and recall the stored facts instead.
    this.#cursor = '';
    const status = this.status();
    const now = this.#settings.clock.now();
    for (const [id, { fact, atMs }] of this.#pending) {
      this.#pending.delete(id);
      const ttlMs = fact.ttlMs - (now - atMs);
      if (ttlMs > 0) this.#share({ ...fact, ttlMs });
    }
    for (const joined of this.#joined) {
      for (const bucket of joined.buckets.values()) bucket.goShared();
      joined.options.onStatus(status);
      for (const key of joined.buckets.keys()) joined.options.onTokens(key);
      void this.#recall(joined);
    }
  }
}
