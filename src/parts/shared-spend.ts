/**
 * A pool's credit plans in a fleet (issue 30 §3). A plan is the provider account's, so every
 * process calling its endpoint spends from one budget kept in the store:
 * - per second, the meter's bucket becomes a leased share of one fleet bucket of
 *   `creditsPerSecond` (`fleet/lease-bucket.ts`): N processes do not spend N plans;
 * - per month, one total per plan and UTC month. Each meter counts what it bills and adds it
 *   to the store's total every {@link SPEND_SYNC_MS}, and at once when its estimate reaches a
 *   threshold; the store's answer is the fleet's spend. So a threshold is told once, by the
 *   process whose spend crossed it; `onExhausted: 'refuse'` refuses in every process; a
 *   restarted process starts from the fleet's spend, not from zero. While the store is out of
 *   reach each meter judges its own estimate, and its count waits for the store.
 * A plan's key is a hash of its endpoint's URL, as a role's is.
 */
import type { CreditBucket, CreditMeter, SpendSync } from '../admission/credit-meter.js';
import type { RoleState } from '../admission/role-state.js';
import type { AdmissionBucket } from '../admission/token-bucket.js';
import { setBackgroundTimer, type Clock, type TimerHandle } from '../clock.js';
import type { FleetBucketSpec, FleetMembership, FleetStatus } from '../fleet/types.js';
import { keyOf, normalizedUrl } from './fleet-keys.js';

/** How often a meter adds its spend to the fleet's month, and learns the others'. */
export const SPEND_SYNC_MS = 1_000;

interface Plan {
  readonly key: string;
  readonly meter: CreditMeter;
  /** The roles whose admission waits on the plan's credits. */
  readonly roles: RoleState[];
}

/** A fleet's bucket that spends credits (the coordinator's leased buckets do); another fleet's leaves the plan per process. */
function isCreditBucket(bucket: AdmissionBucket): bucket is AdmissionBucket & CreditBucket {
  return typeof (bucket as Partial<CreditBucket>).capacity === 'number';
}

/** One plan's month kept in the store. */
class MonthSync implements SpendSync {
  shared: boolean;
  readonly #meter: CreditMeter;
  readonly #key: string;
  readonly #spend: NonNullable<FleetMembership['spend']>;
  #busy = false;
  #again = false;

  constructor(meter: CreditMeter, key: string, spend: NonNullable<FleetMembership['spend']>, shared: boolean) {
    this.#meter = meter;
    this.#key = key;
    this.#spend = spend;
    this.shared = shared;
  }

  syncSoon(): void {
    void this.sync();
  }

  /** Adds the meter's unsynced credits to the month's total (0: only reads it); one command at a time. */
  async sync(): Promise<void> {
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    const meter = this.#meter;
    try {
      do {
        this.#again = false;
        const month = meter.month();
        const credits = meter.unsynced;
        meter.unsynced = 0;
        const totals = await this.#spend(`${this.#key}:${month}`, credits).catch(() => undefined);
        if (totals === undefined) {
          meter.returnUnsynced(month, credits);
          break;
        }
        meter.adoptTotals(month, totals.before, totals.after);
      } while (this.#again && this.shared);
    } finally {
      this.#busy = false;
    }
  }
}

export class SharedPlans {
  readonly #plans = new Map<string, Plan>();
  readonly #clock: Clock;
  readonly #months: MonthSync[] = [];
  #timer: TimerHandle | undefined;

  constructor(roles: readonly RoleState[], clock: Clock) {
    this.#clock = clock;
    for (const role of roles) {
      const meter = role.load.credits;
      if (meter === undefined) continue;
      const key = keyOf('credits', normalizedUrl(role.endpoint.url));
      const plan = this.#plans.get(key);
      if (plan) plan.roles.push(role);
      else this.#plans.set(key, { key, meter, roles: [role] });
    }
  }

  /** The fleet buckets of the plans with `creditsPerSecond` (a burst of one second, as alone). */
  buckets(): FleetBucketSpec[] {
    const specs: FleetBucketSpec[] = [];
    for (const { key, meter } of this.#plans.values()) {
      const perSecond = meter.plan.creditsPerSecond;
      if (perSecond !== undefined) specs.push({ key, requestsPerSecond: perSecond, burstCapacity: perSecond });
    }
    return specs;
  }

  /** The roles a plan's bucket wakes when its credits arrive; undefined for a key that is not a plan's. */
  rolesOf(key: string): readonly RoleState[] | undefined {
    return this.#plans.get(key)?.roles;
  }

  /** The pool joined: meters spend the fleet's credits and keep the fleet's month. */
  joined(membership: FleetMembership): void {
    const shared = membership.status().mode === 'shared';
    for (const { key, meter } of this.#plans.values()) {
      if (meter.plan.creditsPerSecond !== undefined) {
        const bucket = membership.bucket(key);
        if (isCreditBucket(bucket)) meter.bucket = bucket;
      }
      if (meter.plan.creditsPerMonth === undefined || membership.spend === undefined) continue;
      const month = new MonthSync(meter, key, membership.spend.bind(membership), shared);
      meter.sync = month;
      this.#months.push(month);
    }
    if (this.#months.length === 0) return;
    // At once: a restarted process learns the month's spend before it spends much.
    this.#tick();
  }

  /** The fleet's mode changed: shared again, the counts made meanwhile go to the store at once. */
  statusChanged(status: FleetStatus): void {
    const shared = status.mode === 'shared';
    for (const month of this.#months) {
      const back = shared && !month.shared;
      month.shared = shared;
      if (back) void month.sync();
    }
  }

  /** The pool closes: what its meters billed goes to the store (best effort), and the timer stops. */
  close(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    for (const month of this.#months) if (month.shared) void month.sync();
  }

  #tick(): void {
    for (const month of this.#months) if (month.shared) void month.sync();
    this.#timer = setBackgroundTimer(this.#clock, () => this.#tick(), SPEND_SYNC_MS);
  }
}
