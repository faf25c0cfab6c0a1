import * as z from 'zod';
import { base64DataSchema } from './account-data.js';
import { addressSchema, withContext } from './account-schemas.js';
import type { SolanaCommitment } from './inputs.js';
import { hash32Schema, u64Schema } from './schemas.js';

/** A transaction error as the node reports it (e.g. `{ InstructionError: [0, { Custom: 1 }] }`), passed through. */
export type SolanaTransactionError = unknown;

/** The status of one signature (`getSignatureStatuses`). */
export interface SignatureStatus {
  /** Slot the transaction was processed in. */
  readonly slot: bigint;
  /** Blocks since it was confirmed; `null` once rooted (finalized). */
  readonly confirmations: number | null;
  /** `null` when it succeeded; the failure otherwise (it still landed and paid its fee). */
  readonly err: SolanaTransactionError | null;
  /** How far the cluster has confirmed it; `null` from very old nodes. */
  readonly confirmationStatus: SolanaCommitment | null;
}

const commitmentSchema = z.enum(['processed', 'confirmed', 'finalized']);
/** i64 seconds (block times): safe number or exact bigint, always a bigint. */
const i64Schema = z.union([z.number().int(), z.bigint()]).transform((value) => BigInt(value));

export const signatureStatusSchema = z
  .object({
    slot: u64Schema,
    confirmations: z.number().int().nonnegative().nullable(),
    err: z.unknown().nullable(),
    confirmationStatus: commitmentSchema.nullish(),
  })
  .transform((s): SignatureStatus => ({
    slot: s.slot,
    confirmations: s.confirmations,
    err: s.err ?? null,
    confirmationStatus: s.confirmationStatus ?? null,
  }));

export function signatureStatusesSchema(count: number) {
  return withContext(z.array(signatureStatusSchema.nullable()).length(count));
}

/** The execution metadata of a landed transaction; other fields the node sends are kept. */
export interface TransactionMeta {
  readonly err: SolanaTransactionError | null;
  /** Fee paid, lamports (exact). */
  readonly fee: bigint;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly logMessages?: readonly string[] | null;
  readonly computeUnitsConsumed?: bigint;
  readonly [field: string]: unknown;
}

const metaSchema = z.looseObject({
  err: z.unknown().nullable(),
  fee: u64Schema,
  preBalances: z.array(u64Schema),
  postBalances: z.array(u64Schema),
  logMessages: z.array(z.string()).nullish(),
  computeUnitsConsumed: u64Schema.optional(),
});

/** A transaction in `encoding: 'base64'` decodes to its wire bytes; `json`/`jsonParsed` pass through. */
export function transactionResultSchema(encoding: 'json' | 'jsonParsed' | 'base64', maxBytes: number) {
  return z
    .object({
      slot: u64Schema,
      blockTime: i64Schema.nullish(),
      version: z.union([z.literal('legacy'), z.number().int().nonnegative()]).optional(),
      meta: metaSchema.nullable(),
      transaction: encoding === 'base64' ? base64DataSchema(maxBytes) : z.looseObject({ signatures: z.array(z.string()).min(1), message: z.unknown() }),
    })
    .nullable();
}

export const simulationSchema = withContext(
  z.looseObject({
    err: z.unknown().nullable(),
    logs: z.array(z.string()).nullable(),
    unitsConsumed: u64Schema.optional(),
    returnData: z.object({ programId: addressSchema, data: base64DataSchema(1_024) }).nullish(),
    replacementBlockhash: z.object({ blockhash: hash32Schema, lastValidBlockHeight: u64Schema }).nullish(),
  }),
);
