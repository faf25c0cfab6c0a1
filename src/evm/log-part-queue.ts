import { TransportError } from '../errors/transport-error.js';
import type { LogRangeLimit } from '../jsonrpc/log-range-limit.js';
import { firstPart, partCount, splitRefusedRange, type BlockRange } from './log-ranges.js';

/**
 * What is left to ask of one `getLogs` call: segments of the range, cut into parts at the
 * learned span only when a part is asked, and a bound on the requests the call may send.
 * Pure (no I/O, no clock). The bound is checked before every part against what the parts
 * still needed would add, so a range that cannot fit (2^40 blocks at a provider's limit of
 * 10) fails at once, before a request or a list of parts is made for it.
 */
export class LogPartQueue {
  /** Segments not asked yet; the next part is cut from the first. */
  readonly #segments: BlockRange[];
  readonly #maxParts: number;
  #span: bigint | undefined;
  #sent: number;
  /** Parts the segments hold at the current span (kept in step, recounted when the span narrows). */
  #needed = 0n;

  /**
   * @param range the whole range.
   * @param span the widest part to ask (a known limit), undefined for the whole range at once.
   * @param maxParts the most `eth_getLogs` requests the call may send, refused ones included.
   * @param sent requests the call already sent for this range (the one query with tags).
   */
  constructor(range: BlockRange, span: bigint | undefined, maxParts: number, sent = 0) {
    this.#segments = [range];
    this.#span = span;
    this.#maxParts = maxParts;
    this.#sent = sent;
    this.#needed = partCount(range, span);
  }

  /** The widest span known to work, if any. */
  get span(): bigint | undefined {
    return this.#span;
  }

  /**
   * The next part to ask, or undefined when nothing is left (parts in flight may still put
   * some back). Throws `LOG_RANGE_LIMIT` when the parts still needed would take the call past
   * `maxParts` requests.
   */
  take(): BlockRange | undefined {
    const segment = this.#segments[0];
    if (segment === undefined) return undefined;
    if (BigInt(this.#sent) + this.#needed > BigInt(this.#maxParts)) throw this.#tooManyParts();
    const { part, rest } = firstPart(segment, this.#span);
    if (rest === undefined) this.#segments.shift();
    else this.#segments[0] = rest;
    this.#needed -= 1n;
    this.#sent++;
    return part;
  }

  /**
   * `part` was refused with `limit` (the node's error is `cause`): what replaces it is asked
   * next. Throws `LOG_RANGE_LIMIT` when `part` is a single block: nothing narrower exists.
   */
  refused(part: BlockRange, limit: LogRangeLimit, cause: unknown): void {
    const split = splitRefusedRange(part, limit, this.#span);
    if (split === undefined) {
      throw new TransportError('LOG_RANGE_LIMIT', `eth_getLogs: the provider refused block ${part.fromBlock} alone (${limit.kind} limit); nothing narrower can be asked`, {
        context: { reason: 'single-block', fromBlock: String(part.fromBlock), toBlock: String(part.toBlock), maxParts: this.#maxParts },
        method: 'eth_getLogs',
        cause,
      });
    }
    // In chain order: parts are asked from the lowest block up, whichever sibling was refused first.
    const at = this.#segments.findIndex((segment) => segment.fromBlock > part.fromBlock);
    this.#segments.splice(at === -1 ? this.#segments.length : at, 0, ...split.parts);
    if (split.maxSpan !== this.#span) {
      this.#span = split.maxSpan;
      this.#needed = 0n;
      for (const segment of this.#segments) this.#needed += partCount(segment, this.#span);
    } else {
      for (const segment of split.parts) this.#needed += partCount(segment, this.#span);
    }
  }

  #tooManyParts(): TransportError {
    const first = this.#segments[0]!;
    let toBlock = first.toBlock;
    for (const segment of this.#segments) if (segment.toBlock > toBlock) toBlock = segment.toBlock;
    const span = this.#span === undefined ? 'the whole range' : `${this.#span} blocks`;
    return new TransportError(
      'LOG_RANGE_LIMIT',
      `eth_getLogs: blocks ${first.fromBlock}..${toBlock} need ${this.#needed} more requests at ${span} each, past maxParts (${this.#maxParts}, ${this.#sent} sent)`,
      {
        context: {
          reason: 'max-parts',
          fromBlock: String(first.fromBlock),
          toBlock: String(toBlock),
          maxParts: this.#maxParts,
          ...(this.#span === undefined ? {} : { maxBlockRange: String(this.#span) }),
        },
        method: 'eth_getLogs',
      },
    );
  }
}
