/**
 * Provider limits on `eth_getLogs` (and filters) by block range or by result count, read
 * from the JSON-RPC error a provider answers with. Pure. Real texts (see
 * `test/http/classify-real-errors.test.ts`):
 * - Alchemy (-32600/-32602): "You can make eth_getLogs requests with up to a 500 block range.
 *   Based on your parameters, this block range should work: [0x123c9b2, 0x123cba5]";
 *   "Log response size exceeded. … this block range should work: [0x0, 0x87fe9]".
 * - Infura: -32005 "query returned more than 10000 results" (sometimes with
 *   `data: { from, to }`, the range that would work); -32602 "range 1000000 exceeds limit of 10000".
 * - QuickNode: HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range".
 * - Others: "block range is too wide", "block range too large", "block range too high",
 *   "exceed maximum block range: 1000" (geth forks, -32000), Tenderly's
 *   "range 9009594 is bigger than range limit 2000" in `data.payload`.
 */
import type { JsonRpcErrorObject } from './envelope.js';

/** A provider's `eth_getLogs` limit, read from its error. */
export interface LogRangeLimit {
  /** `block-range`: the range itself is too wide; `result-count`: too many logs (or too large a response) in it. */
  readonly kind: 'block-range' | 'result-count';
  /** The widest range (in blocks, both ends included) the provider said it accepts, when it said so. */
  readonly maxBlockRange?: bigint;
  /** The range the provider suggested instead (both ends included), when it gave one. */
  readonly suggestedRange?: { readonly fromBlock: bigint; readonly toBlock: bigint };
}

/** Codes providers put on these limits; any other code is the node's answer whatever its words. */
const LOG_LIMIT_CODES: ReadonlySet<number> = new Set([-32000, -32005, -32600, -32602, -32603, -32614]);

const RESULT_COUNT = /query returned more than \d+ results|log response size exceeded|response size (?:exceeded|is larger)|too many (?:logs|results)/i;
const BLOCK_RANGE =
  /block range (?:is )?too (?:wide|large|high|big)|exceeds? maximum block range|eth_getLogs (?:and eth_newFilter )?(?:is|are) limited to a|up to a [\d,]+ block range|range \d+ exceeds limit of|bigger than range limit|requested too many blocks|block range (?:limit|exceeded)|max(?:imum)? block range/i;
const LIMIT =
  /(?:up to a|limited to a|maximum block range:?|exceeds? limit of|range limit|maximum is set to|max(?:imum)? block range (?:is|of)?)\s*([\d,]{1,12})/i;
const SUGGESTED = /\[\s*(0x[0-9a-f]{1,16})\s*,\s*(0x[0-9a-f]{1,16})\s*\]/i;
const QUANTITY = /^0x[0-9a-f]{1,16}$/i;

/** Only the head of a message is read: wording sits at the start. */
const MAX_SCAN_CHARS = 1024;

function textsOf(error: JsonRpcErrorObject): string[] {
  const texts = [error.message.slice(0, MAX_SCAN_CHARS)];
  const data = error.data;
  if (typeof data === 'string') texts.push(data.slice(0, MAX_SCAN_CHARS));
  else if (typeof data === 'object' && data !== null) {
    for (const key of ['payload', 'message', 'details']) {
      const value = (data as Record<string, unknown>)[key];
      if (typeof value === 'string') texts.push(value.slice(0, MAX_SCAN_CHARS));
    }
  }
  return texts;
}

function suggestionOf(texts: readonly string[], data: unknown): LogRangeLimit['suggestedRange'] {
  for (const text of texts) {
    const match = SUGGESTED.exec(text);
    if (match?.[1] !== undefined && match[2] !== undefined) return ordered(BigInt(match[1]), BigInt(match[2]));
  }
  // Infura puts the range that would work in `data: { from, to }`.
  if (typeof data === 'object' && data !== null) {
    const { from, to } = data as { from?: unknown; to?: unknown };
    if (typeof from === 'string' && typeof to === 'string' && QUANTITY.test(from) && QUANTITY.test(to)) return ordered(BigInt(from), BigInt(to));
  }
  return undefined;
}

function ordered(fromBlock: bigint, toBlock: bigint): LogRangeLimit['suggestedRange'] {
  return fromBlock <= toBlock ? { fromBlock, toBlock } : undefined;
}

/** The `eth_getLogs` limit an error reports, or `undefined` when it is no such limit. */
export function readLogRangeLimit(error: JsonRpcErrorObject): LogRangeLimit | undefined {
  if (!LOG_LIMIT_CODES.has(error.code)) return undefined;
  const texts = textsOf(error);
  const kind = texts.some((t) => BLOCK_RANGE.test(t)) ? 'block-range' : texts.some((t) => RESULT_COUNT.test(t)) ? 'result-count' : undefined;
  if (kind === undefined) return undefined;
  let maxBlockRange: bigint | undefined;
  if (kind === 'block-range') {
    for (const text of texts) {
      const digits = LIMIT.exec(text)?.[1]?.replaceAll(',', '');
      if (digits !== undefined && digits.length > 0 && BigInt(digits) > 0n) {
        maxBlockRange = BigInt(digits);
        break;
      }
    }
  }
  const suggestedRange = suggestionOf(texts, error.data);
  return {
    kind,
    ...(maxBlockRange === undefined ? {} : { maxBlockRange }),
    ...(suggestedRange === undefined ? {} : { suggestedRange }),
  };
}
