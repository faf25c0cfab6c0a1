import * as z from 'zod/mini';
import { transformed } from '../jsonrpc/transformed.js';
import { hash32Schema, quantitySchema } from './schemas.js';
import type { Hex } from './inputs.js';

/** An address in a result: `0x` + 40 hex digits, as the node wrote it. */
export const addressSchema = transformed(z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, { message: 'expected an address' })), (v) => v as Hex);
/** Hex data (`0x` + whole bytes, `0x` allowed). */
export const hexDataSchema = transformed(z.string().check(z.regex(/^0x(?:[0-9a-fA-F]{2})*$/, { message: 'expected 0x hex bytes' })), (v) => v as Hex);

/** One event log. Fields are `null` for logs of pending blocks. */
export interface EvmLog {
  readonly address: Hex;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly blockNumber: bigint | null;
  readonly blockHash: Hex | null;
  readonly transactionHash: Hex | null;
  readonly transactionIndex: bigint | null;
  readonly logIndex: bigint | null;
  /** True when a reorg removed it (filter changes only). */
  readonly removed: boolean;
}

export const logSchema = transformed(
  z.object({
    address: addressSchema,
    topics: z.array(hash32Schema).check(z.maxLength(4)),
    data: hexDataSchema,
    blockNumber: z.nullable(quantitySchema),
    blockHash: z.nullable(hash32Schema),
    transactionHash: z.nullable(hash32Schema),
    transactionIndex: z.nullable(quantitySchema),
    logIndex: z.nullable(quantitySchema),
    removed: z.optional(z.boolean()),
  }),
  (log): EvmLog => ({ ...log, removed: log.removed ?? false }));

/** A mined transaction's receipt. */
export interface EvmTransactionReceipt {
  readonly transactionHash: Hex;
  readonly transactionIndex: bigint;
  readonly blockHash: Hex;
  readonly blockNumber: bigint;
  readonly from: Hex;
  readonly to: Hex | null;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice?: bigint;
  readonly contractAddress: Hex | null;
  readonly logs: readonly EvmLog[];
  readonly logsBloom: Hex;
  /** `success` / `reverted` (EIP-658); absent on pre-Byzantium receipts, which carry a state `root`. */
  readonly status?: 'success' | 'reverted';
  readonly type?: bigint;
}

export const receiptSchema = transformed(
  z.object({
    transactionHash: hash32Schema,
    transactionIndex: quantitySchema,
    blockHash: hash32Schema,
    blockNumber: quantitySchema,
    from: addressSchema,
    to: z.nullable(addressSchema),
    cumulativeGasUsed: quantitySchema,
    gasUsed: quantitySchema,
    effectiveGasPrice: z.optional(quantitySchema),
    contractAddress: z.nullish(addressSchema),
    logs: z.array(logSchema),
    logsBloom: hexDataSchema,
    status: z.optional(z.enum(['0x1', '0x0'])),
    type: z.optional(quantitySchema),
  }),
  (r): EvmTransactionReceipt => {
    const { status, effectiveGasPrice, type, contractAddress, ...rest } = r;
    return {
      ...rest,
      contractAddress: contractAddress ?? null,
      ...(effectiveGasPrice === undefined ? {} : { effectiveGasPrice }),
      ...(type === undefined ? {} : { type }),
      ...(status === undefined ? {} : { status: status === '0x1' ? 'success' : 'reverted' }),
    };
  });

/** A transaction as `eth_getTransactionByHash` and full blocks list it. */
export interface EvmTransaction {
  readonly hash: Hex;
  readonly nonce: bigint;
  readonly blockHash: Hex | null;
  readonly blockNumber: bigint | null;
  readonly transactionIndex: bigint | null;
  readonly from: Hex;
  readonly to: Hex | null;
  readonly value: bigint;
  readonly gas: bigint;
  readonly input: Hex;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly type?: bigint;
  readonly chainId?: bigint;
}

const optionalQuantities = ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'type', 'chainId'] as const;

export const transactionSchema = transformed(
  z.object({
    hash: hash32Schema,
    nonce: quantitySchema,
    blockHash: z.nullable(hash32Schema),
    blockNumber: z.nullable(quantitySchema),
    transactionIndex: z.nullable(quantitySchema),
    from: addressSchema,
    to: z.nullable(addressSchema),
    value: quantitySchema,
    gas: quantitySchema,
    input: hexDataSchema,
    gasPrice: z.optional(quantitySchema),
    maxFeePerGas: z.optional(quantitySchema),
    maxPriorityFeePerGas: z.optional(quantitySchema),
    type: z.optional(quantitySchema),
    chainId: z.optional(quantitySchema),
  }),
  (t): EvmTransaction => {
    const out: Record<string, unknown> = { ...t };
    for (const field of optionalQuantities) if (out[field] === undefined) delete out[field];
    return out as unknown as EvmTransaction;
  });

/** A block; `transactions` holds hashes, or full transactions with `includeTransactions`. */
export interface EvmBlock<T extends Hex | EvmTransaction = Hex | EvmTransaction> {
  /** `null` for the pending block. */
  readonly number: bigint | null;
  readonly hash: Hex | null;
  readonly parentHash: Hex;
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly baseFeePerGas?: bigint;
  readonly miner: Hex;
  readonly stateRoot: Hex;
  readonly transactionsRoot: Hex;
  readonly receiptsRoot: Hex;
  readonly logsBloom: Hex | null;
  readonly extraData: Hex;
  readonly size?: bigint;
  readonly transactions: readonly T[];
}

export function blockSchema(includeTransactions: boolean) {
  return transformed(
    z.object({
      number: z.nullable(quantitySchema),
      hash: z.nullable(hash32Schema),
      parentHash: hash32Schema,
      timestamp: quantitySchema,
      gasLimit: quantitySchema,
      gasUsed: quantitySchema,
      baseFeePerGas: z.optional(quantitySchema),
      miner: addressSchema,
      stateRoot: hash32Schema,
      transactionsRoot: hash32Schema,
      receiptsRoot: hash32Schema,
      logsBloom: z.nullable(hexDataSchema),
      extraData: hexDataSchema,
      size: z.optional(quantitySchema),
      transactions: includeTransactions ? z.array(transactionSchema) : z.array(hash32Schema),
    }),
    (b): EvmBlock => {
      const { baseFeePerGas, size, ...rest } = b;
      return { ...rest, ...(baseFeePerGas === undefined ? {} : { baseFeePerGas }), ...(size === undefined ? {} : { size }) };
    });
}

/** Result of `feeHistory`. */
export interface EvmFeeHistory {
  readonly oldestBlock: bigint;
  /** One more entry than blocks: the next block's base fee comes last. */
  readonly baseFeePerGas: readonly bigint[];
  readonly gasUsedRatio: readonly number[];
  /** Per block, the priority fee at each requested percentile. */
  readonly reward?: readonly (readonly bigint[])[];
}

export const feeHistorySchema = transformed(
  z.object({
    oldestBlock: quantitySchema,
    baseFeePerGas: z.array(quantitySchema),
    gasUsedRatio: z.array(z.number().check(z.minimum(0))),
    reward: z.optional(z.array(z.array(quantitySchema))),
  }),
  (f): EvmFeeHistory => {
    const base = { oldestBlock: f.oldestBlock, baseFeePerGas: f.baseFeePerGas, gasUsedRatio: f.gasUsedRatio };
    return f.reward === undefined ? base : { ...base, reward: f.reward };
  });
