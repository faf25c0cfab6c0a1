/**
 * One operation of a session pinned to one block (EVM; MetaMask's block reference rewrite):
 * every read of `latest` — or with its block omitted — is sent at that block, by number or
 * (state reads, EIP-1898) by hash, and `eth_blockNumber` answers it. So the reads of one
 * operation see one state even when they reach different nodes, and through the session none
 * of them goes to a node below it. The block is fixed on the first read that needs it: the
 * `block` given, else the head the session's `eth_blockNumber` answers (never below its floor).
 */
import type { HeadKind, RpcRequester } from '../api/request-options.js';
import type { MethodClassification } from '../config/types.js';
import { TransportError } from '../errors/transport-error.js';
import { pinnedParams, readsLatest, type BlockRef } from './block-pin.js';
import type { SessionRequestOptions } from './session-options.js';

/** What an operation reads through: its session. */
type Session = RpcRequester & Required<Pick<RpcRequester, 'classifyMethod' | 'trustedHead'>>;

/** Options of `session.pin()`. */
export interface PinOptions {
  /** Pin to this block. @default the head the session's `eth_blockNumber` answers on the first read that needs one */
  readonly block?: bigint | undefined;
  /** `'hash'`: state reads go at the block's hash (EIP-1898), so a node that reorged away from it refuses instead of answering another block's state. @default 'number' */
  readonly by?: 'number' | 'hash' | undefined;
}

const hexOf = (block: bigint): string => `0x${block.toString(16)}`;

export class PinnedOperation implements RpcRequester {
  readonly #session: Session;
  readonly #options: PinOptions;
  #ref: Promise<BlockRef> | undefined;

  /** @internal Made by `session.pin()`. */
  constructor(session: Session, options: PinOptions) {
    const { block, by } = options;
    if (block !== undefined && (typeof block !== 'bigint' || block < 0n)) {
      throw new TransportError('INVALID_INPUT', 'block must be a bigint >= 0', { context: { field: 'block' } });
    }
    if (by !== undefined && by !== 'number' && by !== 'hash') throw new TransportError('INVALID_INPUT', "by must be 'number' or 'hash'", { context: { field: 'by' } });
    this.#session = session;
    this.#options = options;
  }

  /** The block this operation reads at: fixed by the first read that needs it (a request of its own only when no `block` was given). */
  block(options: SessionRequestOptions = {}): Promise<BlockRef> {
    // A failed look-up is not kept: the next read tries again.
    this.#ref ??= this.#lookUp(options).catch((error: unknown) => {
      this.#ref = undefined;
      throw error;
    });
    return this.#ref;
  }

  async request(method: string, params: readonly unknown[] = [], options: SessionRequestOptions = {}): Promise<unknown> {
    if (method === 'eth_blockNumber') return (await this.block(options)).number;
    if (!readsLatest(method, params)) return this.#session.request(method, params, options);
    return this.#session.request(method, pinnedParams(method, params, await this.block(options)), options);
  }

  classifyMethod(method: string): MethodClassification {
    return this.#session.classifyMethod(method);
  }

  trustedHead(kind: HeadKind): bigint | undefined {
    return this.#session.trustedHead(kind);
  }

  async #lookUp(options: SessionRequestOptions): Promise<BlockRef> {
    const { block, by } = this.#options;
    const number = block === undefined ? String(await this.#session.request('eth_blockNumber', [], options)) : hexOf(block);
    if (by !== 'hash') return { number };
    const found = (await this.#session.request('eth_getBlockByNumber', [number, false], options)) as { readonly hash?: unknown } | null;
    if (typeof found?.hash !== 'string') {
      throw new TransportError('INVALID_RESPONSE', `No endpoint had block ${number} to pin the operation to`, { context: { reason: 'block-not-found' }, method: 'eth_getBlockByNumber' });
    }
    return { number, hash: found.hash };
  }
}
