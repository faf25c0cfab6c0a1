/**
 * The request path, composed once from its stages in the order `pool/assemble.ts` states:
 * observe → entry → cache → coalesce → micro-batch → loop → hedge → record → exchange (a
 * consensus read: entry → cache → coalesce → consensus → loop → record → exchange). A stage that is off
 * is not in the chain. Exporters attach at run time, so the path's outer end is
 * recomposed when one attaches or detaches: a call never checks for observers.
 */
import type { BatchCall, BatchItemResult, BatchOptions, MicroBatchSettings } from '../batch/types.js';
import type { TransportError } from '../errors/transport-error.js';
import type { CallContext } from '../pipeline/call-context.js';
import { CallObservers, type CallLabeler, type CallObserver } from '../pipeline/call-observer.js';
import { askBelow, cacheStage, type CacheMiss } from '../pipeline/cache.js';
import { coalesceStage, type CoalesceParts } from '../pipeline/coalesce.js';
import { consensusStage, type ConsensusParts } from '../pipeline/consensus.js';
import type { ReadCache } from '../parts/read-cache.js';
import { hedgeStage, isHedgeable, type HedgeParts } from '../pipeline/hedge.js';
import type { PipelineHost } from '../pipeline/host.js';
import { microBatchStage } from '../pipeline/micro-batch.js';
import { observeStage } from '../pipeline/observe.js';
import type { ReconcileSettings } from '../pipeline/reconcile.js';
import { recordStage } from '../pipeline/record.js';
import { callEntry, requestLoop } from '../pipeline/request-loop.js';
import { compose, type AttemptRunner, type CallHandler, type RequestHandler } from '../pipeline/stage.js';

/** What the path is built from: the pool options that decide which stages are in it. */
export interface RequestPathSettings {
  readonly coalesce: boolean;
  /** The read cache; undefined with `cache: false`. */
  readonly cache: ReadCache | undefined;
  /** What consensus reads need; their chain (cache → consensus → loop) is taken only by them. */
  readonly consensus: ConsensusParts;
  /** What a cache miss does when not just asking the rest of the path (a fleet's shared cache). */
  readonly cacheMiss: CacheMiss | undefined;
  /** A call's time budget when it does not set `timeoutMs` (a coalesced joiner keeps its own deadline). */
  readonly timeoutMsOf: CoalesceParts['timeoutMsOf'];
  readonly microBatch: MicroBatchSettings | undefined;
  /** `pool.batch`: the micro-batch stage sends through it. */
  readonly batch: (calls: readonly BatchCall[], options: BatchOptions) => Promise<BatchItemResult[]>;
  readonly reconcile: ReconcileSettings | undefined;
  /** Hedging's parts; undefined with `hedge: false`. */
  readonly hedge: HedgeParts | undefined;
  /** Share of hedgeable reads that explore the costlier candidate (0 without latency-aware choice). */
  readonly exploreRatio: number;
  readonly labeler: CallLabeler;
}

export interface RequestPath {
  /** The path's entry as it stands (observed while exporters are attached). */
  readonly request: RequestHandler;
  /** `pool.batch`: wire batches, through admission and the same retry rules. */
  readonly batch: RequestPathSettings['batch'];
  /** Attaches an exporter; returns the function that detaches it. */
  observe<S>(observer: CallObserver<S>): () => void;
  /** pool.close(): calls still waiting for a micro-batch fail `POOL_CLOSED`; the hedge timer stops. */
  close(closedError: () => TransportError): void;
}

const never = (): boolean => false;

/** Every 1/ratio-th hedgeable read explores: a credit, not a random draw, so the injected random's sequence (backoffs) is untouched. */
function explorer(hedge: HedgeParts | undefined, ratio: number): (call: CallContext) => boolean {
  if (hedge === undefined || ratio === 0) return never;
  let credit = 0;
  return (call) => {
    if (!isHedgeable(hedge.hedging, call)) return false;
    credit += ratio;
    if (credit < 1) return false;
    credit -= 1;
    return true;
  };
}

export function assembleRequestPath(host: PipelineHost, settings: RequestPathSettings): RequestPath {
  const record = recordStage(host);
  const round: AttemptRunner = compose(
    [settings.hedge === undefined ? undefined : hedgeStage(host, settings.hedge, record)],
    record as AttemptRunner,
  );
  const microBatch = settings.microBatch === undefined ? undefined : microBatchStage(host.clock, settings.microBatch, settings.batch);
  const loop = requestLoop(host, {
    round,
    explores: explorer(settings.hedge, settings.exploreRatio),
    // An ambiguous send's lookups take the whole path (shared, hedged), unobserved.
    reconcile: settings.reconcile === undefined ? undefined : { settings: settings.reconcile, read: (method, params, options) => plain(method, params, options) },
  });
  const coalesce = settings.coalesce ? coalesceStage({ clock: host.clock, timeoutMsOf: settings.timeoutMsOf, closedError: host.closedError }) : undefined;
  const calls: CallHandler = compose([settings.cache === undefined ? undefined : cacheStage(settings.cache, settings.cacheMiss), coalesce, microBatch?.stage], loop);
  // Consensus reads take chains of their own, one per `operators` (identical consensus reads
  // share one consensus, never one of fewer operators): each operator's turn is its own request
  // (never coalesced nor batched, so every answer has its endpoint); everyone else's chain lacks them.
  const consensusChain = (): CallHandler => compose([settings.cache === undefined ? undefined : cacheStage(settings.cache, askBelow(settings.cache, true), true), coalesce, consensusStage(host, settings.consensus)], loop);
  const agreedBy = { 2: consensusChain(), 3: consensusChain() } as const;
  const agreed: CallHandler = (call, options) => agreedBy[call.consensus!.operators](call, options);
  const plain: RequestHandler = callEntry(host, calls, agreed);
  const observers = new CallObservers();
  let request = plain;
  const recompose = () => {
    request = observers.list.length === 0 ? plain : compose([observeStage(host, observers.list, settings.labeler)], plain);
  };
  return {
    get request() {
      return request;
    },
    batch: settings.batch,
    observe: (observer) => {
      const remove = observers.add(observer);
      recompose();
      return () => {
        remove();
        recompose();
      };
    },
    close: (closedError) => {
      microBatch?.close(closedError);
      settings.hedge?.timers.close();
    },
  };
}
