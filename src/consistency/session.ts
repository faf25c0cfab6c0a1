/**
 * A session (README "Sessions"): a view of a pool that never reads older than what it has
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
import { provenHeadOf } from './answer-floor.js';
import { withMinContextSlot } from './min-context-slot.js';

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

export class PoolSession implements RpcRequester {
  readonly #pool: SessionPool;
  #slot: bigint | undefined;
  #block: bigint | undefined;

  constructor(pool: SessionPool) {
    this.#pool = pool;
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
    // One `then`, no async frame of its own: a session read costs about one callback more than a pool read.
    return this.#pool.request(method, this.#withFloor(method, params, options), options).then((result) => {
      this.#learn(method, params, result);
      return result;
    });
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

  #withFloor(method: string, params: readonly unknown[], options: SessionRequestOptions): readonly unknown[] {
    const slot = this.#slot;
    return slot === undefined || options.floor === false ? params : withMinContextSlot(method, params, slot);
  }

  #learn(method: string, params: readonly unknown[], result: unknown): void {
    const proven = provenHeadOf(method, params, result);
    if (proven !== undefined) this.raiseFloor(proven.kind, proven.value);
  }
}
