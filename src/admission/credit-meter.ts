/**
 * An endpoint's credit plan at work (issue 30 §2): the credits its calls cost, a bucket
 * that refills `creditsPerSecond` and a monthly spend against `creditsPerMonth`. One meter
 * per endpoint, shared by its roles — a plan is the provider account's, not one kind's.
 * Admission asks it before a call (enough credits for the method, budget not refused) and
 * tells it when one is sent; the everyday path of an endpoint without a plan never meets it.
 */
import type { Clock } from '../clock.js';
import { TokenBucket } from './token-bucket.js';

/** The per-second credits: a token bucket in one process, a leased share of the fleet's (`fleet/lease-bucket.ts`) in a fleet. */
export interface CreditBucket {
  /** Most credits it holds at once (a call dearer than this waits for a full bucket). */
  readonly capacity: number;
  available(nowMs: number): number;
  /** Milliseconds until `need` credits are there (0: now; `Infinity`: no known instant). */
  waitMs(nowMs: number, need: number): number;
  /** Spends `count` credits, into debt when fewer are there. */
  charge(count: number, nowMs: number): void;
}

/**
 * The month's spend kept beyond this process (a fleet: `parts/shared-spend.ts`). While
 * `shared`, the store's totals decide the thresholds (each told once, by the process whose
 * spend crossed it) and a crossing this process's estimate sees asks for a sync at once;
 * while not (the store is out of reach), the meter judges its own estimate, as alone.
 */
export interface SpendSync {
  readonly shared: boolean;
  syncSoon(): void;
}

/** A provider's per-method credit costs (built-in ones: `sturdy-rpc/credits`). */
export interface CreditTable {
  /** Where the numbers come from. */
  readonly source: string;
  /** When they were read there (ISO date). */
  readonly readOn: string;
  /** Credits of a method the table does not list. */
  readonly defaultCost: number;
  /** Credits billed per call (the monthly budget counts these). */
  readonly methods: Readonly<Record<string, number>>;
  /**
   * Credits a call counts against the per-second limit, where it differs from what it is
   * billed (Alchemy's "throughput CU").
   */
  readonly throughput?: Readonly<Record<string, number>>;
}

/** What happens once the month's credits are spent: `'refuse'` sends nothing more there (the next tier takes the traffic), `'continue'` only says so. */
export type OnBudgetExhausted = 'refuse' | 'continue';

/** An endpoint's plan with every setting resolved. */
export interface CreditPlan {
  /** The provider's table (undefined: none; a method the user did not price costs 1). */
  readonly table: CreditTable | undefined;
  /** The user's costs per method (`'*'`: any method not listed), over the provider's. */
  readonly cost: Readonly<Record<string, number>>;
  readonly creditsPerSecond: number | undefined;
  readonly creditsPerMonth: number | undefined;
  readonly onExhausted: OnBudgetExhausted;
}

/** The shares of the monthly budget at which the meter tells its listener (1: spent). */
export const BUDGET_THRESHOLDS = [0.8, 0.95, 1] as const;
export type BudgetThreshold = (typeof BUDGET_THRESHOLDS)[number];

/** Told when the month's spend crosses a threshold. */
export type BudgetListener = (threshold: BudgetThreshold, spentCredits: number, creditsPerMonth: number, refusing: boolean) => void;

/** A method's credits: billed (the month counts them) and against the per-second limit. */
interface MethodCost {
  readonly billed: number;
  readonly throughput: number;
}

/** Start of the UTC calendar month after the one `wallMs` is in. */
export function nextMonthStartMs(wallMs: number): number {
  const date = new Date(wallMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export class CreditMeter {
  readonly plan: CreditPlan;
  private readonly clock: Clock;
  /** The per-second credits (undefined without `creditsPerSecond`); a fleet swaps in its leased share. */
  bucket: CreditBucket | undefined;
  /** Costs looked up once per method (bounded by the methods the pool is called with). */
  private readonly costs = new Map<string | undefined, MethodCost>();
  /** Credits sent this month (from the pool's start, or the month's). */
  spentCredits = 0;
  private monthEndsAtMs: number;
  private nextThreshold = 0;
  listener: BudgetListener | undefined;
  /** Fleet mode: where the month's spend is kept. */
  sync: SpendSync | undefined;
  /** Fleet mode: credits billed here that the store's total does not hold yet. */
  unsynced = 0;

  constructor(plan: CreditPlan, clock: Clock) {
    this.plan = plan;
    this.clock = clock;
    const perSecond = plan.creditsPerSecond;
    // A burst of one second of credits: what a provider's per-second window lets through.
    this.bucket = perSecond === undefined ? undefined : new TokenBucket(perSecond, perSecond, clock.now());
    this.monthEndsAtMs = nextMonthStartMs(clock.wallNow());
  }

  /** What a call of `method` costs here (undefined: a permit taken for no one method). */
  costOf(method: string | undefined): MethodCost {
    let cost = this.costs.get(method);
    if (cost === undefined) {
      const { table, cost: own } = this.plan;
      const key = method ?? '*';
      const billed = own[key] ?? table?.methods[key] ?? own['*'] ?? table?.defaultCost ?? 1;
      const throughput = own[key] ?? table?.throughput?.[key] ?? billed;
      cost = { billed, throughput };
      this.costs.set(method, cost);
    }
    return cost;
  }

  /** The per-second bucket's capacity and credits now (undefined without `creditsPerSecond`). */
  available(nowMs: number): { readonly capacity: number; readonly credits: number } | undefined {
    const bucket = this.bucket;
    return bucket === undefined ? undefined : { capacity: bucket.capacity, credits: bucket.available(nowMs) };
  }

  /** Whether the month's budget is spent and the plan refuses past it (a new month lifts it). */
  refusing(): boolean {
    if (this.plan.onExhausted !== 'refuse' || this.nextThreshold < BUDGET_THRESHOLDS.length) return false;
    this.rollMonth();
    return this.nextThreshold === BUDGET_THRESHOLDS.length;
  }

  /**
   * When a call of `method` could be sent at `nowMs`: 0 now, else the instant (monotonic
   * ms) the bucket holds its credits or the refused month ends. A call dearer than the
   * whole burst waits for a full bucket, not forever.
   */
  blockedUntil(nowMs: number, method: string | undefined): number {
    if (this.refusing()) return nowMs + Math.max(1, this.monthEndsAtMs - this.clock.wallNow());
    const bucket = this.bucket;
    if (bucket === undefined) return 0;
    const need = Math.min(this.costOf(method).throughput, bucket.capacity);
    const waitMs = need > 0 ? bucket.waitMs(nowMs, need) : 0;
    return waitMs === 0 ? 0 : nowMs + waitMs;
  }

  /** A call of `method` is sent at `nowMs`: its credits leave the bucket and join the month's spend. */
  take(nowMs: number, method: string | undefined): void {
    const cost = this.costOf(method);
    this.spend(nowMs, cost.throughput, cost.billed);
  }

  /** More calls ride on one already admitted (a batch's other items): their credits, into debt when the bucket holds fewer. */
  charge(nowMs: number, methods: readonly string[], admittedAs: string | undefined): void {
    let throughput = -this.costOf(admittedAs).throughput;
    let billed = -this.costOf(admittedAs).billed;
    for (const method of methods) {
      const cost = this.costOf(method);
      throughput += cost.throughput;
      billed += cost.billed;
    }
    this.spend(nowMs, throughput, billed);
  }

  private spend(nowMs: number, throughput: number, billed: number): void {
    this.bucket?.charge(throughput, nowMs);
    const budget = this.plan.creditsPerMonth;
    if (budget === undefined || !(billed > 0)) return;
    this.rollMonth();
    this.spentCredits += billed;
    const sync = this.sync;
    if (sync !== undefined) this.unsynced += billed;
    if (!this.crossing(this.spentCredits)) return;
    // The fleet's total decides who tells a threshold: send this spend now.
    if (sync?.shared) sync.syncSoon();
    else this.tellCrossed(this.spentCredits, Number.NEGATIVE_INFINITY);
  }

  /** The UTC month this spend counts in (`YYYY-MM`): the store keeps one total per month. */
  month(): string {
    this.rollMonth();
    return new Date(this.monthEndsAtMs - 1).toISOString().slice(0, 7);
  }

  /**
   * The store added this meter's last unsynced credits to `month`'s spend of the fleet, which
   * went from `before` to `after`. The estimate becomes the fleet's total plus what is still
   * unsynced; a threshold this addition crossed is told here, one others crossed is passed silently.
   */
  adoptTotals(month: string, before: number, after: number): void {
    if (month !== this.month()) return;
    this.spentCredits = after + this.unsynced;
    this.tellCrossed(after, before);
  }

  /** A sync of `credits` of `month` failed: they wait for the next one. */
  returnUnsynced(month: string, credits: number): void {
    if (month === this.month()) this.unsynced += credits;
  }

  private crossing(spent: number): boolean {
    const budget = this.plan.creditsPerMonth;
    return budget !== undefined && this.nextThreshold < BUDGET_THRESHOLDS.length && spent >= budget * BUDGET_THRESHOLDS[this.nextThreshold]!;
  }

  /** Passes every threshold `spent` reached; tells those `before` had not reached. */
  private tellCrossed(spent: number, before: number): void {
    const budget = this.plan.creditsPerMonth!;
    while (this.crossing(spent)) {
      const threshold = BUDGET_THRESHOLDS[this.nextThreshold++]!;
      if (before < budget * threshold) this.listener?.(threshold, spent, budget, threshold === 1 && this.plan.onExhausted === 'refuse');
    }
  }

  /** A new calendar month (UTC) starts the spend again. */
  private rollMonth(): void {
    const wallMs = this.clock.wallNow();
    if (wallMs < this.monthEndsAtMs) return;
    this.monthEndsAtMs = nextMonthStartMs(wallMs);
    this.spentCredits = 0;
    this.unsynced = 0;
    this.nextThreshold = 0;
  }
}
