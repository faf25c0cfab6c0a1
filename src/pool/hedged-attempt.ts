/**
 * One round of a call: its attempt, and — for an idempotent read that is late — a hedge to
 * another endpoint under the shared retry budget (DESIGN §4.9). The first definitive answer
 * wins and the other attempt is cancelled at once, no-fault. A send, an unknown method or a
 * filter poll is never hedged.
 */
import type { TimerHandle } from '../clock.js';
import { HEDGE_DEFAULTS, hedgeDelayMs, LatencyQuantile, RetryBudget, type HedgeSettings } from '../balance/hedge-policy.js';
import type { RequestKind } from '../retry/causes.js';
import type { PoolInternals } from './http-transport-pool.js';
import type { HttpRequestPermit } from './permit.js';
import { runAttempt, type AttemptFailure, type AttemptResult, type CallContext, type RaceEntry } from './run-attempt.js';

/** Hedging state of one request kind: its delay quantile, its budget and its counters. */
export class KindHedging {
  readonly quantile: LatencyQuantile;
  readonly budget: RetryBudget;
  started = 0;
  won = 0;
  lost = 0;

  constructor(settings: HedgeSettings, nowMs: number) {
    this.quantile = new LatencyQuantile(settings.quantile ?? 0.95);
    this.budget = new RetryBudget(settings.budgetRatio ?? 0.1, nowMs);
  }
}

/** The pool's hedging: settings and per-kind state. */
export class Hedging {
  readonly settings: HedgeSettings;
  readonly #kinds = new Map<RequestKind, KindHedging>();

  constructor(settings: HedgeSettings, kinds: Iterable<RequestKind>, nowMs: number) {
    this.settings = settings;
    for (const kind of kinds) this.#kinds.set(kind, new KindHedging(settings, nowMs));
  }

  of(kind: RequestKind): KindHedging | undefined {
    return this.#kinds.get(kind);
  }

  get kinds(): ReadonlyMap<RequestKind, KindHedging> {
    return this.#kinds;
  }
}

export interface RoundResult {
  readonly outcome: AttemptResult;
  /** Endpoints whose attempt in this round failed (the retry prefers others). */
  readonly failedEndpointIds: readonly string[];
}

/** Failures that end the call whatever the other attempt would say: the node's answer, our request, the caller's abort. */
const FINAL = new Set(['rpc-application', 'request', 'aborted']);

/** Runs the attempt on `permit`, hedged when `hedgeable` and the pool hedges. */
export async function attemptRound(
  pool: PoolInternals,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  signal: AbortSignal | undefined,
  hedgeable: boolean,
): Promise<RoundResult> {
  const hedging = hedgeable ? pool.hedging?.of(call.kind) : undefined;
  const settings = pool.hedging?.settings;
  // Before enough answers were seen, look again at the earliest possible delay: the first
  // calls of a pool must not wait `maxDelayMs` on a stalled node while its peers answer.
  const firstLookMs =
    hedging === undefined ? 0 : hedging.quantile.valueMs === undefined && settings!.delayMs === undefined ? (settings!.minDelayMs ?? HEDGE_DEFAULTS.minDelayMs) : hedgeDelayMs(settings!, hedging.quantile);
  if (hedging === undefined || pool.clock.now() + firstLookMs >= permit.deadlineMs) {
    const outcome = (await runAttempt(pool, permit, call, attempt, signal)) as AttemptResult;
    return { outcome, failedEndpointIds: outcome.ok ? [] : [outcome.endpointId] };
  }
  return race(pool, hedging, settings!, firstLookMs, permit, call, attempt, signal);
}

function race(
  pool: PoolInternals,
  hedging: KindHedging,
  settings: HedgeSettings,
  firstLookMs: number,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<RoundResult> {
  const { clock, events } = pool;
  const startedAt = clock.now();
  let delayMs = firstLookMs;
  return new Promise<RoundResult>((resolve) => {
    const entries: RaceEntry[] = [];
    const failures: AttemptFailure[] = [];
    let running = 0;
    let settled = false;
    let hedgeEndpointId: string | undefined;
    let timer: TimerHandle | undefined;

    const settle = (outcome: AttemptResult, winner: RaceEntry | undefined) => {
      settled = true;
      timer?.cancel();
      for (const entry of entries) {
        if (entry === winner) continue;
        entry.lost = true;
        entry.control?.abortByCaller();
      }
      if (hedgeEndpointId !== undefined && outcome.ok) {
        const won = outcome.endpointId === hedgeEndpointId;
        if (won) hedging.won++;
        else hedging.lost++;
        if (events.has('hedge')) emit(won ? 'won' : 'lost');
      }
      resolve({ outcome, failedEndpointIds: failures.map((failure) => failure.endpointId) });
    };
    const emit = (phase: 'started' | 'won' | 'lost') =>
      events.emit('hedge', { atMs: clock.now(), kind: call.kind, method: call.method, endpointId: permit.endpointId, hedgeEndpointId: hedgeEndpointId!, phase, delayMs });

    const start = (target: HttpRequestPermit) => {
      const entry: RaceEntry = { control: undefined, lost: false };
      entries.push(entry);
      running++;
      void runAttempt(pool, target, call, attempt, signal, entry).then((outcome) => {
        running--;
        if (settled || 'lost' in outcome) return;
        if (outcome.ok || FINAL.has(outcome.cause)) return settle(outcome, entry);
        failures.push(outcome);
        // Both failed, or the first failed before a hedge started: the request loop decides what next.
        if (running === 0) settle(outcome, undefined);
      });
    };

    start(permit);
    const look = () => {
      timer = undefined;
      if (settled || running === 0) return;
      // 'auto' follows the answers seen meanwhile: wait on if the delay is longer now.
      delayMs = hedgeDelayMs(settings, hedging.quantile);
      const dueAt = startedAt + delayMs;
      if (clock.now() < dueAt) {
        if (dueAt < permit.deadlineMs) timer = clock.setTimer(look, dueAt - clock.now());
        return;
      }
      if (!hedging.budget.tryHedge()) return;
      const hedge = pool.tryHedgePermit(call.kind, permit, signal);
      if (hedge === undefined) {
        hedging.budget.refund();
        return;
      }
      hedging.started++;
      hedgeEndpointId = hedge.endpointId;
      if (events.has('hedge')) emit('started');
      start(hedge);
    };
    timer = clock.setTimer(look, firstLookMs);
  });
}
