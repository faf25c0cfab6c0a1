/**
 * Empty answers a session's floor proves wrong (README "Sessions", eRPC's `retryEmpty`,
 * dshackle's `not_empty`, MetaMask's `retryOnEmpty` — but only where the data is known to
 * exist): a receipt or transaction the session has seen included, a block at or below its
 * floor, a signature status it has seen. A node that answers `null` for those has not caught
 * up (or lost them): the session asks again. Everything else empty is an answer. Pure rules
 * plus {@link SeenItems}, the bounded memory of what the session saw included.
 */
import type { HeadKind } from '../api/request-options.js';

/** How many included transactions and signatures a session remembers (the oldest is forgotten first). */
export const SEEN_ITEMS_LIMIT = 1_024;

/** Transactions (hash) and signatures a session saw included, with the block or slot they are in. */
export class SeenItems {
  readonly #at = new Map<string, bigint>();

  get(id: unknown): bigint | undefined {
    return typeof id === 'string' ? this.#at.get(id) : undefined;
  }

  add(id: unknown, at: bigint): void {
    if (typeof id !== 'string' || this.#at.has(id)) return;
    if (this.#at.size >= SEEN_ITEMS_LIMIT) this.#at.delete(this.#at.keys().next().value!);
    this.#at.set(id, at);
  }

  get size(): number {
    return this.#at.size;
  }
}

/** What a session knows when it judges an empty answer: its floors and what it saw included. */
export interface SessionFacts {
  floor(kind: HeadKind): bigint | undefined;
  readonly seen: SeenItems;
}

/** Where a method's data must exist: the head kind and the head it is at, when the session proves it exists. */
export interface ProvenData {
  readonly kind: HeadKind;
  readonly at: bigint;
}

interface EmptyRule {
  readonly kind: HeadKind;
  /** Where the asked-for data is, when the session proves it exists; undefined otherwise. */
  proven(params: readonly unknown[], facts: SessionFacts): bigint | undefined;
  /** Whether the answer is empty where the data must be. */
  empty(result: unknown, params: readonly unknown[], facts: SessionFacts): boolean;
}

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const isNull = (result: unknown): boolean => result === null;
const seenFirst = (params: readonly unknown[], facts: SessionFacts) => facts.seen.get(params[0]);
const signaturesOf = (params: readonly unknown[]): readonly unknown[] => (Array.isArray(params[0]) ? params[0] : []);

/** The built-in table: methods whose empty answers a floor can prove wrong (the `retryEmpty` option turns each off or on). */
const RULES: Readonly<Record<string, EmptyRule>> = {
  eth_getTransactionReceipt: { kind: 'block', proven: seenFirst, empty: isNull },
  eth_getTransactionByHash: { kind: 'block', proven: seenFirst, empty: isNull },
  eth_getBlockByNumber: {
    kind: 'block',
    proven: (params, facts) => {
      const floor = facts.floor('block');
      const block = params[0];
      if (floor === undefined || typeof block !== 'string' || !HEX_QUANTITY.test(block)) return undefined;
      const number = BigInt(block);
      return number <= floor ? number : undefined;
    },
    empty: isNull,
  },
  getTransaction: { kind: 'slot', proven: seenFirst, empty: isNull },
  getSignatureStatuses: {
    kind: 'slot',
    proven: (params, facts) => {
      let at: bigint | undefined;
      for (const signature of signaturesOf(params)) {
        const slot = facts.seen.get(signature);
        if (slot !== undefined && (at === undefined || slot > at)) at = slot;
      }
      return at;
    },
    empty: (result, params, facts) => {
      const value = (result as { readonly value?: unknown } | null)?.value;
      if (!Array.isArray(value)) return true;
      return signaturesOf(params).some((signature, i) => value[i] === null && facts.seen.get(signature) !== undefined);
    },
  },
};

/** The methods whose empty answers a session asks again (the built-in table), for the docs and the option's check. */
export const RETRY_EMPTY_METHODS: readonly string[] = Object.freeze(Object.keys(RULES));

/** Which methods retry empty answers: the table, with `option`'s per-method choices (false: none). */
export function retryEmptyMethods(option: boolean | Readonly<Record<string, boolean>> | undefined): ReadonlySet<string> {
  if (option === false) return new Set();
  const methods = new Set(RETRY_EMPTY_METHODS);
  if (typeof option === 'object') for (const [method, on] of Object.entries(option)) if (!on) methods.delete(method);
  return methods;
}

/** Where `method(params)`'s data is when the session proves it exists (and the method retries empty answers); else undefined. */
export function provenDataOf(method: string, params: readonly unknown[], facts: SessionFacts): ProvenData | undefined {
  const rule = Object.hasOwn(RULES, method) ? RULES[method] : undefined;
  const at = rule?.proven(params, facts);
  return at === undefined ? undefined : { kind: rule!.kind, at };
}

/** Whether `result` is empty where `method(params)`'s data must be. */
export function isProvenEmpty(method: string, params: readonly unknown[], result: unknown, facts: SessionFacts): boolean {
  return RULES[method]!.empty(result, params, facts);
}

const blockOf = (result: unknown): bigint | undefined => {
  const block = (result as { readonly blockNumber?: unknown } | null)?.blockNumber;
  return typeof block === 'string' && HEX_QUANTITY.test(block) ? BigInt(block) : undefined;
};

const slotOf = (value: unknown): bigint | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : typeof value === 'bigint' ? value : undefined);

const SHOWS_INCLUDED: ReadonlySet<string> = new Set(['eth_getTransactionReceipt', 'eth_getTransactionByHash', 'getTransaction', 'getSignatureStatuses']);

/** Whether answers to `method` can show something included (one set lookup: most cannot). */
export function showsIncluded(method: string): boolean {
  return SHOWS_INCLUDED.has(method);
}

/** What `result` shows included, into `seen`: a receipt's or mined transaction's hash, a Solana transaction's or status's signature. */
export function learnIncluded(method: string, params: readonly unknown[], result: unknown, seen: SeenItems): void {
  if (result === null || typeof result !== 'object') return;
  if (method === 'eth_getTransactionReceipt' || method === 'eth_getTransactionByHash') {
    const block = blockOf(result);
    if (block !== undefined) seen.add(params[0], block);
  } else if (method === 'getTransaction') {
    const slot = slotOf((result as { readonly slot?: unknown }).slot);
    if (slot !== undefined) seen.add(params[0], slot);
  } else if (method === 'getSignatureStatuses') {
    const value = (result as { readonly value?: unknown }).value;
    if (!Array.isArray(value)) return;
    signaturesOf(params).forEach((signature, i) => {
      const slot = slotOf((value[i] as { readonly slot?: unknown } | null)?.slot);
      if (slot !== undefined) seen.add(signature, slot);
    });
  }
}
