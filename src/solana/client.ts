import { TransportError } from '../errors/transport-error.js';
import {
  decodeSolanaWire,
  solanaSignatureFromWireBytes,
  type SolanaWireEncoding,
} from '../jsonrpc/transaction-id.js';
import type { RequestOptions, RpcRequester } from '../pool/request-options.js';
import { assertSolanaAddress } from './address.js';
import { solanaSubscriptions, type SolanaSubscriptions } from '../subscriptions/solana-helpers.js';
import { unhealthyAnswerOf, type GetHealthReturnType } from './health.js';
import {
  checkBoolean,
  checkCommitment,
  checkSafeUint,
  compactConfig,
  invalidInput,
  type SolanaCommitment,
} from './inputs.js';
import {
  balanceResultSchema,
  hash32Schema,
  healthResultSchema,
  parseResult,
  signatureSchema,
  versionResultSchema,
} from './schemas.js';

/** Client-wide defaults. */
export interface SolanaClientDefaults {
  /** Commitment for reads that take one (`getBalance`) when the call does not set it. @default the node's default (`finalized`) */
  readonly commitment?: SolanaCommitment;
}

/** Result of `getVersion`. */
export interface GetVersionReturnType {
  /** `solana-core` version string, e.g. `2.2.1`. */
  readonly solanaCore: string;
  /** `feature-set` identifier (u32), when the node reports one. */
  readonly featureSet?: number;
}

/** Result of `getGenesisHash`: the cluster's genesis hash, base58 of 32 bytes. */
export type GetGenesisHashReturnType = string;

/** Options of `getBalance`. */
export interface GetBalanceParameters {
  /** @default the client's `commitment`, else the node's default */
  readonly commitment?: SolanaCommitment;
  /** Fail with node error -32016 unless the node has reached this slot. */
  readonly minContextSlot?: number | bigint;
}

/** Result of `getBalance`: exact u64 values. */
export interface GetBalanceReturnType {
  /** Slot at which the balance was read. */
  readonly slot: bigint;
  /** Balance in lamports. */
  readonly value: bigint;
}

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

/** Typed Solana calls over any {@link RpcRequester} (normally an `HttpTransportPool`), and its subscriptions (`onSlot`, `onSignature`, …). */
export interface SolanaClient extends SolanaSubscriptions {
  /**
   * `getHealth`. A node that is behind or unhealthy (JSON-RPC error -32005) is an answer:
   * `{ healthy: false, numSlotsBehind?, message }`. Every other failure throws.
   * Pin with `options.endpoint` to ask one particular node.
   */
  getHealth(options?: RequestOptions): Promise<GetHealthReturnType>;
  /** `getVersion` → `{ solanaCore, featureSet? }`. */
  getVersion(options?: RequestOptions): Promise<GetVersionReturnType>;
  /** `getGenesisHash` → base58 string; see `solanaClusterOf`. */
  getGenesisHash(options?: RequestOptions): Promise<GetGenesisHashReturnType>;
  /**
   * `getBalance` → `{ slot, value }` as exact `bigint`s. The address is validated before
   * anything is sent (`INVALID_INPUT`, field `address`).
   */
  getBalance(
    address: string,
    parameters?: GetBalanceParameters,
    options?: RequestOptions,
  ): Promise<GetBalanceReturnType>;
  /**
   * `sendTransaction` of a signed wire transaction → its signature. The bytes are decoded
   * and must hold at least one signature before anything is sent (`INVALID_INPUT`, field
   * `wireTransaction`). The pool never resends it once it may have reached a node; on
   * `AMBIGUOUS_DISPATCH` reconcile with `getSignatureStatuses` using `error.signature`.
   * A node answering with a signature other than the transaction's first one is
   * `INVALID_RESPONSE` (reason `result: signature-mismatch`).
   */
  sendTransaction(
    wireTransaction: string,
    parameters?: SendTransactionParameters,
    options?: RequestOptions,
  ): Promise<SendTransactionReturnType>;
}

/**
 * Creates typed Solana calls over `requester`. Results are validated with zod (a mismatch
 * is `INVALID_RESPONSE`), u64 values are exact `bigint`s, and every call takes a trailing
 * {@link RequestOptions} (`timeoutMs`, `signal`, `endpoint`) passed through to the pool.
 *
 * ```ts
 * const sol = createSolanaClient(pool, { commitment: 'confirmed' });
 * const { value } = await sol.getBalance(address); // lamports, bigint
 * ```
 */
export function createSolanaClient(requester: RpcRequester, defaults: SolanaClientDefaults = {}): SolanaClient {
  const defaultCommitment = checkCommitment(defaults.commitment, 'defaults.commitment');

  return {
    ...solanaSubscriptions(requester),
    async getHealth(options) {
      let result: unknown;
      try {
        result = await requester.request('getHealth', [], options);
      } catch (error) {
        const answer = unhealthyAnswerOf(error);
        if (answer !== undefined) return answer;
        throw error;
      }
      parseResult('getHealth', healthResultSchema, result);
      return { healthy: true };
    },

    async getVersion(options) {
      const result = await requester.request('getVersion', [], options);
      const version = parseResult('getVersion', versionResultSchema, result);
      const featureSet = version['feature-set'];
      return featureSet === undefined || featureSet === null
        ? { solanaCore: version['solana-core'] }
        : { solanaCore: version['solana-core'], featureSet };
    },

    async getGenesisHash(options) {
      const result = await requester.request('getGenesisHash', [], options);
      return parseResult('getGenesisHash', hash32Schema, result);
    },

    async getBalance(address, parameters = {}, options) {
      assertSolanaAddress(address, 'address');
      const config = compactConfig({
        commitment: checkCommitment(parameters.commitment, 'commitment') ?? defaultCommitment,
        minContextSlot: checkSafeUint(parameters.minContextSlot, 'minContextSlot'),
      });
      const params = config === undefined ? [address] : [address, config];
      const result = await requester.request('getBalance', params, options);
      const balance = parseResult('getBalance', balanceResultSchema, result);
      return { slot: balance.context.slot, value: balance.value };
    },

    async sendTransaction(wireTransaction, parameters = {}, options) {
      const encoding = parameters.encoding ?? 'base64';
      if (encoding !== 'base64' && encoding !== 'base58') invalidInput('encoding', "'base64' or 'base58'");
      if (typeof wireTransaction !== 'string') invalidInput('wireTransaction', `a ${encoding} string`);
      const bytes = decodeSolanaWire(wireTransaction, encoding);
      if (bytes === undefined) invalidInput('wireTransaction', `valid ${encoding}`);
      const expected = solanaSignatureFromWireBytes(bytes);
      if (expected === undefined) {
        invalidInput('wireTransaction', 'a wire transaction with at least one signature and a message');
      }
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
        throw new TransportError(
          'INVALID_RESPONSE',
          'sendTransaction returned a signature that is not the transaction\u2019s first signature',
          { context: { reason: 'result: signature-mismatch' }, method: 'sendTransaction' },
        );
      }
      return signature;
    },
  };
}
