/**
 * Whether an answer is kept, and as what: the request's rule (`read-rules.ts`) judged
 * against the answer and the answering endpoint's finalized head. Pure.
 */
import type { ReadClass, RequestRule } from './read-rules.js';

export interface AnswerClass {
  readonly class: ReadClass;
  /** The block the answer depends on (unfinalized EVM entries: a reorg at or below it drops them). */
  readonly number?: number | undefined;
}

const NEVER: AnswerClass = Object.freeze({ class: 'never' });
const FINALIZED: AnswerClass = Object.freeze({ class: 'finalized' });
const REALTIME: AnswerClass = Object.freeze({ class: 'realtime' });
const UNFINALIZED: AnswerClass = Object.freeze({ class: 'unfinalized' });

/**
 * Empty answers are never kept: a node that has not seen a block yet answers `null`, `[]`
 * or `0x0` for it, and a cached empty answer would outlive the node catching up.
 */
export function isEmptyAnswer(result: unknown): boolean {
  if (result === null || result === undefined || result === '' || result === '0x' || result === '0x0') return true;
  if (Array.isArray(result)) return result.length === 0;
  return typeof result === 'object' && Object.keys(result).length === 0;
}

function quantity(value: unknown): number | undefined {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{1,13}$/.test(value) ? Number.parseInt(value, 16) : undefined;
}

/**
 * @param finalizedHead the answering endpoint's finalized block, as it said when asked with
 * the `finalized` tag; undefined when unknown (then nothing by number is finalized).
 */
export function judgeAnswer(rule: RequestRule, result: unknown, finalizedHead: number | undefined): AnswerClass {
  if (rule.rule === 'never' || isEmptyAnswer(result)) return NEVER;
  switch (rule.rule) {
    case 'immutable':
      return FINALIZED;
    case 'realtime':
    case 'finality':
      return REALTIME;
    case 'unfinalized':
      return UNFINALIZED;
    case 'at-block':
      return atBlock(rule.number, finalizedHead);
    case 'answer-block': {
      // A transaction not yet in a block (`blockNumber: null`) is pending: never kept.
      const number = quantity((result as { blockNumber?: unknown }).blockNumber);
      return number === undefined ? NEVER : atBlock(number, finalizedHead);
    }
  }
}

function atBlock(number: number, finalizedHead: number | undefined): AnswerClass {
  return finalizedHead !== undefined && number <= finalizedHead ? FINALIZED : { class: 'unfinalized', number };
}

/** The number and hash of an EVM block answer (a reorg shows as another hash at a number); undefined for other answers. */
export function blockIdentityOf(result: unknown): { readonly number: number; readonly hash: string } | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { number, hash } = result as { number?: unknown; hash?: unknown };
  const n = quantity(number);
  return n === undefined || typeof hash !== 'string' ? undefined : { number: n, hash };
}

