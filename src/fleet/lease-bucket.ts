/**
 * A role's admission bucket in fleet mode. In shared mode it spends tokens leased from the
 * fleet's bucket, a small batch at a time, and tops the lease up ahead of need, so most calls
 * make no round trip to the store and a process never holds more than one lease of unspent
 * tokens (the fleet's overshoot at the server is at most one lease per process). In local
 * mode (the store is out of reach) it spends what is left of its lease, then its local share
 * of the quota — a bucket that starts EMPTY, because the fleet was just spending the quota.
 * A later fall-back resumes the local share where the last one left it (not empty again): a
 * fleet whose mode changes often must not starve its calls on a bucket reset at every change.
 */
import { TokenBucket, type AdmissionBucket } from '../admission/token-bucket.js';
import type { Clock, Random } from '../clock.js';
import type { FleetGrant } from './backend.js';
import type { FleetBucketSpec } from './types.js';

/** Tokens in one lease: `leaseMs` of the quota, at least 1, at most the burst capacity. */
export function leaseSizeOf(requestsPerSecond: number, burstCapacity: number, leaseMs: number): number {
  return Math.max(1, Math.min(Math.floor(burstCapacity), Math.ceil((requestsPerSecond * leaseMs) / 1000)));
}

/** One process's share of a quota when it cannot coordinate: the quota divided by the live members it last knew. */
export function localShareOf(requestsPerSecond: number, burstCapacity: number, members: number): { readonly requestsPerSecond: number; readonly burstCapacity: number } {
  const n = Math.max(1, Math.floor(members));
  return { requestsPerSecond: requestsPerSecond / n, burstCapacity: Math.max(1, burstCapacity / n) };
}

/** Where a bucket's leases come from. */
export interface LeaseSource {
  /** Takes up to `want` tokens; resolves `undefined` when the store failed (the fleet then went local). */
  take(want: number, startEmpty: boolean, restart: boolean): Promise<FleetGrant | undefined>;
  /** Tokens arrived or the mode changed without a take: admission must look again. */
  changed(): void;
}

export class LeasedBucket implements AdmissionBucket {
  readonly spec: FleetBucketSpec;
  /** The quota's rate now: the spec's, or the fleet's learned one (`retune`). */
  private requestsPerSecond: number;
  private burstCapacity: number;
  /** Most tokens this process holds unspent. */
  leaseSize: number;
  /** Top the lease up once this few tokens are left. */
  private lowWater: number;
  private readonly leaseMs: number;
  protected readonly clock: Clock;
  private readonly random: Random;
  private readonly source: LeaseSource;
  private held = 0;
  private fetching = false;
  /** After an empty grant: the next token's instant, before which asking again is pointless. */
  private retryAtMs = 0;
  /** The local share while the store is out of reach. */
  private local: TokenBucket | undefined;
  /** Tokens the local share held when shared mode resumed: the next fall-back starts from them. */
  private parked: number | undefined;
  /** Once the fleet has spent from this bucket, a bucket the store lost starts empty, not full. */
  private spending = false;
  /** Back from local mode: the next take restarts the shared bucket empty (see `FleetBackend.take`). */
  private restart = false;
  /** The last take got less than it asked: the fleet is spending the whole quota, so no lease ahead of need (no hoarding). */
  private contended = false;

  constructor(spec: FleetBucketSpec, leaseMs: number, clock: Clock, random: Random, source: LeaseSource) {
    this.spec = spec;
    this.requestsPerSecond = spec.requestsPerSecond;
    this.burstCapacity = spec.burstCapacity;
    this.leaseMs = leaseMs;
    this.leaseSize = leaseSizeOf(spec.requestsPerSecond, spec.burstCapacity, leaseMs);
    this.lowWater = Math.floor(this.leaseSize / 2);
    this.clock = clock;
    this.random = random;
    this.source = source;
  }

  get mode(): 'shared' | 'local' {
    return this.local === undefined ? 'shared' : 'local';
  }

  /** Unspent leased tokens (for tests and snapshots). */
  get heldTokens(): number {
    return this.held;
  }

  available(nowMs: number): number {
    return this.held + (this.local?.available(nowMs) ?? 0);
  }

  /** Most tokens it holds at once: a credit call dearer than a lease waits for a full one (see `CreditBucket`). */
  get capacity(): number {
    return this.leaseSize;
  }

  /** Milliseconds until `need` tokens (one by default, at most a lease) are there. */
  waitMs(nowMs: number, need = 1): number {
    const want = Math.min(need, this.leaseSize);
    if (this.held >= want) return 0;
    if (this.local) return this.#localWaitMs(nowMs, want);
    if (this.fetching) return Number.POSITIVE_INFINITY;
    if (nowMs < this.retryAtMs) return this.retryAtMs - nowMs;
    // Admission met a short lease: ask for one; its arrival wakes admission (`changed`).
    this.fetch();
    // A store known to be down answers at once: the local share may already be there.
    return this.held >= want ? 0 : this.local ? this.#localWaitMs(nowMs, want) : Number.POSITIVE_INFINITY;
  }

  tryTake(nowMs: number): boolean {
    if (this.held >= 1) {
      this.held--;
      this.#topUp(nowMs);
      return true;
    }
    return this.local?.tryTake(nowMs) ?? false;
  }

  /**
   * A batch's other items, already admitted: spent from the lease, into debt when it holds
   * fewer (the next leases pay the debt back first: the fleet's bucket counts every item, as
   * providers do). In local mode what the lease lacks is charged to the local share.
   */
  charge(count: number, nowMs: number): void {
    if (!(count > 0)) return;
    if (this.local === undefined) {
      this.held -= count;
      this.#topUp(nowMs);
      return;
    }
    const fromLease = Math.min(count, Math.max(0, Math.floor(this.held)));
    this.held -= fromLease;
    this.local.charge(count - fromLease, nowMs);
  }

  /** Asks for a first lease ahead of the first call. */
  prime(): void {
    if (this.local === undefined && !this.fetching && this.held === 0) this.fetch();
  }

  /** The quota moved (the fleet's learned rate): leases follow it, and so would a local share taken from now on. */
  protected retune(requestsPerSecond: number, burstCapacity: number): void {
    this.requestsPerSecond = requestsPerSecond;
    this.burstCapacity = burstCapacity;
    this.leaseSize = leaseSizeOf(requestsPerSecond, burstCapacity, this.leaseMs);
    this.lowWater = Math.floor(this.leaseSize / 2);
    this.held = Math.min(this.held, this.leaseSize);
  }

  /** The store is out of reach: spend the rest of the lease, then the local share, starting empty (or where the last one stopped). */
  goLocal(nowMs: number, members: number): void {
    const share = localShareOf(this.requestsPerSecond, this.burstCapacity, members);
    this.local = new TokenBucket(share.requestsPerSecond, share.burstCapacity, nowMs, Math.min(share.burstCapacity, this.parked ?? 0));
    this.spending = true;
  }

  /** The store is back: lease again. */
  goShared(): void {
    if (this.local !== undefined) {
      this.restart = true;
      // Parked, not refilled while shared: the shared bucket paid for that time.
      this.parked = this.local.available(this.clock.now());
    }
    this.local = undefined;
    this.retryAtMs = 0;
  }

  /** A grant that arrived after its take had timed out: the tokens were taken from the fleet, so use them. */
  credit(granted: number): void {
    if (granted <= 0) return;
    this.spending = true;
    this.held = Math.min(this.leaseSize, this.held + granted);
    this.source.changed();
  }

  /** What the local share lacks for `want` tokens, beyond the lease's whole ones (charged from the lease first). */
  #localWaitMs(nowMs: number, want: number): number {
    const local = this.local!;
    return local.waitMs(nowMs, Math.min(local.capacity, want - Math.max(0, Math.floor(this.held))));
  }

  /** Spending reached the low water: top the lease up ahead of need, unless the fleet spends the whole quota. */
  #topUp(nowMs: number): void {
    if (this.local === undefined && !this.contended && this.held <= this.lowWater && !this.fetching && nowMs >= this.retryAtMs) this.fetch();
  }

  private fetch(): void {
    const want = this.leaseSize - this.held;
    if (want <= 0) return;
    this.fetching = true;
    const restart = this.restart;
    this.restart = false;
    void this.source.take(want, this.spending, restart).then((grant) => {
      this.fetching = false;
      if (grant === undefined) this.restart ||= restart;
      else {
        this.contended = grant.granted < want;
        if (grant.granted > 0) {
          this.spending = true;
          this.held = Math.min(this.leaseSize, this.held + grant.granted);
        } else {
          // Every process waiting on the same refill would ask at the same instant and the
          // quickest would win every time: a random part of half a wait more spreads the leases.
          this.retryAtMs = this.clock.now() + Math.max(1, grant.waitMs) * (1 + this.random() / 2);
        }
      }
      this.source.changed();
    });
  }
}
