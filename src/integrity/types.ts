/** The integrity checks' contract (types only; `integrity-ask.ts` holds the table). */

/** Which check an answer failed (stable names: they appear in errors and events). */
export type IntegrityCheckName =
  | 'receipt-hash'
  | 'transaction-hash'
  | 'block-number'
  | 'block-hash'
  | 'settled-hash'
  | 'genesis-hash'
  | 'chain-id'
  | 'log-block-range'
  | 'log-block-hash'
  | 'log-address'
  | 'log-topics'
  | 'log-order'
  | 'transaction-signature'
  | 'min-context-slot'
  /** Not a check of one answer: other operators agreed on another (a consensus read's outlier). */
  | 'consensus';

/** The pool's verified chain (`expectedChain`), normalized: what chain-fact answers must agree with. */
export interface IntegrityFacts {
  readonly chainId?: bigint | undefined;
  /** Solana: base58; EVM: lowercase `0x` hex (the hash of block 0). */
  readonly genesisHash?: string | undefined;
  /** The settled hash of an EVM block number (two operators, beyond the reorg window), read when a call asks for that block. */
  readonly settledHashAt?: ((number: bigint) => string | undefined) | undefined;
}

/** What an answer is checked against, bound to one call's question. */
export interface IntegrityAsk {
  /**
   * The first check `result` fails, or undefined when it holds. `chainVerified`: whether the
   * answering endpoint is held to the pool's `expectedChain` (`verifyChain`, default true).
   */
  verify(result: unknown, chainVerified: boolean): IntegrityCheckName | undefined;
}

/** One row of the table: the methods it reads, what it takes from their params, and its pure check. */
export interface IntegrityRow<A> {
  readonly methods: readonly string[];
  /** The checks this row can fail, for the docs and the tests. */
  readonly checks: readonly IntegrityCheckName[];
  /** What the call asked, or undefined when its params give nothing to check against. */
  ask(params: readonly unknown[], facts: IntegrityFacts, method: string): A | undefined;
  verify(asked: A, result: unknown, chainVerified: boolean): IntegrityCheckName | undefined;
}

/** A row with its question's type erased (each row is internally consistent). */
export type AnyIntegrityRow = IntegrityRow<never> & { ask(params: readonly unknown[], facts: IntegrityFacts, method: string): unknown; verify(asked: unknown, result: unknown, chainVerified: boolean): IntegrityCheckName | undefined };
