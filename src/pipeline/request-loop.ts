/**
 * The call's entry, and a single call as the request loop's work (`loop.ts`): one item, one
 * round per permit (the record stage, wrapped by the hedge stage when hedging is on). What
 * only a single call does stays here: exploring on the first attempt, avoiding pruned
 * endpoints for a historical read, `log-range-limit` refusals, a hedged round's `alsoFailed`,
 * reconciling an ambiguous send, and telling a coalesced request's joiners.
 */
import { TransportError } from '../errors/transport-error.js';
import type { HttpRequestPermit } from '../admission/permit.js';
import { createRequestBody, type RequestBodyWriter } from '../jsonrpc/envelope.js';
import { needsSendId } from './send-id-rules.js';
import { sendIdReader } from './send-ids.js';
import type { ConsensusOptions, RequestOptions } from '../api/request-options.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { CallBudget, PipelineHost, RetryAvoidance } from './host.js';
import type { AttemptFailure, CallContext, RoundResult } from './call-context.js';
import type { CallObservation } from './call-observer.js';
import { avoidFailed, decideFailure, runLoop, type LoopWork } from './loop.js';
import { lookUpSend, sendLookupOf, type ReconcileSettings } from './reconcile.js';
import type { AttemptRunner, CallHandler, RequestHandler } from './stage.js';

function invalidInput(field: string, message: string): TransportError<'INVALID_INPUT'> {
  return new TransportError('INVALID_INPUT', message, { context: { field } });
}

/**
 * The entry: validates and classifies a call (`INVALID_INPUT` before anything is sent), then
 * hands it on — a consensus read to the chain that holds the consensus stage (`agreed`).
 */
export function callEntry(host: PipelineHost, next: CallHandler, agreed: CallHandler): RequestHandler {
  return (method, params, options, observation) => {
    let call: CallContext;
    try {
      call = callOf(host, method, params, options, observation);
    } catch (error) {
      return Promise.reject(error);
    }
    if (call.consensus !== undefined) return agreed(call, options);
    if (!needsSendId(call.method, call.retryClass)) return next(call, options);
    // A send's id is computed once from its bytes, before anything is sent: its answer must be
    // that id, its errors carry it (in the browser, the hashing loads on the first send: send-ids.browser.ts).
    const sent = call;
    const reader = sendIdReader();
    if (typeof reader === 'function') return next({ ...sent, sentTransactionId: reader(sent.method, sent.params) }, options);
    return reader.then((read) => next({ ...sent, sentTransactionId: read(sent.method, sent.params) }, options));
  };
}

function callOf(host: PipelineHost, method: string, params: readonly unknown[], options: RequestOptions, observation: CallObservation | undefined): CallContext {
  if (typeof method !== 'string' || method.length === 0) throw invalidInput('method', 'method must be a non-empty string');
  if (!Array.isArray(params)) throw invalidInput('params', 'params must be an array');
  let body: RequestBodyWriter;
  try {
    body = createRequestBody(method, params);
  } catch (error) {
    throw new TransportError('INVALID_INPUT', 'params must be JSON-serializable (bigint allowed)', { context: { field: 'params' }, cause: error });
  }
  if (options.minHead !== undefined && (typeof options.minHead !== 'bigint' || options.minHead < 0n)) throw invalidInput('minHead', 'minHead must be a bigint >= 0');
  const { kind, retryClass } = host.classify(method, options);
  const historical = host.answers.historicalOf(method, params);
  const pinned = options.endpoint !== undefined;
  const integrity = host.integrityOf(method, params);
  const consensus = options.consensus === undefined ? host.methodConsensus?.get(method) : consensusOf(options.consensus, retryClass, pinned);
  return {
    method,
    params,
    kind,
    pinned,
    retryClass,
    attempts: [],
    redact: host.redact,
    body,
    sentTransactionId: undefined,
    integrity,
    historical,
    observation,
    onSettled: undefined,
    answeredBy: undefined,
    // The method table's consensus never applies to a pinned call (the pool's own verification and
    // proofs pin) nor to one the caller reclassified as a send.
    consensus: pinned || retryClass !== 'idempotent' ? undefined : consensus,
    excluded: undefined,
  };
}

/** A call's own `consensus` option, checked: reads only, never pinned, 2 or 3 operators (`false`: none, whatever the method table says). */
function consensusOf(consensus: RequestOptions['consensus'], retryClass: CallContext['retryClass'], pinned: boolean): ConsensusOptions | undefined {
  if (consensus === false) return undefined;
  if (typeof consensus !== 'object' || consensus === null || (consensus.operators !== 2 && consensus.operators !== 3)) {
    throw invalidInput('consensus', 'consensus must be false or { operators: 2 | 3 }');
  }
  if (retryClass !== 'idempotent') throw invalidInput('consensus', 'consensus is for idempotent reads: a send is never sent to several nodes');
  if (pinned) throw invalidInput('consensus', 'consensus needs several operators: a call pinned to one endpoint cannot have it');
  return consensus;
}

/** No endpoint of the call's kind is known to have reached its `minHead`. */
function belowHeadError(call: CallContext, minHead: bigint): TransportError<'NO_ENDPOINT'> {
  return new TransportError('NO_ENDPOINT', `No endpoint serving '${call.kind}' requests is known to have reached head ${minHead}`, {
    context: { kind: call.kind, minHead: minHead.toString() },
    method: call.method,
  });
}

/** What the loop is given besides the host. */
export interface LoopParts {
  /** The round on an admitted permit: the record stage, wrapped by the hedge stage when hedging is on. */
  readonly round: AttemptRunner;
  /** Whether this call's first attempt explores (takes the costlier candidate); never without hedging and balancing. */
  readonly explores: (call: CallContext) => boolean;
  /** `reconcileSends`: how an ambiguous send is looked up (undefined when off), and the path its lookups take. */
  readonly reconcile: { readonly settings: ReconcileSettings; readonly read: RequestHandler } | undefined;
}

/** The request loop: runs one call on its own request (its rounds and retries). */
export function requestLoop(host: PipelineHost, parts: LoopParts): CallHandler {
  return (call, options) => runLoop(host, new CallWork(host, parts, call, options));
}

/** One call as the loop's work: one item, one round per permit. */
class CallWork implements LoopWork<RoundResult> {
  readonly kind: CallContext['kind'];
  readonly method: string;
  readonly startedAt: number;
  readonly concurrent = false;
  deadlineMs = Number.POSITIVE_INFINITY;
  avoid: RetryAvoidance | undefined = undefined;
  failed: Set<string> | undefined = undefined;
  result: unknown = undefined;
  private done = false;
  private explore = false;
  private onlyRangeRefusals = true;
  private pruned: ReadonlySet<string> | undefined = undefined;
  private last: AttemptFailure | undefined = undefined;
  private budget: CallBudget | undefined = undefined;

  constructor(
    private readonly pool: PipelineHost,
    private readonly parts: LoopParts,
    private readonly call: CallContext,
    readonly options: RequestOptions,
  ) {
    this.kind = call.kind;
    this.method = call.method;
    this.startedAt = call.startedAtMs ?? pool.clock.now();
  }

  begin(): void {
    const { pool, call } = this;
    // A historical read never goes to an endpoint known to be pruned (unless none other is left).
    const { historical } = call;
    // A consensus read's turn on one operator never reaches another's endpoints.
    let pruned = call.excluded ?? (historical === undefined || call.pinned ? undefined : pool.answers.historicalAvoid(call.kind, historical));
    // A read at a floor goes only to endpoints known to have reached it (a session's wait covers none having).
    if (this.options.minHead !== undefined && !call.pinned) pruned = this.belowHead(this.options.minHead, pruned);
    this.pruned = pruned;
    if (pruned !== undefined) this.avoid = { endpoints: pruned, untilMs: Number.POSITIVE_INFINITY };
    this.explore = this.parts.explores(call);
    this.budget = pool.budgetOf(call.kind);
    this.budget.deposit();
  }

  private belowHead(minHead: bigint, pruned: ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
    const below = this.pool.answers.belowHead(this.call.kind, minHead);
    if (below === null) throw belowHeadError(this.call, minHead);
    return below === undefined || pruned === undefined ? (below ?? pruned) : new Set([...pruned, ...below]);
  }

  pending(): boolean {
    return !this.done;
  }

  explores(attempt: number): boolean {
    return this.explore && attempt === 1;
  }

  send(permit: HttpRequestPermit, attempt: number): Promise<RoundResult> {
    return this.parts.round(permit, this.call, attempt, this.options.signal);
  }

  decide(failure: RoundResult, attempt: number): Promise<void> | undefined {
    const { pool, call } = this;
    if (failure.ok) {
      // A coalesced request's joiners copy the result before its first caller can touch it.
      call.onSettled?.succeeded(failure.result);
      call.answeredBy = failure.endpointId;
      this.result = failure.result;
      this.done = true;
      return undefined;
    }
    if (failure.cause === 'aborted') throw failWhileWaiting(undefined, call, pool.closedError());
    const decided = decideFailure(pool, this.budget!, failure, call.retryClass, attempt, this.deadlineMs);
    if (typeof decided !== 'number') {
      if (decided === 'ambiguous-dispatch' && this.parts.reconcile !== undefined) return this.reconciled(failure);
      throw finalError(decided, failure, call, failure.endpointId, this.deadlineMs - this.startedAt);
    }
    this.last = failure;
    this.failed ??= new Set(this.pruned);
    this.failed.add(failure.endpointId);
    if (failure.alsoFailed !== undefined) this.failed.add(failure.alsoFailed);
    // A node that just said it is pruned joins them: the retry goes elsewhere at once.
    const { historical } = call;
    if (historical !== undefined) for (const endpointId of pool.answers.historicalAvoid(call.kind, historical) ?? []) this.failed.add(endpointId);
    // A provider's eth_getLogs range limit does not change by asking again: while every endpoint
    // that failed this call refused that way, none is asked again (another may serve the range;
    // with none left the call fails now, and evm.getLogs splits the range). The end is finite
    // and past any deadline, so admission says at once that only they are left.
    this.onlyRangeRefusals &&= failure.detail === 'log-range-limit';
    // Failing over to another endpoint is immediate; an endpoint that already failed this
    // call is used again only after the backoff, and only when no other can admit.
    // A consensus read's turn on one operator never falls back to another operator's endpoints either.
    avoidFailed(this, failure.endpointId, this.onlyRangeRefusals || call.excluded !== undefined ? Number.MAX_VALUE : pool.clock.now() + decided);
    return undefined;
  }

  /** An ambiguous send, looked up: its id when found, its final error otherwise. */
  private async reconciled(failure: AttemptFailure): Promise<void> {
    const { call } = this;
    const reconciled = await reconcile(this.pool, this.parts, call, failure.endpointId, this.deadlineMs, this.options.signal);
    if (!reconciled?.found) throw finalError('ambiguous-dispatch', failure, call, failure.endpointId, this.deadlineMs - this.startedAt, reconciled?.lookups);
    this.result = reconciled.transactionId;
    this.done = true;
  }

  failWaiting(errorOf: (item: FailedCall, last: AttemptFailure | undefined) => TransportError): never {
    throw errorOf(this.call, this.last);
  }

  end(): void {
    // A coalesced request frees its key the moment it settles (no promise reaction on the hot path).
    this.call.onSettled?.settled();
  }
}

/**
 * `reconcileSends`: looks an ambiguous send up with reads through the pool. Undefined when
 * off, or when the method or its params cannot be looked up. The caller's signal and
 * pool.close() both end the search at once.
 */
async function reconcile(
  pool: PipelineHost,
  parts: LoopParts,
  call: CallContext,
  endpointId: string,
  deadlineMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<{ readonly found: boolean; readonly lookups: number; readonly transactionId: string } | undefined> {
  const settings = parts.reconcile;
  const lookup = settings && sendLookupOf(call.method, call.sentTransactionId);
  if (!settings || !lookup) return undefined;
  const stop = new AbortController();
  const stopNow = () => stop.abort();
  const onStop = { abortByCaller: stopNow };
  callerSignal?.addEventListener('abort', stopNow, { once: true });
  if (callerSignal?.aborted || pool.closedError()) stopNow();
  pool.cancelOnClose.add(onStop);
  try {
    const read = (timeoutMs: number) => settings.read(lookup.method, lookup.params, { timeoutMs, signal: stop.signal });
    const { found, lookups } = await lookUpSend(lookup, read, pool.clock, settings.settings, deadlineMs, stop.signal);
    pool.events.emit('reconcile', { atMs: pool.clock.now(), endpointId, method: call.method, found, lookups });
    return { found, lookups, transactionId: lookup.transactionId };
  } finally {
    callerSignal?.removeEventListener('abort', stopNow);
    pool.cancelOnClose.delete(onStop);
  }
}
