import * as z from 'zod';
import { hash32Schema, quantitySchema } from './schemas.js';
import type { Hex } from './inputs.js';

/** An address in a result: `0x` + 40 hex digits, as the node wrote it. */
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, { message: 'expected an address' }).transform((v) => v as Hex);
/** Hex data (`0x` + whole bytes, `0x` allowed). */
export const hexDataSchema = z.string().regex(/^0x(?:[0-9a-fA-F]{2})*$/, { message: 'expected 0x hex bytes' }).transform((v) => v as Hex);

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

export const logSchema = z
  .object({
    address: addressSchema,
    topics: z.array(hash32Schema).max(4),
    data: hexDataSchema,
    blockNumber: quantitySchema.nullable(),
    blockHash: hash32Schema.nullable(),
    transactionHash: hash32Schema.nullable(),
    transactionIndex: quantitySchema.nullable(),
    logIndex: quantitySchema.nullable(),
    removed: z.boolean().optional(),
  })
  .transform((log): EvmLog => ({ ...log, removed: log.removed ?? false }));

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

export const receiptSchema = z
  .object({
    transactionHash: hash32Schema,
    transactionIndex: quantitySchema,
    blockHash: hash32Schema,
    blockNumber: quantitySchema,
    from: addressSchema,
    to: addressSchema.nullable(),
    cumulativeGasUsed: quantitySchema,
    gasUsed: quantitySchema,
    effectiveGasPrice: quantitySchema.optional(),
    contractAddress: addressSchema.nullish(),
    logs: z.array(logSchema),
    logsBloom: hexDataSchema,
    status: z.enum(['0x1', '0x0']).optional(),
    type: quantitySchema.optional(),
  })
  .transform((r): EvmTransactionReceipt => {
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

export const transactionSchema = z
  .object({
    hash: hash32Schema,
    nonce: quantitySchema,
    blockHash: hash32Schema.nullable(),
    blockNumber: quantitySchema.nullable(),
    transactionIndex: quantitySchema.nullable(),
    from: addressSchema,
    to: addressSchema.nullable(),
    value: quantitySchema,
    gas: quantitySchema,
    input: hexDataSchema,
    gasPrice: quantitySchema.optional(),
    maxFeePerGas: quantitySchema.optional(),
    maxPriorityFeePerGas: quantitySchema.optional(),
    type: quantitySchema.optional(),
    chainId: quantitySchema.optional(),
  })
  .transform((t): EvmTransaction => {
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
  return z
    .object({
      number: quantitySchema.nullable(),
      hash: hash32Schema.nullable(),
      parentHash: hash32Schema,
      timestamp: quantitySchema,
      gasLimit: quantitySchema,
      gasUsed: quantitySchema,
      baseFeePerGas: quantitySchema.optional(),
      miner: addressSchema,
      stateRoot: hash32Schema,
      transactionsRoot: hash32Schema,
      receiptsRoot: hash32Schema,
      logsBloom: hexDataSchema.nullable(),
      extraData: hexDataSchema,
      size: quantitySchema.optional(),
      transactions: includeTransactions ? z.array(transactionSchema) : z.array(hash32Schema),
    })
    .transform((b): EvmBlock => {
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

export const feeHistorySchema = z
  .object({
    oldestBlock: quantitySchema,
    baseFeePerGas: z.array(quantitySchema),
    gasUsedRatio: z.array(z.number().min(0)),
    reward: z.array(z.array(quantitySchema)).optional(),
  })
  .transform((f): EvmFeeHistory => {
    const base = { oldestBlock: f.oldestBlock, baseFeePerGas: f.baseFeePerGas, gasUsedRatio: f.gasUsedRatio };
    return f.reward === undefined ? base : { ...base, reward: f.reward };
  });
