/** Hedging's state per request kind (its delay quantile, its retry budget, its counters), read by the snapshot. */
import { LatencyQuantile, RetryBudget, type HedgeSettings } from '../balance/hedge-policy.js';
import type { RequestKind } from '../retry/causes.js';

/** A late call waiting for the first answer of its kind to set its hedge delay by. */
export interface AnswerWaiter {
  lookAgain(): void;
}

/** Hedging state of one request kind: its delay quantile, its budget and its counters. */
export class KindHedging {
  readonly quantile: LatencyQuantile;
  readonly budget: RetryBudget;
  started = 0;
  won = 0;
  lost = 0;
  /** Whether another endpoint could ever take a hedge (more than one role of the kind). */
  readonly hasPeers: boolean;
  /** Late calls that found no answer of the kind to set their delay by: they look again at the first one. */
  readonly #waiting = new Set<AnswerWaiter>();

  constructor(settings: HedgeSettings, nowMs: number, roles: number) {
    this.hasPeers = roles > 1;
    this.quantile = new LatencyQuantile(settings.quantile ?? 0.95);
    this.budget = new RetryBudget(settings.budgetRatio ?? 0.1, nowMs);
  }

  /** A good answer of this kind took `latencyMs`. */
  observe(latencyMs: number): void {
    this.quantile.observe(latencyMs);
    if (this.#waiting.size === 0) return;
    // A fresh pool: the first answers set the delay, so the calls waiting for one look again
    // now (not at `maxDelayMs`): a call held by a stalled node is hedged soon after its peers answered.
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const watch of waiting) watch.lookAgain();
  }

  /** `watch` found no answer to set its delay by. */
  waitForAnswer(watch: AnswerWaiter): void {
    this.#waiting.add(watch);
  }

  /** `watch`'s call no longer needs a hedge (its attempt ended). */
  stopWaiting(watch: AnswerWaiter): void {
    this.#waiting.delete(watch);
  }
}

/** The pool's hedging: settings and per-kind state. */
export class Hedging {
  readonly settings: HedgeSettings;
  readonly #kinds = new Map<RequestKind, KindHedging>();

  /** `roles`: how many roles serve each kind. */
  constructor(settings: HedgeSettings, roles: ReadonlyMap<RequestKind, number>, nowMs: number) {
    this.settings = settings;
    for (const [kind, count] of roles) this.#kinds.set(kind, new KindHedging(settings, nowMs, count));
  }

  /** What a permit's good answer tells hedging: the delay quantile of its kind (when it has peers). */
  readonly reporter = {
    onSuccess: (role: { readonly settings: { readonly kind: RequestKind } }, latencyMs: number): void => {
      const kindHedging = this.#kinds.get(role.settings.kind);
      if (kindHedging?.hasPeers) kindHedging.observe(latencyMs);
    },
  };

  of(kind: RequestKind): KindHedging | undefined {
    return this.#kinds.get(kind);
  }

  get kinds(): ReadonlyMap<RequestKind, KindHedging> {
    return this.#kinds;
  }
}
