/**
 * EVM rows of the integrity table: a receipt or transaction about the hash asked, a block of
 * the number or hash asked, block 0 and `eth_chainId` on the verified chain. Pure.
 */
import type { AnyIntegrityRow, IntegrityCheckName, IntegrityRow } from './types.js';

const HASH32 = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

/** Types one row and erases its question's type for the table. */
export function integrityRow<A>(row: IntegrityRow<A>): AnyIntegrityRow {
  return row as unknown as AnyIntegrityRow;
}

/** A block answer's number and lowercase hash, for the hash book; undefined when it carries no such pair. */
export function blockIdOf(result: unknown): { readonly number: bigint; readonly hash: string } | undefined {
  const number = quantityOf(fieldOf(result, 'number'));
  const hash = fieldOf(result, 'hash');
  return number === undefined || typeof hash !== 'string' || !HASH32.test(hash) ? undefined : { number, hash: hash.toLowerCase() };
}

/** `0x…` quantity as a bigint, or undefined when it is no quantity (a tag such as `latest`). */
export function quantityOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && QUANTITY.test(value) ? BigInt(value) : undefined;
}

function fieldOf(result: unknown, field: string): unknown {
  return typeof result === 'object' && result !== null ? (result as Record<string, unknown>)[field] : undefined;
}

/** True when `value` is a hash string equal to `lowercase` without regard to case. */
function sameHash(value: unknown, lowercase: string): boolean {
  return typeof value === 'string' && value.toLowerCase() === lowercase;
}

const askedHash = (params: readonly unknown[]): string | undefined => {
  const hash = params[0];
  return typeof hash === 'string' && HASH32.test(hash) ? hash.toLowerCase() : undefined;
};

/** "Not found" (null) says nothing false; an object must carry the asked hash in `field`. */
function aboutHash(field: string, check: IntegrityCheckName) {
  return (asked: string, result: unknown): IntegrityCheckName | undefined => (result === null || sameHash(fieldOf(result, field), asked) ? undefined : check);
}

interface BlockByNumber {
  readonly number: bigint;
  /** Block 0 on a pool with an EVM `expectedChain.genesisHash`: its hash must be that one. */
  readonly genesisHash: string | undefined;
  /** The hash two operators gave for this number beyond the reorg window, when the call was made. */
  readonly settledHash: string | undefined;
}

export const EVM_ROWS: readonly AnyIntegrityRow[] = [
  integrityRow<string>({
    methods: ['eth_getTransactionReceipt'],
    checks: ['receipt-hash'],
    ask: askedHash,
    verify: aboutHash('transactionHash', 'receipt-hash'),
  }),
  integrityRow<string>({
    methods: ['eth_getTransactionByHash'],
    checks: ['transaction-hash'],
    ask: askedHash,
    verify: aboutHash('hash', 'transaction-hash'),
  }),
  integrityRow<BlockByNumber>({
    methods: ['eth_getBlockByNumber'],
    checks: ['block-number', 'genesis-hash', 'settled-hash'],
    ask: (params, facts) => {
      const number = quantityOf(params[0]);
      if (number === undefined) return undefined;
      const genesisHash = number === 0n && facts.genesisHash?.startsWith('0x') === true ? facts.genesisHash : undefined;
      return { number, genesisHash, settledHash: facts.settledHashAt?.(number) };
    },
    verify: (asked, result, chainVerified) => {
      if (result === null) return undefined;
      // A number that is there and another is a lie; a trimmed answer without one is the typed client's to judge.
      const number = fieldOf(result, 'number');
      if (number !== undefined && quantityOf(number) !== asked.number) return 'block-number';
      if (asked.genesisHash !== undefined && chainVerified && !sameHash(fieldOf(result, 'hash'), asked.genesisHash)) return 'genesis-hash';
      if (asked.settledHash !== undefined && !sameHash(fieldOf(result, 'hash'), asked.settledHash)) return 'settled-hash';
      return undefined;
    },
  }),
  integrityRow<string>({
    methods: ['eth_getBlockByHash'],
    checks: ['block-hash'],
    ask: askedHash,
    verify: aboutHash('hash', 'block-hash'),
  }),
  integrityRow<bigint>({
    methods: ['eth_chainId'],
    checks: ['chain-id'],
    ask: (_params, facts) => facts.chainId,
    verify: (expected, result, chainVerified) => (!chainVerified || quantityOf(result) === expected ? undefined : 'chain-id'),
  }),
];
