import { systemClock, type Clock } from '../clock.js';
import type { RequestOptions, RpcRequester } from '../api/request-options.js';
import { balanceAt, type GetBalanceParameters, type GetBalanceReturnType } from './get-balance.js';
export type { GetBalanceParameters, GetBalanceReturnType } from './get-balance.js';
import { solanaSubscriptions, type SolanaSubscriptions } from '../subscriptions/solana-helpers.js';
import { unhealthyAnswerOf, type GetHealthReturnType } from './health.js';
import { createAccountMethods, type SolanaAccountMethods } from './accounts.js';
import { createChainStateMethods, type SolanaChainStateMethods } from './chain-state.js';
import { checkCommitment, type SolanaCommitment } from './inputs.js';
import type { SolanaMethodContext } from './method-context.js';
import { sendAndConfirm, type SendAndConfirmOptions, type SendAndConfirmReturnType } from './send-and-confirm.js';
import { createTransactionMethods, type SolanaTransactionMethods } from './transactions.js';
export type { SendTransactionParameters, SendTransactionReturnType } from './transactions.js';
import { waitForSignature, type WaitForSignatureOptions } from './wait-for-signature.js';
import type { WaitForSignatureReturnType } from './wait-outcome.js';
import {
  hash32Schema,
  healthResultSchema,
  parseResult,
  versionResultSchema,
} from './schemas.js';

/** Client-wide defaults. */
export interface SolanaClientDefaults {
  /** Commitment for reads that take one (`getBalance`) when the call does not set it. @default the node's default (`finalized`) */
  readonly commitment?: SolanaCommitment;
  /** Clock for `waitForSignature` / `sendAndConfirm` polling (tests pass `createFakeClock()`). @default the real clock */
  readonly clock?: Clock;
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
export interface SolanaClient extends SolanaAccountMethods, SolanaChainStateMethods, SolanaTransactionMethods, SolanaSubscriptions {
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
  /** `waitForSignature(signature, options)` over this client's requester and clock; see the standalone function. */
  waitForSignature(signature: string, options?: WaitForSignatureOptions): Promise<WaitForSignatureReturnType>;
  /** `sendAndConfirm(wireTransaction, options)`: send once, then wait; see the standalone function. */
  sendAndConfirm(wireTransaction: string, options?: SendAndConfirmOptions): Promise<SendAndConfirmReturnType>;
}

/**
 * Creates typed Solana calls over `requester`. Results are validated with zod (a mismatch
 * is `INVALID_RESPONSE`), u64 values are exact `bigint`s, and every call takes a trailing
 * {@link RequestOptions} (`timeoutMs`, `signal`, `endpoint`, `consensus`) passed through to the pool.
 *
 * ```ts
 * const sol = createSolanaClient(pool, { commitment: 'confirmed' });
 * const { value } = await sol.getBalance(address); // lamports, bigint
 * ```
 */
export function createSolanaClient(requester: RpcRequester, defaults: SolanaClientDefaults = {}): SolanaClient {
  const defaultCommitment = checkCommitment(defaults.commitment, 'defaults.commitment');
  const clock = defaults.clock ?? systemClock;
  const ctx: SolanaMethodContext = { requester, defaultCommitment, clock };

  return {
    ...createAccountMethods(ctx),
    ...createChainStateMethods(ctx),
    ...createTransactionMethods(ctx),
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

    getBalance: (address, parameters = {}, options) => balanceAt(requester, address, parameters, options, defaultCommitment),

    waitForSignature: (signature, options = {}) => waitForSignature(requester, signature, { clock, ...options }),
    sendAndConfirm: (wireTransaction, options = {}) => sendAndConfirm(requester, wireTransaction, { clock, ...options }),
  };
}
