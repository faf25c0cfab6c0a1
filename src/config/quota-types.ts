/** The quota autopilot's options (docs/concepts.md "Learned rates"): learned rates and concurrency, and credit plans. */
import type { CreditTable } from '../admission/credit-meter.js';

/** Bounds and start of a learned rate (`requestsPerSecond: { auto: … }`), in requests per second. */
export interface LearnedRateOptions {
  /** The floor: the learned rate never goes below it. Unit: requests per second. @default 1 */
  readonly min?: number;
  /** The ceiling: the learned rate never goes above it. Unit: requests per second. @default 10000 */
  readonly max?: number;
  /** Where learning starts (clamped into `[min, max]`). Unit: requests per second. @default 20 */
  readonly start?: number;
}

/** Bounds and start of a learned concurrency (`maxConcurrentRequests: { auto: … }`), in requests in flight. */
export interface LearnedConcurrencyOptions {
  /** The floor. @default 4 */
  readonly min?: number;
  /** The ceiling. @default 500 */
  readonly max?: number;
  /** Where learning starts (clamped into `[min, max]`). @default 20 */
  readonly start?: number;
}

/** An endpoint's provider plan, in the provider's credits (Alchemy compute units, QuickNode/Helius/Infura credits). */
export interface CreditPlanOptions {
  /** The provider's cost table that prices the calls (`creditTables.alchemy`, … from `sturdy-rpc/credits`). @default none: each call costs its `cost` entry, else `cost['*']`, else 1 */
  readonly table?: CreditTable;
  /** The plan's throughput: credits per second, with a burst of one second of them. @default unlimited */
  readonly creditsPerSecond?: number;
  /** The plan's monthly credits (a UTC calendar month): `credit-budget` events at 80 %, 95 % and 100 %. @default no monthly budget */
  readonly creditsPerMonth?: number;
  /**
   * Once the month's credits are spent: `'refuse'` sends nothing more to this endpoint until
   * the month ends (the next tier takes the traffic; with none left a call fails at once with
   * `BUDGET_EXHAUSTED`), `'continue'` only emits the event. @default 'continue'
   */
  readonly onExhausted?: 'refuse' | 'continue';
}
