/**
 * A session (docs/reads.md "Sessions"): a view of a pool that never reads older than what it has
 * already seen. It keeps a floor per head kind — the highest Solana slot (`context.slot`,
 * `getSlot`) and EVM block (head-bearing answers, receipts, fetched blocks) its own answers
 * have shown — and sends the slot floor as `minContextSlot` to the Solana methods that take
 * it, so a node behind the floor refuses (-32016) and the pool asks another endpoint at once,
 * with no penalty. Its sends prove what they prove through the same reads: `sendAndConfirm`
 * and `waitForSignature` poll statuses whose `context.slot` raises the floor.
 *
 * A decorator over the pool, as @solana/kit's transport decorators are: the pool's path is
 * the same with or without sessions (no stage, no per-call check), and a session holds two
 * numbers — no timer, no socket, nothing to close; a dropped session leaves nothing behind.
 * It has no `batch`: clients then send batched calls one by one, each raising the floor.
 */
import type { HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions, RpcRequester } from '../api/request-options.js';
import type { MethodClassification } from '../config/types.js';
import { sleep, type Clock } from '../clock.js';
import { isTransportError } from '../errors/transport-error.js';
import { provenHeadOf } from './answer-floor.js';
import { withMinContextSlot } from './min-context-slot.js';

/** How long a read that no endpoint could serve at the floor waits before asking again, in ms: about one Solana slot. */
export const SLOT_WAIT_MS = 400;

/** The node's "minimum context slot has not been reached": every endpoint asked was behind. */
const isBelowFloor = (error: unknown): boolean => isTransportError(error) && error.code === 'RPC_ERROR' && (error.context as { rpcCode?: number }).rpcCode === -32016;

/** Options of one call through a session. */
export interface SessionRequestOptions extends RequestOptions {
  /**
   * `false`: this call does not send the session's floor (`minContextSlot`), e.g. a read that
   * may be older than what the session saw. Its answer still raises the floor. @default true
   */
  readonly floor?: boolean | undefined;
}

/** What a session needs of its pool: a requester that says which endpoint answered, for expiry proofs. */
type SessionPool = RpcRequester & Required<Pick<RpcRequester, 'requestWithOrigin' | 'classifyMethod' | 'trustedHead'>>;

/** What a session's wait needs of its pool: the clock, and a call's time budget. */
export interface SessionHost {
  readonly clock: Clock;
  /** The call's time budget, in ms: its `timeoutMs`, else the pool's default for the method. */
  timeoutMsOf(method: string, options: RequestOptions): number;
}

export class PoolSession implements RpcRequester {
  readonly #pool: SessionPool;
  readonly #host: SessionHost;
  #slot: bigint | undefined;
  #block: bigint | undefined;

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

  request(method: string, params: readonly unknown[] = [], options: SessionRequestOptions = {}): Promise<unknown> {
    const sent = this.#withFloor(method, params, options);
    // One `then`, no async frame of its own: a session read costs about one callback more than a pool read.
    const answer = this.#pool.request(method, sent, options).then((result) => {
      this.#learn(method, params, result);
      return result;
    });
    if (sent === params) return answer;
    const startedMs = this.#host.clock.now();
    return answer.catch((error: unknown) => this.#untilReached(method, params, options, startedMs, error));
  }

  async requestWithOrigin(method: string, params: readonly unknown[] = [], options: OriginRequestOptions & SessionRequestOptions = {}): Promise<OriginatedAnswer> {
    const answer = await this.#pool.requestWithOrigin(method, this.#withFloor(method, params, options), options);
    this.#learn(method, params, answer.value);
    return answer;
  }

  classifyMethod(method: string): MethodClassification {
    return this.#pool.classifyMethod(method);
  }

  trustedHead(kind: HeadKind): bigint | undefined {
    return this.#pool.trustedHead(kind);
  }

  /**
   * Every endpoint asked was behind the floor (-32016 from each): none has reached it yet. Ask
   * again once a slot later ({@link SLOT_WAIT_MS}), until one has or the call's time is up —
   * a timer of this call only, never of the session.
   */
  async #untilReached(method: string, params: readonly unknown[], options: SessionRequestOptions, startedMs: number, error: unknown): Promise<unknown> {
    const { clock } = this.#host;
    const deadlineMs = startedMs + this.#host.timeoutMsOf(method, options);
    let last = error;
    while (isBelowFloor(last)) {
      const leftMs = deadlineMs - clock.now() - SLOT_WAIT_MS;
      if (leftMs <= 0) break;
      await sleep(clock, SLOT_WAIT_MS, options.signal);
      try {
        const result = await this.#pool.request(method, this.#withFloor(method, params, options), { ...options, timeoutMs: leftMs });
        this.#learn(method, params, result);
        return result;
      } catch (next) {
        last = next;
      }
    }
    throw last;
  }

  #withFloor(method: string, params: readonly unknown[], options: SessionRequestOptions): readonly unknown[] {
    const slot = this.#slot;
    return slot === undefined || options.floor === false ? params : withMinContextSlot(method, params, slot);
  }

  #learn(method: string, params: readonly unknown[], result: unknown): void {
    const proven = provenHeadOf(method, params, result);
    if (proven !== undefined) this.raiseFloor(proven.kind, proven.value);
  }
}
