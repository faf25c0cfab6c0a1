/**
 * The hedge stage (docs/concepts.md "Hedged reads"): an idempotent, unpinned read whose attempt is late
 * gets a second attempt on another endpoint, under the retry budget it shares with retries.
 * The first definitive answer wins and the other attempt is cancelled at once, no-fault.
 * A send, an unknown method or a filter poll is never hedged. Absent with `hedge: false`.
 */
import type { HttpRequestPermit } from '../admission/permit.js';
import type { RoleState } from '../admission/role-state.js';
import { HEDGE_DEFAULTS, hedgeDelayMs, type HedgeSettings } from '../balance/hedge-policy.js';
import type { QueuedTimer, TimerQueue } from '../clock.js';
import type { RequestKind } from '../retry/causes.js';
import type { AttemptResult, CallContext, LostAttempt, RaceEntry, RoundResult } from './call-context.js';
import type { AnswerWaiter, Hedging, KindHedging } from './hedge-state.js';
import type { AttemptControl } from './exchange.js';
import type { PipelineHost } from './host.js';
import type { RecordedAttempt } from './record.js';
import type { AttemptRunner, Stage } from './stage.js';

/** What the hedge stage needs besides the host: its state, its timer queue, a hedge's admission, the balancer's lesson. */
export interface HedgeParts {
  readonly hedging: Hedging;
  /** One clock timer for every call's hedge delay. */
  readonly timers: TimerQueue;
  /** A permit for a hedge of `primary`'s call, now or never: another operator first, then any other endpoint. */
  tryHedgePermit(kind: RequestKind, primary: HttpRequestPermit, signal: AbortSignal | undefined, method: string): HttpRequestPermit | undefined;
  /** An attempt on `role` lost a hedge race and was cancelled after `elapsedMs`. */
  observeLost(role: RoleState, elapsedMs: number): void;
}

/** Failures that end the call whatever the other attempt would say: the node's answer, our request, the caller's abort. */
const FINAL = new Set(['rpc-application', 'request', 'aborted']);

const decides = (outcome: AttemptResult | LostAttempt): boolean => !('lost' in outcome) && (outcome.ok || FINAL.has(outcome.cause));

/** Whether a call may be hedged: an idempotent, unpinned read of a kind with peers. */
export function isHedgeable(hedging: Hedging, call: CallContext): boolean {
  return hedgingOf(hedging, call) !== undefined;
}

/** The hedging state of a hedgeable call's kind; undefined when the call may not be hedged (one look-up per call). */
function hedgingOf(hedging: Hedging, call: CallContext): KindHedging | undefined {
  if (call.retryClass !== 'idempotent' || call.pinned) return undefined;
  const kindHedging = hedging.of(call.kind);
  return kindHedging?.hasPeers === true ? kindHedging : undefined;
}

/**
 * Waits for a hedge's moment on the stage's timer queue (no clock timer per call): at the
 * delay it starts the hedge when the first attempt is still out, the budget allows and
 * another endpoint can take it now. A hedge that answers first cancels the first attempt.
 */
class HedgeWatch implements QueuedTimer, AnswerWaiter, RaceEntry {
  dueMs = 0;
  // The first attempt's place in the race: the watch is its entry (one object per call, not two).
  control: AttemptControl | undefined = undefined;
  lost = false;
  primaryDone = false;
  /** Waiting for the first answer of its kind to set its delay by. */
  waiting = false;
  hedge: Promise<AttemptResult | LostAttempt> | undefined;
  hedgeEntry: RaceEntry | undefined;
  hedgeEndpointId: string | undefined;
  delayMs: number;

  constructor(
    readonly host: PipelineHost,
    readonly parts: HedgeParts,
    readonly record: RecordedAttempt,
    readonly kindHedging: KindHedging,
    readonly permit: HttpRequestPermit,
    readonly call: CallContext,
    readonly attempt: number,
    readonly signal: AbortSignal | undefined,
    readonly startedAt: number,
    firstLookMs: number,
  ) {
    this.delayMs = firstLookMs;
  }

  fire(): void {
    const { host, parts, kindHedging, permit } = this;
    if (this.primaryDone) return;
    // 'auto' follows the answers seen meanwhile: wait on if the delay is longer now.
    this.delayMs = hedgeDelayMs(parts.hedging.settings, kindHedging.quantile);
    const now = host.clock.now();
    const dueAt = this.startedAt + this.delayMs;
    if (now < dueAt) {
      // No answer seen yet: the delay is `maxDelayMs` only until the first one arrives.
      if (typeof parts.hedging.settings.delayMs !== 'number' && kindHedging.quantile.estimateMs === undefined) {
        this.waiting = true;
        kindHedging.waitForAnswer(this);
      }
      if (dueAt < permit.deadlineMs) parts.timers.add(this, dueAt - now);
      return;
    }
    if (!kindHedging.budget.tryHedge()) return;
    const hedgePermit = parts.tryHedgePermit(this.call.kind, permit, this.signal, this.call.method);
    if (hedgePermit === undefined) {
      kindHedging.budget.refund();
      return;
    }
    kindHedging.started++;
    this.hedgeEndpointId = hedgePermit.endpointId;
    this.emit('started');
    const entry: RaceEntry = { control: undefined, lost: false };
    this.hedgeEntry = entry;
    this.hedge = this.record(hedgePermit, this.call, this.attempt, this.signal, entry).then((outcome) => {
      // The hedge answered first: the first attempt is cancelled at once, no-fault.
      if (!this.primaryDone && decides(outcome)) {
        this.lost = true;
        this.control?.abortByCaller();
      }
      return outcome;
    });
  }

  /**
   * An answer of the kind arrived: the delay may be shorter now. Looks again when it is due,
   * on the timer queue (not inside the answering attempt's bookkeeping, before its release).
   */
  lookAgain(): void {
    if (this.primaryDone || this.hedge !== undefined) return;
    const dueAt = this.startedAt + hedgeDelayMs(this.parts.hedging.settings, this.kindHedging.quantile);
    if (dueAt < this.permit.deadlineMs) this.parts.timers.add(this, dueAt - this.host.clock.now());
  }

  /** The first attempt finished first: the hedge (if any) is cancelled. */
  cancelHedge(): void {
    if (this.hedgeEntry === undefined) return;
    this.hedgeEntry.lost = true;
    this.hedgeEntry.control?.abortByCaller();
  }

  emit(phase: 'started' | 'won' | 'lost'): void {
    const { host, call } = this;
    if (!host.events.has('hedge')) return;
    host.events.emit('hedge', {
      atMs: host.clock.now(),
      kind: call.kind,
      method: call.method,
      endpointId: this.permit.endpointId,
      hedgeEndpointId: this.hedgeEndpointId!,
      phase,
      delayMs: this.delayMs,
    });
  }
}

/**
 * The stage: wraps the attempt of every round. `record` is the recording attempt below it,
 * which the stage also runs for the hedge and tells about a race (which attempt lost).
 */
export function hedgeStage(host: PipelineHost, parts: HedgeParts, record: RecordedAttempt): Stage<AttemptRunner> {
  const { hedging } = parts;
  const settings: HedgeSettings = hedging.settings;
  return (next) => async (permit, call, attempt, signal) => {
    const kindHedging = hedgingOf(hedging, call);
    if (kindHedging === undefined) return next(permit, call, attempt, signal);
    // Before enough answers were seen, look again at the earliest possible delay: the first
    // calls of a pool must not wait `maxDelayMs` on a stalled node while its peers answer.
    const firstLookMs =
      kindHedging.quantile.estimateMs === undefined && typeof settings.delayMs !== 'number'
        ? (settings.minDelayMs ?? HEDGE_DEFAULTS.minDelayMs)
        : hedgeDelayMs(settings, kindHedging.quantile);
    const now = host.clock.now();
    if (now + firstLookMs >= permit.deadlineMs) return next(permit, call, attempt, signal);

    const watch = new HedgeWatch(host, parts, record, kindHedging, permit, call, attempt, signal, now, firstLookMs);
    parts.timers.addAt(watch, now + Math.max(0, firstLookMs));
    const primary = await record(permit, call, attempt, signal, watch);
    watch.primaryDone = true;
    parts.timers.remove(watch);
    if (watch.waiting) kindHedging.stopWaiting(watch);
    if ('lost' in primary) parts.observeLost(primary.role, primary.latencyMs);
    if (watch.hedge === undefined) return primary as AttemptResult;
    if (decides(primary)) {
      watch.cancelHedge();
      if (primary.ok) {
        kindHedging.lost++;
        watch.emit('lost');
      }
      return primary as AttemptResult;
    }
    // The hedge won (and cancelled the first attempt), or the first attempt failed and the hedge
    // decides. Only a first attempt that decided cancels the hedge, and it returned above.
    const hedged = (await watch.hedge) as AttemptResult;
    if (hedged.ok) {
      kindHedging.won++;
      watch.emit('won');
    }
    return 'lost' in primary ? hedged : { ...hedged, alsoFailed: primary.endpointId };
  };
}

export type { RoundResult };
