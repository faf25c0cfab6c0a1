/**
 * `pool.batch([...])`: JSON-RPC batches on the wire (README "Batching and coalescing").
 * The wiring of the pure parts in `src/batch/`: items are split per request kind and per
 * endpoint's `maxBatchSize`; each request goes through admission (one permit, one token
 * per item), is attributed item by item, and only the items that failed retryably are
 * sent again — alone or together in a new request, never with the completed ones.
 */
import { attributeBatch, type BatchSlot } from '../batch/attribute.js';
import { batchRefusal, endpointVerdict, itemRetryClass, requestRetryClass } from '../batch/rules.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { BatchCall, BatchItemResult, BatchOptions } from '../batch/types.js';
import { TransportError, type AttemptRecord } from '../errors/transport-error.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import { sentTransactionIdOf } from '../jsonrpc/transaction-id.js';
import type { IntegrityAsk } from '../integrity/types.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import { AttemptControl, sendRaw } from './exchange.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { AcquireOptions, PipelineHost, RetryAvoidance } from './host.js';
import { permitRole, type HttpRequestPermit } from '../admission/permit.js';
import { transportErrorOf, type AttemptFailure } from './call-context.js';
import { admissionError, evaluate } from './request-loop.js';

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

/** One kind's items under one deadline. */
interface Group {
  readonly pool: PipelineHost;
  readonly sizes: BatchSizes;
  readonly kind: RequestKind;
  readonly options: BatchOptions;
  readonly requestClass: RetryClass;
  readonly results: BatchItemResult[];
  readonly startedAt: number;
  deadlineMs: number;
  avoid: RetryAvoidance | undefined;
  readonly failed: Set<string>;
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
    const sentTransactionId = retryClass === 'never-after-dispatch' ? sentTransactionIdOf(method, params) : undefined;
    return { index, method, params, kind, retryClass, body, sentTransactionId, integrity: pool.integrityOf(method, params), attempts: [], redact: pool.redact, tries: 0, last: undefined };
  });
}

/** Runs a batch; resolves with one result per call, in order. Rejects only for invalid input (nothing sent). */
export async function runBatch(pool: PipelineHost, sizes: BatchSizes, calls: readonly BatchCall[], options: BatchOptions = {}): Promise<BatchItemResult[]> {
  const items = itemsOf(pool, calls);
  const results: BatchItemResult[] = new Array<BatchItemResult>(items.length);
  const byKind = new Map<RequestKind, BatchItem[]>();
  for (const item of items) {
    const group = byKind.get(item.kind);
    if (group === undefined) byKind.set(item.kind, [item]);
    else group.push(item);
  }
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (options.signal) await Promise.resolve();
  await Promise.all(
    [...byKind].map(([kind, members]) =>
      runGroup(
        {
          pool,
          sizes,
          kind,
          options,
          requestClass: requestRetryClass(members.map((item) => item.retryClass)),
          results,
          startedAt: pool.clock.now(),
          deadlineMs: Number.POSITIVE_INFINITY,
          avoid: undefined,
          failed: new Set(),
        },
        members,
      ),
    ),
  );
  return results;
}

function settle(group: Group, item: BatchItem, outcome: BatchItemResult | TransportError): void {
  group.results[item.index] = outcome instanceof TransportError ? { ok: false, error: outcome } : outcome;
}

async function runGroup(group: Group, items: readonly BatchItem[]): Promise<void> {
  const { pool, kind, options } = group;
  const { clock } = pool;
  const budget = pool.budgetOf(kind);
  for (let i = 0; i < items.length; i++) budget.deposit();
  const queue = [...items];
  const inflight = new Set<Promise<void>>();
  let first = true;
  while (queue.length > 0 || inflight.size > 0) {
    if (queue.length === 0) {
      await Promise.race(inflight);
      continue;
    }
    const acquireOptions: AcquireOptions = { signal: options.signal, endpoint: options.endpoint, timeoutMs: first ? options.timeoutMs : group.deadlineMs - clock.now() };
    let permit = pool.tryAcquire(kind, acquireOptions, group.avoid);
    if (permit === undefined) {
      try {
        permit = await pool.acquire(kind, acquireOptions, group.avoid);
      } catch (error) {
        for (const item of queue.splice(0)) settle(group, item, admissionError(pool, item, error, item.last, group.deadlineMs, group.startedAt, first ? 1 : 2));
        continue;
      }
    }
    if (first) group.deadlineMs = permit.deadlineMs;
    first = false;
    if (options.signal?.aborted || pool.closedError()) {
      permit.release();
      for (const item of queue.splice(0)) settle(group, item, failWhileWaiting(undefined, item, pool.closedError()));
      continue;
    }
    const chunk = queue.splice(0, group.sizes.of(permit.endpointId));
    // One token per item: the permit took the first, the others are charged (README "Batching and coalescing").
    permitRole(permit).bucket?.charge(chunk.length - 1, clock.now());
    const task: Promise<void> = sendRequest(group, permit, chunk).then((retry) => {
      inflight.delete(task);
      queue.push(...retry);
    });
    inflight.add(task);
  }
}

/** Sends `chunk` as one request on `permit`, settles what is final and returns the items to send again. */
async function sendRequest(group: Group, permit: HttpRequestPermit, chunk: readonly BatchItem[]): Promise<BatchItem[]> {
  const { pool, options, requestClass } = group;
  const { clock, events } = pool;
  const { endpointId } = permit;
  const started = clock.now();
  const slots: BatchSlot[] = chunk.map((item) => ({ id: pool.nextId(), method: item.method, sentTransactionId: item.sentTransactionId, integrity: item.integrity }));
  // One item goes as a plain request: every server reads that, and some unwrap batches of one.
  const body = chunk.length === 1 ? chunk[0]!.body(slots[0]!.id) : `[${chunk.map((item, i) => item.body(slots[i]!.id)).join(',')}]`;
  const base = () => ({ atMs: clock.now(), endpointId, kind: group.kind, method: 'batch', attempt: Math.max(...chunk.map((item) => item.tries + 1)) });
  if (events.has('attempt')) events.emit('attempt', base());
  const control = new AttemptControl(pool, permitRole(permit), permit.deadlineMs, started, options.signal);
  let attribution;
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
    return [...chunk];
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
  const retry: BatchItem[] = [];
  let delayMs = 0;
  chunk.forEach((item, i) => {
    const outcome = attribution.outcomes[i]!;
    item.tries++;
    if (outcome.ok) {
      settle(group, item, { ok: true, result: outcome.result, endpointId });
      return;
    }
    item.attempts.push({ endpointId, cause: outcome.cause, dispatch: outcome.dispatch, status: outcome.status, rpcCode: outcome.rpcCode, durationMs: latencyMs });
    const failure: AttemptFailure = { ...outcome, endpointId, transportError: attribution.transportError };
    if (outcome.cause === 'aborted') {
      settle(group, item, failWhileWaiting(undefined, item, pool.closedError()));
      return;
    }
    const retryClass = itemRetryClass(attribution.whole, item.retryClass, requestClass);
    const decision = evaluate(pool, failure, retryClass, item.tries, group.deadlineMs);
    const timeoutMs = group.deadlineMs - group.startedAt;
    if (!decision.retry) {
      // The send rule of the request holds for every item in it: the error says it may have been processed.
      settle(group, item, finalError(decision.reason, failure, { ...item, retryClass }, endpointId, timeoutMs));
      return;
    }
    if (!pool.budgetOf(group.kind).tryRetry(clock.now())) {
      settle(group, item, finalError('budget-exhausted', failure, item, endpointId, timeoutMs));
      return;
    }
    item.last = failure;
    delayMs = Math.max(delayMs, decision.delayMs);
    retry.push(item);
  });
  if (retry.length > 0) {
    group.failed.add(endpointId);
    // Failing over is immediate; an endpoint that failed these items is used again only after the backoff.
    group.avoid = { endpoints: group.failed, untilMs: clock.now() + delayMs };
  }
  return retry;
}
