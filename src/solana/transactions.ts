import { TransportError } from '../errors/transport-error.js';
import { decodeSolanaWire, solanaSignatureFromWireBytes, type SolanaWireEncoding } from '../jsonrpc/solana-wire.js';
import type { RequestOptions } from '../api/request-options.js';
import { SOLANA_MAX_ACCOUNT_DATA_BYTES } from './account-data.js';
import { checkBoolean, checkCommitment, checkSafeUint, compactConfig, invalidInput, type SolanaCommitment } from './inputs.js';
import { paramsWith, readConfig, type SolanaMethodContext, type SolanaReadParameters } from './method-context.js';
import { parseResult, signatureSchema } from './schemas.js';
import { isBase58OfLength } from './address.js';
import { SOLANA_SIGNATURE_BYTES } from '../jsonrpc/solana-wire-layout.js';
import {
  signatureStatusesSchema,
  simulationSchema,
  transactionResultSchema,
  type SignatureStatus,
  type SolanaTransactionError,
  type TransactionMeta,
} from './transaction-schemas.js';

/** Options of `sendTransaction`. */
export interface SendTransactionParameters {
  /** Encoding of the wire transaction string. Always sent explicitly. @default 'base64' */
  readonly encoding?: SolanaWireEncoding;
  /** Skip the node's preflight simulation. @default false (node default) */
  readonly skipPreflight?: boolean;
  /** Commitment for preflight. @default the node's default (`finalized`) */
  readonly preflightCommitment?: SolanaCommitment;
  /** How many times the node itself rebroadcasts. @default the node's default */
  readonly maxRetries?: number | bigint;
  /** Fail preflight unless the node has reached this slot. */
  readonly minContextSlot?: number | bigint;
}
/** Result of `sendTransaction`: the transaction signature (id), base58 of 64 bytes. */
export type SendTransactionReturnType = string;

/** Options of `getSignatureStatuses`. */
export interface GetSignatureStatusesParameters {
  /** Also search the ledger beyond the recent status cache (slower; needed for old signatures). @default false */
  readonly searchTransactionHistory?: boolean;
}
/** Result of `getSignatureStatuses`: one entry per signature, in order (`null` = not found). */
export interface GetSignatureStatusesReturnType {
  readonly slot: bigint;
  readonly value: readonly (SignatureStatus | null)[];
}

/** Options of `getTransaction`. */
export interface GetTransactionParameters {
  /** `processed` is not served by nodes. @default the client's `commitment` when not `processed`, else the node's (`finalized`) */
  readonly commitment?: 'confirmed' | 'finalized';
  /** `base64` → `transaction` is the wire bytes; `json`/`jsonParsed` → the node's object. @default 'json' */
  readonly encoding?: 'json' | 'jsonParsed' | 'base64';
  /** Highest transaction version to return; a newer one is a node error. @default 0 (legacy and v0) */
  readonly maxSupportedTransactionVersion?: number;
}
/** A landed transaction (`getTransaction`); `null` when the node does not know it. */
export type GetTransactionReturnType = {
  readonly slot: bigint;
  /** Unix seconds of the block, when known. */
  readonly blockTime: bigint | null;
  readonly version?: 'legacy' | number;
  readonly meta: TransactionMeta | null;
  /** Wire bytes with `encoding: 'base64'`, else the node's JSON. */
  readonly transaction: Uint8Array | Readonly<Record<string, unknown>>;
} | null;

/** Options of `simulateTransaction`. */
export interface SimulateTransactionParameters extends SolanaReadParameters {
  /** @default 'base64' */
  readonly encoding?: SolanaWireEncoding;
  /** Verify signatures (conflicts with `replaceRecentBlockhash`). @default false */
  readonly sigVerify?: boolean;
  /** Simulate with the node's latest blockhash instead of the transaction's. @default false */
  readonly replaceRecentBlockhash?: boolean;
  /** Include inner instructions in the result. @default false */
  readonly innerInstructions?: boolean;
}
/** Result of `simulateTransaction`. */
export interface SimulateTransactionReturnType {
  readonly slot: bigint;
  readonly value: {
    /** `null` when the simulation succeeded. */
    readonly err: SolanaTransactionError | null;
    readonly logs: readonly string[] | null;
    readonly unitsConsumed?: bigint | undefined;
    readonly returnData?: { readonly programId: string; readonly data: Uint8Array } | null | undefined;
    readonly replacementBlockhash?: { readonly blockhash: string; readonly lastValidBlockHeight: bigint } | null | undefined;
    readonly [field: string]: unknown;
  };
}

/** Typed transaction calls. */
export interface SolanaTransactionMethods {
  /**
   * `sendTransaction` of a signed wire transaction → its signature. The bytes are decoded
   * and must hold at least one signature before anything is sent (`INVALID_INPUT`, field
   * `wireTransaction`). The pool never resends it once it may have reached a node; on
   * `AMBIGUOUS_DISPATCH` wait for `error.signature` (`waitForSignature`), or use
   * `sendAndConfirm`, which does. A node answering with a signature other than the
   * transaction's first one is `INVALID_RESPONSE` (reason `result: signature-mismatch`).
   */
  sendTransaction(wireTransaction: string, parameters?: SendTransactionParameters, options?: RequestOptions): Promise<SendTransactionReturnType>;
  /** `getSignatureStatuses` of 1 to 256 signatures (base58, 64 bytes). */
  getSignatureStatuses(
    signatures: readonly string[],
    parameters?: GetSignatureStatusesParameters,
    options?: RequestOptions,
  ): Promise<GetSignatureStatusesReturnType>;
  /** `getTransaction(signature)`; exact lamports in `meta`, wire bytes with `base64`. */
  getTransaction(signature: string, parameters?: GetTransactionParameters, options?: RequestOptions): Promise<GetTransactionReturnType>;
  /** `simulateTransaction` of a wire transaction (signatures need not be valid unless `sigVerify`). */
  simulateTransaction(
    wireTransaction: string,
    parameters?: SimulateTransactionParameters,
    options?: RequestOptions,
  ): Promise<SimulateTransactionReturnType>;
}

/** The node's limit on `getSignatureStatuses`. */
export const MAX_SIGNATURE_STATUSES = 256;

/** Decodes and checks a wire transaction before anything is sent; returns its first signature. */
export function checkWireTransaction(wireTransaction: unknown, encoding: unknown): { signature: string; bytes: Uint8Array; encoding: SolanaWireEncoding } {
  const enc = encoding ?? 'base64';
  if (enc !== 'base64' && enc !== 'base58') invalidInput('encoding', "'base64' or 'base58'");
  if (typeof wireTransaction !== 'string') return invalidInput('wireTransaction', `a ${enc} string`);
  const bytes = decodeSolanaWire(wireTransaction, enc);
  if (bytes === undefined) return invalidInput('wireTransaction', `valid ${enc}`);
  const signature = solanaSignatureFromWireBytes(bytes);
  if (signature === undefined) return invalidInput('wireTransaction', 'a wire transaction with at least one signature and a message');
  return { signature, bytes, encoding: enc };
}

export function assertSignature(value: unknown, field = 'signature'): asserts value is string {
  if (!isBase58OfLength(value, SOLANA_SIGNATURE_BYTES)) invalidInput(field, 'a base58 signature of 64 bytes');
}

export function createTransactionMethods(ctx: SolanaMethodContext): SolanaTransactionMethods {
  const { requester } = ctx;
  return {
    async sendTransaction(wireTransaction, parameters = {}, options) {
      const { signature: expected, encoding } = checkWireTransaction(wireTransaction, parameters.encoding);
      const config = compactConfig({
        encoding,
        skipPreflight: checkBoolean(parameters.skipPreflight, 'skipPreflight'),
        preflightCommitment: checkCommitment(parameters.preflightCommitment, 'preflightCommitment'),
        maxRetries: checkSafeUint(parameters.maxRetries, 'maxRetries'),
        minContextSlot: checkSafeUint(parameters.minContextSlot, 'minContextSlot'),
      });
      const result = await requester.request('sendTransaction', [wireTransaction, config], options);
      const signature = parseResult('sendTransaction', signatureSchema, result);
      if (signature !== expected) {
        throw new TransportError('INVALID_RESPONSE', 'sendTransaction returned a signature that is not the transaction\u2019s first signature', {
          context: { reason: 'result: signature-mismatch' },
          method: 'sendTransaction',
        });
      }
      return signature;
    },

    async getSignatureStatuses(signatures, parameters = {}, options) {
      if (!Array.isArray(signatures) || signatures.length === 0 || signatures.length > MAX_SIGNATURE_STATUSES) {
        invalidInput('signatures', `an array of 1 to ${MAX_SIGNATURE_STATUSES} signatures`);
      }
      signatures.forEach((signature, index) => assertSignature(signature, `signatures.${index}`));
      const config = compactConfig({ searchTransactionHistory: checkBoolean(parameters.searchTransactionHistory, 'searchTransactionHistory') });
      const result = await requester.request('getSignatureStatuses', paramsWith([signatures], config), options);
      const parsed = parseResult('getSignatureStatuses', signatureStatusesSchema(signatures.length), result);
      return { slot: parsed.context.slot, value: parsed.value };
    },

    async getTransaction(signature, parameters = {}, options) {
      assertSignature(signature);
      const encoding = parameters.encoding ?? 'json';
      if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64') invalidInput('encoding', "'json', 'jsonParsed' or 'base64'");
      const requested = parameters.commitment;
      if (requested !== undefined && requested !== 'confirmed' && requested !== 'finalized') invalidInput('commitment', "'confirmed' or 'finalized'");
      const commitment = requested ?? (ctx.defaultCommitment === 'processed' ? undefined : ctx.defaultCommitment);
      const maxSupportedTransactionVersion = checkSafeUint(parameters.maxSupportedTransactionVersion ?? 0, 'maxSupportedTransactionVersion');
      const config = compactConfig({ commitment, encoding, maxSupportedTransactionVersion });
      const result = await requester.request('getTransaction', [signature, config], options);
      const parsed = parseResult('getTransaction', transactionResultSchema(encoding, SOLANA_MAX_ACCOUNT_DATA_BYTES), result);
      if (parsed === null) return null;
      const { slot, blockTime, version, meta, transaction } = parsed;
      const common = { slot, blockTime: blockTime ?? null, meta: meta as TransactionMeta | null, transaction };
      return version === undefined ? common : { ...common, version };
    },

    async simulateTransaction(wireTransaction, parameters = {}, options) {
      const { encoding } = checkWireTransaction(wireTransaction, parameters.encoding);
      const sigVerify = checkBoolean(parameters.sigVerify, 'sigVerify');
      const replaceRecentBlockhash = checkBoolean(parameters.replaceRecentBlockhash, 'replaceRecentBlockhash');
      if (sigVerify === true && replaceRecentBlockhash === true) invalidInput('sigVerify', 'false when replaceRecentBlockhash is true');
      const config = readConfig(ctx, parameters, {
        encoding,
        sigVerify,
        replaceRecentBlockhash,
        innerInstructions: checkBoolean(parameters.innerInstructions, 'innerInstructions'),
      });
      const result = await requester.request('simulateTransaction', [wireTransaction, config], options);
      const parsed = parseResult('simulateTransaction', simulationSchema, result);
      return { slot: parsed.context.slot, value: parsed.value };
    },
  };
}
