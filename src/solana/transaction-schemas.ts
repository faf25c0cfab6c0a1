import * as z from 'zod/mini';
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
const i64Schema = z.pipe(z.union([z.number().check(z.int()), z.bigint()]), z.transform((value: number | bigint) => BigInt(value)));

const rawSignatureStatusSchema = z.object({
  slot: u64Schema,
  confirmations: z.nullable(z.number().check(z.int(), z.nonnegative())),
  err: z.nullable(z.unknown()),
  confirmationStatus: z.nullish(commitmentSchema),
});

export const signatureStatusSchema = z.pipe(
  rawSignatureStatusSchema,
  z.transform((s: z.output<typeof rawSignatureStatusSchema>): SignatureStatus => ({
    slot: s.slot,
    confirmations: s.confirmations,
    err: s.err ?? null,
    confirmationStatus: s.confirmationStatus ?? null,
  })),
);

export function signatureStatusesSchema(count: number) {
  return withContext(z.array(z.nullable(signatureStatusSchema)).check(z.length(count)));
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
  err: z.nullable(z.unknown()),
  fee: u64Schema,
  preBalances: z.array(u64Schema),
  postBalances: z.array(u64Schema),
  logMessages: z.nullish(z.array(z.string())),
  computeUnitsConsumed: z.optional(u64Schema),
});

/** A transaction in `encoding: 'base64'` decodes to its wire bytes; `json`/`jsonParsed` pass through. */
export function transactionResultSchema(encoding: 'json' | 'jsonParsed' | 'base64', maxBytes: number) {
  return z.nullable(
    z.object({
      slot: u64Schema,
      blockTime: z.nullish(i64Schema),
      version: z.optional(z.union([z.literal('legacy'), z.number().check(z.int(), z.nonnegative())])),
      meta: z.nullable(metaSchema),
      transaction: encoding === 'base64' ? base64DataSchema(maxBytes) : z.looseObject({ signatures: z.array(z.string()).check(z.minLength(1)), message: z.unknown() }),
    }),
  );
}

export const simulationSchema = withContext(
  z.looseObject({
    err: z.nullable(z.unknown()),
    logs: z.nullable(z.array(z.string())),
    unitsConsumed: z.optional(u64Schema),
    returnData: z.nullish(z.object({ programId: addressSchema, data: base64DataSchema(1_024) })),
    replacementBlockhash: z.nullish(z.object({ blockhash: hash32Schema, lastValidBlockHeight: u64Schema })),
  }),
);
