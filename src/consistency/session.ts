/**
 * A session (docs/reads.md "Sessions"): a view of a pool that never reads older than what it has
 * already seen. It keeps a floor per head kind — the highest Solana slot (`context.slot`,
 * `getSlot`) and EVM block (head-bearing answers, receipts, fetched blocks) its own answers
 * have shown. On Solana the slot floor goes as `minContextSlot` to the methods that take it,
 * so a node behind refuses (-32016) and the pool asks another at once, with no penalty. On
 * EVM a read the block floor constrains (`block-floor.ts`) goes as `minHead`: only endpoints
 * known to have reached the floor take it. When none has, the read waits a block at a time
 * inside its deadline. An empty answer the session proves wrong (`empty-answers.ts`: a
 * receipt it saw, a block below its floor) is asked of another operator, then again a block
 * later. `pin()` gives one operation one block.
 *
 * A decorator over the pool, as @solana/kit's transport decorators are: the pool's path is
 * the same with or without sessions (no stage, no per-call check), and a session holds two
 * numbers and, once it saw something included, a bounded map — no timer, no socket, nothing
 * to close; a dropped session leaves nothing behind. It has no `batch`: clients then send
 * batched calls one by one, each raising the floor.
 */
import type { HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions, RpcRequester } from '../api/request-options.js';
import type { MethodClassification } from '../config/types.js';
import { sleep, type Clock } from '../clock.js';
import { isTransportError } from '../errors/transport-error.js';
import { provenHeadOf } from './answer-floor.js';
import { blockNeedOf } from './block-floor.js';
import { isProvenEmpty, learnIncluded, provenDataOf, SeenItems, showsIncluded, type ProvenData, type SessionFacts } from './empty-answers.js';
import { withMinContextSlot } from './min-context-slot.js';
import { PinnedOperation, type PinOptions } from './pinned-operation.js';
import type { SessionRequestOptions } from './session-options.js';

export type { SessionRequestOptions } from './session-options.js';

/** How long a read that no endpoint could serve at the floor waits before asking again on Solana, in ms: about one slot. */
export const SLOT_WAIT_MS = 400;

/** The `minHead` no endpoint is known to have reached, when that is why the pool refused the call. */
const unreachedHeadOf = (error: unknown): bigint | undefined => {
  const minHead = isTransportError(error) && error.code === 'NO_ENDPOINT' ? (error.context as { minHead?: string }).minHead : undefined;
  return minHead === undefined ? undefined : BigInt(minHead);
};

/** Every endpoint asked was behind the floor: the node's -32016, or the pool knows none at the call's `minHead`. */
const isBelowFloor = (error: unknown): boolean =>
  (isTransportError(error) && error.code === 'RPC_ERROR' && (error.context as { rpcCode?: number }).rpcCode === -32016) || unreachedHeadOf(error) !== undefined;

/** What a session needs of its pool: a requester that says which endpoint answered, for expiry proofs. */
type SessionPool = RpcRequester & Required<Pick<RpcRequester, 'requestWithOrigin' | 'classifyMethod' | 'trustedHead'>>;

/** What a session's waits need of its pool. */
export interface SessionHost {
  readonly clock: Clock;
  /** The call's time budget, in ms: its `timeoutMs`, else the pool's default for the method. */
  timeoutMsOf(method: string, options: RequestOptions): number;
  /** The methods whose empty answers are asked again when the session proves the data exists (`retryEmpty`). */
  readonly retryEmpty: ReadonlySet<string>;
  /** About one block, in ms: the pace of asking again (Solana's slot wait is {@link SLOT_WAIT_MS}). */
  readonly blockTimeMs: number;
  /** Asks the endpoints serving `method` that are not known at `minHead` for their heads; resolves whether one is now. */
  askHeads(method: string, minHead: bigint, timeoutMs: number, signal: AbortSignal | undefined): Promise<boolean>;
}

const NOTHING_SEEN = new SeenItems();

export class PoolSession implements RpcRequester, SessionFacts {
  readonly #pool: SessionPool;
  readonly #host: SessionHost;
  #slot: bigint | undefined;
  #block: bigint | undefined;
  #seen: SeenItems | undefined;

  /** @internal Made by `pool.session()`. */
  constructor(pool: SessionPool, host: SessionHost) {
    this.#pool = pool;
    this.#host = host;
  }

  /** The session's floor of `kind`: the highest slot or block its answers have shown; undefined before any. */
  floor(kind: HeadKind): bigint | undefined {
    return kind === 'slot' ? this.#slot : this.#block;
  }

  /** Raises the floor of `kind` to `value` (never lowers it): e.g. the slot of a transaction the app saw confirmed elsewhere. */
  raiseFloor(kind: HeadKind, value: bigint): void {
    if (kind === 'slot') {
      if (this.#slot === undefined || value > this.#slot) this.#slot = value;
    } else if (this.#block === undefined || value > this.#block) this.#block = value;
  }

  /** @internal What the session saw included (receipts, transactions, signature statuses): what proves an empty answer wrong. */
  get seen(): SeenItems {
    return this.#seen ?? NOTHING_SEEN;
  }

  /**
   * One operation's view (EVM): every read of `latest` (or with no block) is sent at one block
   * — by default the head an `eth_blockNumber` through this session answers first, so never
   * below the floor — and `eth_blockNumber` answers that block. Pass it where the session goes.
   */
  pin(options: PinOptions = {}): PinnedOperation {
    return new PinnedOperation(this, options);
  }

  request(method: string, params: readonly unknown[] = [], options: SessionRequestOptions = {}): Promise<unknown> {
    const sent = this.#withFloor(method, params, options);
    const asked = this.#atFloor(method, params, options);
    // One `then`, no async frame of its own: a session read costs about one callback more than a pool read.
    let answer = this.#pool.request(method, sent, asked).then((result) => this.#took(method, params, result));
    if (sent !== params || asked !== options) {
      const startedMs = this.#host.clock.now();
      answer = answer.catch((error: unknown) => this.#untilReached(method, params, options, startedMs, error));
    }
    // What the session knew when it asked proves the data exists: an empty answer is asked again.
    const proven = this.#host.retryEmpty.has(method) && options.floor !== false ? provenDataOf(method, params, this) : undefined;
    if (proven === undefined) return answer;
    const startedMs = this.#host.clock.now();
    return answer.then((result) => (isProvenEmpty(method, params, result, this) ? this.#readExisting(method, params, options, proven, startedMs, result) : result));
  }

  async requestWithOrigin(method: string, params: readonly unknown[] = [], options: OriginRequestOptions & SessionRequestOptions = {}): Promise<OriginatedAnswer> {
    const answer = await this.#pool.requestWithOrigin(method, this.#withFloor(method, params, options), this.#atFloor(method, params, options));
    this.#took(method, params, answer.value);
    return answer;
  }

  classifyMethod(method: string): MethodClassification {
    return this.#pool.classifyMethod(method);
  }

  trustedHead(kind: HeadKind): bigint | undefined {
    return this.#pool.trustedHead(kind);
  }

  /**
   * Every endpoint asked was behind the floor, or none is known to have reached it. The heads
   * the pool knows may just be old: the endpoints behind are asked for theirs, and when one
   * has reached it the read goes again at once; else a block later, until the call's time is
   * up — timers of this call only, never of the session.
   */
  async #untilReached(method: string, params: readonly unknown[], options: SessionRequestOptions, startedMs: number, error: unknown): Promise<unknown> {
    const { clock } = this.#host;
    const deadlineMs = startedMs + this.#host.timeoutMsOf(method, options);
    let last = error;
    while (isBelowFloor(last)) {
      if (!(await this.#reachedOrWaited(method, unreachedHeadOf(last), deadlineMs, options.signal))) break;
      try {
        const result = await this.#pool.request(method, this.#withFloor(method, params, options), { ...this.#atFloor(method, params, options), timeoutMs: deadlineMs - clock.now() });
        return this.#took(method, params, result);
      } catch (next) {
        last = next;
      }
    }
    throw last;
  }

  /** Asks the endpoints behind `minHead` for their heads (when the pool's refusal named one); when none has reached it, waits a block. False: no time left to ask again. */
  async #reachedOrWaited(method: string, minHead: bigint | undefined, deadlineMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    const { clock } = this.#host;
    if (minHead !== undefined && (await this.#host.askHeads(method, minHead, deadlineMs - clock.now(), signal))) return clock.now() < deadlineMs;
    const waitMs = this.#waitMs(method);
    if (deadlineMs - clock.now() - waitMs <= 0) return false;
    await sleep(clock, waitMs, signal);
    return true;
  }

  /**
   * A read of data the session proves exists: asked of endpoints at or past where it is, of
   * another operator after each empty answer, and once every operator has answered empty (or
   * none has reached it) again a block later — inside the call's deadline. An empty answer is
   * no failure: nobody is penalised. At the deadline the last empty answer is the answer.
   */
  async #readExisting(method: string, params: readonly unknown[], options: SessionRequestOptions, proven: ProvenData, startedMs: number, empty: unknown): Promise<unknown> {
    const { clock } = this.#host;
    const deadlineMs = startedMs + this.#host.timeoutMsOf(method, options);
    const emptyFrom: string[] = [];
    let last = empty;
    for (;;) {
      const timeoutMs = deadlineMs - clock.now();
      if (timeoutMs <= 0) return last;
      try {
        const asked = { ...options, timeoutMs, minHead: proven.at, excludeOperators: emptyFrom };
        const answer = await this.#pool.requestWithOrigin(method, this.#withFloor(method, params, options), asked);
        const result = this.#took(method, params, answer.value);
        if (!isProvenEmpty(method, params, result, this)) return result;
        last = result;
        emptyFrom.push(answer.operator);
        continue;
      } catch (error) {
        // Every operator at the data's head answered empty, or none has reached it: a block later, if there is time.
        if (!isTransportError(error) || error.code === 'ABORTED' || error.code === 'POOL_CLOSED') throw error;
        // Asking again was extra: an error of its own leaves the first answer standing.
        if (error.code !== 'NO_ENDPOINT' && !isBelowFloor(error)) return last;
        // Every operator at the data's head answered empty (start over), or none has reached it yet.
        const unreached = emptyFrom.length === 0 ? unreachedHeadOf(error) : undefined;
        emptyFrom.length = 0;
        if (!(await this.#reachedOrWaited(method, unreached, deadlineMs, options.signal))) return last;
      }
    }
  }

  #waitMs(method: string): number {
    return method.startsWith('eth_') ? this.#host.blockTimeMs : SLOT_WAIT_MS;
  }

  #withFloor(method: string, params: readonly unknown[], options: SessionRequestOptions): readonly unknown[] {
    const slot = this.#slot;
    return slot === undefined || options.floor === false ? params : withMinContextSlot(method, params, slot);
  }

  /** The call's options with the head an endpoint needs to serve it at the block floor (`minHead`, not shared with calls outside it); the same object when the floor does not constrain it. */
  #atFloor<O extends SessionRequestOptions>(method: string, params: readonly unknown[], options: O): O {
    const block = this.#block;
    if (block === undefined || options.floor === false) return options;
    const need = blockNeedOf(method, params, block);
    if (need === undefined || (options.minHead !== undefined && options.minHead >= need)) return options;
    return { ...options, minHead: need, coalesce: false };
  }

  #took(method: string, params: readonly unknown[], result: unknown): unknown {
    const proven = provenHeadOf(method, params, result);
    if (proven !== undefined) this.raiseFloor(proven.kind, proven.value);
    if (result !== null && typeof result === 'object' && showsIncluded(method)) learnIncluded(method, params, result, (this.#seen ??= new SeenItems()));
    return result;
  }
}
