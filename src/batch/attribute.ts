/**
 * Per-item attribution of one JSON-RPC batch answer (pure). Each item gets its own result
 * or classified failure, matched by id — never by position — with the PATH gateway's
 * batch-response fixes for servers that answer a batch badly:
 *
 * - a transport error, a non-2xx status or a body that is no JSON at all: the same
 *   outcome for every item (the request as a whole failed);
 * - a single error object with `id: null` (a gateway's rate limit, "batch too large"):
 *   that error for every item;
 * - a single object whose id is one item's (a server that unwraps a batch of one, or
 *   answers only the first): that item's answer; the others are missing;
 * - an array: each item's element by id; an item with no element (a wrong length, a
 *   missing id) is `batch-missing-item`, one answered twice `batch-duplicate-id`; both
 *   ambiguous, since the node read the batch and may have acted on the item;
 * - anything else (a result object with no matching id, a number): `batch-not-array`.
 */
import { classifyBatchElement, classifyOutcome, failureOf, type RawResponse } from '../http/classify.js';
import type { RawOutcome } from '../http/executor.js';
import type { AbortReason, ClassifiedOutcome, ClassifyContext } from '../http/outcome.js';
import { parseJsonExact } from '../jsonrpc/exact-json.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';
import type { IntegrityAsk } from '../integrity/types.js';

/** One item as it was sent: its JSON-RPC id in this request, its method and a send's id. */
export interface BatchSlot {
  readonly id: number;
  readonly method: string;
  readonly sentTransactionId?: SentTransactionId | undefined;
  readonly integrity?: IntegrityAsk | undefined;
}

export interface BatchAttribution {
  /** True when the request failed (or was answered) as a whole: every item has the same outcome. */
  readonly whole: boolean;
  /** One outcome per slot, in slot order. */
  readonly outcomes: readonly ClassifiedOutcome[];
}

/** What attribution needs besides the answer. */
export interface AttributeContext {
  readonly abortReason: AbortReason | undefined;
  /** Whether the answering endpoint is held to the pool's `expectedChain`. @default true */
  readonly chainVerified?: boolean | undefined;
  readonly wallNowMs: () => number;
}

/** The id no item has: a whole-request answer with an id is never taken for an item's. */
const WHOLE_REQUEST_ID = -1;

function contextOf(slot: BatchSlot | undefined, context: AttributeContext): ClassifyContext {
  return {
    method: slot?.method ?? 'batch',
    id: slot?.id ?? WHOLE_REQUEST_ID,
    abortReason: context.abortReason,
    sentTransactionId: slot?.sentTransactionId,
    integrity: slot?.integrity,
    chainVerified: context.chainVerified,
    get wallNowMs() {
      return context.wallNowMs();
    },
  };
}

const whole = (slots: readonly BatchSlot[], outcome: ClassifiedOutcome): BatchAttribution => ({ whole: true, outcomes: slots.map(() => outcome) });

function idOf(element: unknown): unknown {
  return typeof element === 'object' && element !== null && !Array.isArray(element) ? (element as Record<string, unknown>)['id'] : undefined;
}

/** Our ids are integers; a server may echo them as strings. */
function idKey(id: unknown): number | undefined {
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  if (typeof id === 'string' && /^\d+$/.test(id)) return Number(id);
  return undefined;
}

/** Attributes one raw outcome of a request that carried `slots` (a batch, or a single call when one slot). */
export function attributeBatch(raw: RawOutcome, slots: readonly BatchSlot[], context: AttributeContext): BatchAttribution {
  if (raw.type === 'error' || raw.status < 200 || raw.status >= 300) return whole(slots, classifyOutcome(raw, contextOf(undefined, context)));
  let parsed: unknown;
  try {
    const text = raw.body.charCodeAt(0) === 0xfeff ? raw.body.slice(1) : raw.body;
    parsed = parseJsonExact(text);
  } catch {
    // Empty, HTML, cut off, not JSON: the single-call classifier names it.
    return whole(slots, classifyOutcome(raw, contextOf(undefined, context)));
  }
  if (!Array.isArray(parsed)) return attributeObject(parsed, raw, slots, context);
  // An array holding only an error without an id answers the request as a whole.
  if (parsed.length === 1 && slots.length > 1 && isIdlessError(parsed[0])) return whole(slots, classifyBatchElement(parsed[0], raw, contextOf(undefined, context)));
  return { whole: false, outcomes: attributeArray(parsed, raw, slots, context) };
}

function isIdlessError(element: unknown): boolean {
  const id = idOf(element);
  return (id === null || id === undefined) && typeof element === 'object' && element !== null && Object.hasOwn(element, 'error');
}

function attributeObject(parsed: unknown, raw: RawResponse, slots: readonly BatchSlot[], context: AttributeContext): BatchAttribution {
  const key = idKey(idOf(parsed));
  const slot = key === undefined ? undefined : slots.find((candidate) => candidate.id === key);
  if (slot !== undefined) {
    const missing = failureOf('batch-missing-item', { status: raw.status });
    return { whole: false, outcomes: slots.map((each) => (each === slot ? classifyBatchElement(parsed, raw, contextOf(each, context)) : missing)) };
  }
  if (isIdlessError(parsed)) return whole(slots, classifyBatchElement(parsed, raw, contextOf(undefined, context)));
  return whole(slots, failureOf('batch-not-array', { status: raw.status }));
}

function attributeArray(elements: readonly unknown[], raw: RawResponse, slots: readonly BatchSlot[], context: AttributeContext): ClassifiedOutcome[] {
  const byId = new Map<number, unknown>();
  const duplicates = new Set<number>();
  for (const element of elements) {
    const key = idKey(idOf(element));
    if (key === undefined) continue;
    if (byId.has(key)) duplicates.add(key);
    else byId.set(key, element);
  }
  return slots.map((slot) => {
    if (duplicates.has(slot.id)) return failureOf('batch-duplicate-id', { status: raw.status });
    if (!byId.has(slot.id)) return failureOf('batch-missing-item', { status: raw.status });
    return classifyBatchElement(byId.get(slot.id), raw, contextOf(slot, context));
  });
}
