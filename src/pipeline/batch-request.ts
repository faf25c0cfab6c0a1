/**
 * `pool.batch([...])`: JSON-RPC batches on the wire (docs/reads.md "Batching and coalescing").
 * The wiring of the pure parts in `src/batch/`: items are split per request kind and per
 * endpoint's `maxBatchSize`; each request goes through admission (one permit, one token
 * per item), is attributed item by item, and only the items that failed retryably are
 * sent again — alone or together in a new request, never with the completed ones. A kind's
 * items are the request loop's work (`loop.ts`): its chunks go concurrently, one per permit.
 */
import { attributeBatch, type BatchSlot } from '../batch/attribute.js';
import { batchRefusal, endpointVerdict, itemRetryClass, requestRetryClass } from '../batch/rules.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { BatchCall, BatchItemResult, BatchOptions } from '../batch/types.js';
import { TransportError, type AttemptRecord } from '../errors/transport-error.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import type { IntegrityAsk } from '../integrity/types.js';
import { needsSendId } from './send-id-rules.js';
import { sendIdReader } from './send-ids.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import { AttemptControl, sendRaw } from './exchange.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { CallBudget, PipelineHost, RetryAvoidance } from './host.js';
import { permitRole, type HttpRequestPermit } from '../admission/permit.js';
import { transportErrorOf, type AttemptFailure } from './call-context.js';
import { avoidFailed, decideFailure, runLoop, type LoopWork } from './loop.js';

/** One item from call to settlement. */
interface BatchItem extends FailedCall {
  readonly integrity: IntegrityAsk | undefined;
  readonly index: number;
  readonly kind: RequestKind;
  readonly body: (id: number) => string;
  readonly attempts: AttemptRecord[];
  tries: number;
  last: AttemptFailure | undefined;
}

/** Most items in one batch request to an endpoint: its `maxBatchSize`, or less once it refused a batch. */
export interface BatchSizes {
  of(endpointId: string): number;
  /** `endpointId` refused a batch: at most `limit` items per request to it from now on. */
  limit(endpointId: string, limit: number): void;
}

/** The batch sizes of the pool's endpoints (`maxBatchSize`, lowered by refusals). */
export function createBatchSizes(initial: ReadonlyMap<string, number>, fallback: number): BatchSizes {
  const sizes = new Map(initial);
  return {
    of: (endpointId) => sizes.get(endpointId) ?? fallback,
    limit: (endpointId, limit) => sizes.set(endpointId, Math.max(1, Math.min(limit, sizes.get(endpointId) ?? limit))),
  };
}

function invalidInput(field: string, message: string): TransportError<'INVALID_INPUT'> {
  return new TransportError('INVALID_INPUT', message, { context: { field } });
}

function itemsOf(pool: PipelineHost, calls: readonly BatchCall[]): BatchItem[] {
  if (!Array.isArray(calls)) throw invalidInput('calls', 'calls must be an array of { method, params }');
  return calls.map((call, index): BatchItem => {
    const method: unknown = (call as BatchCall | undefined)?.method;
    if (typeof method !== 'string' || method.length === 0) throw invalidInput(`calls[${index}].method`, `calls[${index}].method must be a non-empty string`);
    const params = call.params ?? [];
    if (!Array.isArray(params)) throw invalidInput(`calls[${index}].params`, `calls[${index}].params must be an array`);
    let body: (id: number) => string;
    try {
      body = createRequestBody(method, params);
    } catch (error) {
      throw new TransportError('INVALID_INPUT', `calls[${index}].params must be JSON-serializable (bigint allowed)`, { context: { field: `calls[${index}].params` }, cause: error });
    }
    const { kind, retryClass } = pool.classify(method, {});
    return { index, method, params, kind, retryClass, body, sentTransactionId: undefined, integrity: pool.integrityOf(method, params), attempts: [], redact: pool.redact, tries: 0, last: undefined };
  });
}

/** Runs a batch; resolves with one result per call, in order. Rejects only for invalid input, or a send's id that could not be computed (`LOAD_FAILED`); nothing sent then. */
export async function runBatch(pool: PipelineHost, sizes: BatchSizes, calls: readonly BatchCall[], options: BatchOptions = {}): Promise<BatchItemResult[]> {
  const checked = itemsOf(pool, calls);
  // A send's id is computed from its bytes before anything is sent (in the browser, the hashing loads on the first send).
  const reader = checked.some((item) => needsSendId(item.method, item.retryClass)) ? sendIdReader() : undefined;
  const read = reader === undefined || typeof reader === 'function' ? reader : await reader;
  const items = read === undefined ? checked : checked.map((item) => (needsSendId(item.method, item.retryClass) ? { ...item, sentTransactionId: read(item.method, item.params) } : item));
  const results: BatchItemResult[] = new Array<BatchItemResult>(items.length);
  const byKind = new Map<RequestKind, BatchItem[]>();
  for (const item of items) {
    const group = byKind.get(item.kind);
    if (group === undefined) byKind.set(item.kind, [item]);
    else group.push(item);
  }
  await Promise.all([...byKind].map(([kind, members]) => runLoop(pool, new GroupWork(pool, sizes, kind, options, members, results))));
  return results;
}

/** A chunk as it came back: its attribution, or the node's refusal of the batch (the items go again). */
type SentChunk =
  | { readonly refused: true; readonly chunk: readonly BatchItem[] }
  | { readonly refused: false; readonly chunk: readonly BatchItem[]; readonly endpointId: string; readonly latencyMs: number; readonly attribution: Attribution };

interface Attribution extends ReturnType<typeof attributeBatch> {
  readonly transportError: Error | undefined;
}

/** One kind's items under one deadline, as the loop's work: a queue sent in chunks, concurrently. */
class GroupWork implements LoopWork<SentChunk> {
  /** A chunk's credits are charged when it is sent: admission prices none of its methods. */
  readonly method = undefined;
  readonly startedAt: number;
  readonly concurrent = true;
  readonly result = undefined;
  readonly requestClass: RetryClass;
  deadlineMs = Number.POSITIVE_INFINITY;
  avoid: RetryAvoidance | undefined = undefined;
  failed: Set<string> | undefined = undefined;
  private readonly queue: BatchItem[];
  private readonly budget: CallBudget;

  constructor(
    readonly pool: PipelineHost,
    readonly sizes: BatchSizes,
    readonly kind: RequestKind,
    readonly options: BatchOptions,
    items: readonly BatchItem[],
    private readonly results: BatchItemResult[],
  ) {
    this.requestClass = requestRetryClass(items.map((item) => item.retryClass));
    this.startedAt = pool.clock.now();
    this.queue = [...items];
    this.budget = pool.budgetOf(kind);
  }

  begin(): void {
    // One deposit per item: a batch earns the retries its calls would have earned alone.
    for (let i = 0; i < this.queue.length; i++) this.budget.deposit();
  }

  pending(): boolean {
    return this.queue.length > 0;
  }

  explores(): boolean {
    return false;
  }

  send(permit: HttpRequestPermit): Promise<SentChunk> {
    const chunk = this.queue.splice(0, this.sizes.of(permit.endpointId));
    // One token per item: the permit took the first, the others are charged (docs/reads.md "Batching and coalescing"); a credit plan prices each item.
    const role = permitRole(permit);
    const nowMs = this.pool.clock.now();
    role.bucket?.charge(chunk.length - 1, nowMs);
    role.load.credits?.charge(nowMs, chunk.map((item) => item.method), undefined);
    return sendChunk(this, permit, chunk);
  }

  decide(sent: SentChunk): undefined {
    if (sent.refused) {
      this.queue.push(...sent.chunk);
      return undefined;
    }
    const { pool } = this;
    const { chunk, endpointId, latencyMs, attribution } = sent;
    let delayMs = 0;
    let retried = false;
    chunk.forEach((item, i) => {
      const outcome = attribution.outcomes[i]!;
      item.tries++;
      if (outcome.ok) {
        this.settle(item, { ok: true, result: outcome.result, endpointId });
        return;
      }
      item.attempts.push({ endpointId, cause: outcome.cause, dispatch: outcome.dispatch, status: outcome.status, rpcCode: outcome.rpcCode, durationMs: latencyMs });
      const failure: AttemptFailure = { ...outcome, endpointId, transportError: attribution.transportError };
      if (outcome.cause === 'aborted') {
        this.settle(item, failWhileWaiting(undefined, item, pool.closedError()));
        return;
      }
      const retryClass = itemRetryClass(attribution.whole, item.retryClass, this.requestClass);
      const decided = decideFailure(pool, this.budget, failure, retryClass, item.tries, this.deadlineMs);
      if (typeof decided !== 'number') {
        // The send rule of the request holds for every item in it: the error says it may have been processed.
        const call = decided === 'budget-exhausted' ? item : { ...item, retryClass };
        this.settle(item, finalError(decided, failure, call, endpointId, this.deadlineMs - this.startedAt));
        return;
      }
      item.last = failure;
      delayMs = Math.max(delayMs, decided);
      retried = true;
      this.queue.push(item);
    });
    // Failing over is immediate; an endpoint that failed these items is used again only after the backoff.
    if (retried) avoidFailed(this, endpointId, pool.clock.now() + delayMs);
    return undefined;
  }

  failWaiting(errorOf: (item: FailedCall, last: AttemptFailure | undefined) => TransportError): void {
    for (const item of this.queue.splice(0)) this.settle(item, errorOf(item, item.last));
  }

  end(): void {}

  private settle(item: BatchItem, outcome: BatchItemResult | TransportError): void {
    this.results[item.index] = outcome instanceof TransportError ? { ok: false, error: outcome } : outcome;
  }
}

/** Sends `chunk` as one request on `permit` and records the endpoint's verdict on it. */
async function sendChunk(group: GroupWork, permit: HttpRequestPermit, chunk: readonly BatchItem[]): Promise<SentChunk> {
  const { pool, options, requestClass, kind } = group;
  const { clock, events } = pool;
  const { endpointId } = permit;
  const started = clock.now();
  const slots: BatchSlot[] = chunk.map((item) => ({ id: pool.nextId(), method: item.method, sentTransactionId: item.sentTransactionId, integrity: item.integrity }));
  // One item goes as a plain request: every server reads that, and some unwrap batches of one.
  const body = chunk.length === 1 ? chunk[0]!.body(slots[0]!.id) : `[${chunk.map((item, i) => item.body(slots[i]!.id)).join(',')}]`;
  const base = () => ({ atMs: clock.now(), endpointId, kind, method: 'batch', attempt: Math.max(...chunk.map((item) => item.tries + 1)) });
  if (events.has('attempt')) events.emit('attempt', base());
  const control = new AttemptControl(pool, permitRole(permit), permit.deadlineMs, started, options.signal);
  let attribution: Attribution;
  try {
    let raw = await sendRaw(pool, control, body, requestClass === 'never-after-dispatch');
    const context = { abortReason: control.abortReason, chainVerified: control.chainVerified, wallNowMs: () => clock.wallNow() };
    let attributed;
    try {
      attributed = attributeBatch(raw, slots, context);
    } catch (error) {
      // A custom executor returned a malformed outcome: an ambiguous failure, as for a single call.
      raw = { type: 'error', kind: 'other', dispatched: true, error };
      attributed = attributeBatch(raw, slots, context);
    }
    attribution = { ...attributed, transportError: transportErrorOf(raw) };
  } finally {
    control.finish();
  }
  const latencyMs = clock.now() - started;
  const refusal = chunk.length > 1 && attribution.whole ? batchRefusal(attribution.outcomes[0]!) : undefined;
  if (refusal !== undefined) {
    // The node refused the batch, not the calls: nothing was processed, so the items go again
    // in smaller requests (no try spent, no fault recorded: the endpoint answered honestly).
    permit.release();
    group.sizes.limit(endpointId, refusal === 'unsupported' ? 1 : Math.floor(chunk.length / 2));
    if (events.has('failure')) {
      const failure = attribution.outcomes[0] as ClassifiedFailure;
      events.emit('failure', { ...base(), cause: failure.cause, dispatch: failure.dispatch, status: failure.status, rpcCode: failure.rpcCode, latencyMs, detail: `batch-refused-${refusal}` });
    }
    return { refused: true, chunk };
  }
  try {
    const verdict = endpointVerdict(attribution.whole, attribution.outcomes);
    if (verdict.type === 'success') {
      permit.recordSuccess(latencyMs);
      if (events.has('success')) events.emit('success', { ...base(), latencyMs });
    } else if (verdict.type === 'rate-limited') {
      permit.recordRateLimited(verdict.providerDelayMs);
    } else {
      const { failure } = verdict;
      permit.recordFailure(failure.cause, failure, latencyMs);
      if (events.has('failure')) {
        events.emit('failure', { ...base(), cause: failure.cause, dispatch: failure.dispatch, status: failure.status, rpcCode: failure.rpcCode, latencyMs, detail: failure.detail, ...(failure.check === undefined ? {} : { check: failure.check }) });
      }
    }
  } finally {
    permit.release();
  }
  return { refused: false, chunk, endpointId, latencyMs, attribution };
}
