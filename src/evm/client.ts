import { TransportError } from '../errors/transport-error.js';
import { evmSubscriptions, type EvmSubscriptions } from '../subscriptions/evm-helpers.js';
import type { RequestOptions, RpcRequester } from '../api/request-options.js';
import { systemClock, type Clock } from '../clock.js';
import { getBalance, type GetBalanceParameters, type GetBalanceReturnType } from './get-balance.js';
export type { GetBalanceParameters, GetBalanceReturnType } from './get-balance.js';
import { createBlockMethods, type EvmBlockMethods } from './blocks.js';
import { createLogMethods, type EvmLogMethods } from './logs.js';
import type { EvmMethodContext } from './method-context.js';
import { sendAndWait, type SendAndWaitOptions, type SendAndWaitReturnType } from './send-and-wait.js';
import { createStateMethods, type EvmStateMethods } from './state.js';
import { createTransactionMethods, type EvmTransactionMethods } from './transactions.js';
import {
  blockHashOnlySchema,
  clientVersionSchema,
  parseResult,
  quantitySchema,
  syncingResultSchema,
} from './schemas.js';

export type { EvmBlockParameter, EvmBlockTag } from './inputs.js';
export type { SendRawTransactionReturnType } from './transactions.js';

/** Result of `getHealth` (from `eth_syncing`). */
export type GetHealthReturnType =
  | { readonly healthy: true }
  | {
      readonly healthy: false;
      /** e.g. `Node is syncing (block 100 of 142)`. */
      readonly message: string;
      /** `highestBlock − currentBlock` (never negative), when the node reports both. */
      readonly blocksBehind?: bigint;
    };

/** Result of `getVersion` (from `web3_clientVersion`). */
export interface GetVersionReturnType {
  /** The raw client version, e.g. `Geth/v1.14.11-stable/linux-amd64/go1.23.2`, `anvil/v1.7.1`. */
  readonly clientVersion: string;
  /** Client name, when the string has the usual `name/version/…` shape. */
  readonly name?: string;
  /** Client version, when the string has the usual `name/version/…` shape. */
  readonly version?: string;
}

/** Result of `getGenesisHash`: block 0's hash, lowercase `0x` + 64 hex digits. */
export type GetGenesisHashReturnType = `0x${string}`;
/** Result of `getChainId` (EIP-155 chain id). */
export type GetChainIdReturnType = number;
/** Result of `getBlockNumber`. */
export type GetBlockNumberReturnType = bigint;

/** Typed EVM calls over any {@link RpcRequester} (normally an `HttpTransportPool`). */
export interface EvmClient extends EvmStateMethods, EvmTransactionMethods, EvmBlockMethods, EvmLogMethods, EvmSubscriptions {
  /** `eth_syncing`: `false` → healthy; a sync-status object → unhealthy with `blocksBehind?`. */
  getHealth(options?: RequestOptions): Promise<GetHealthReturnType>;
  /** `web3_clientVersion` → `{ clientVersion, name?, version? }`. */
  getVersion(options?: RequestOptions): Promise<GetVersionReturnType>;
  /** `eth_getBlockByNumber(["0x0", false]).hash`; see `evmChainOf`. */
  getGenesisHash(options?: RequestOptions): Promise<GetGenesisHashReturnType>;
  /**
   * `eth_getBalance` → wei as an exact `bigint`. The address (`0x` + 40 hex, any case, EIP-55
   * checksum not verified) and block are validated before anything is sent (`INVALID_INPUT`).
   */
  getBalance(address: string, blockTag?: GetBalanceParameters, options?: RequestOptions): Promise<GetBalanceReturnType>;
  /** `eth_chainId` → a `number` (chain ids above 2^53 − 1 are `INVALID_RESPONSE`). */
  getChainId(options?: RequestOptions): Promise<GetChainIdReturnType>;
  /** `eth_blockNumber` → `bigint`. */
  getBlockNumber(options?: RequestOptions): Promise<GetBlockNumberReturnType>;
  /** `sendAndWait(serializedTransaction, options)` over this client's requester and clock; see the standalone function. */
  sendAndWait(serializedTransaction: string, options?: SendAndWaitOptions): Promise<SendAndWaitReturnType>;
}

const SIMPLE_NAME = /^[A-Za-z][\w.-]*$/;
const SIMPLE_VERSION = /^[^\s/]+$/;

/** Client-wide settings. */
export interface EvmClientDefaults {
  /** Clock for `getLogs` deadlines and `sendAndWait` polling (tests pass `createFakeClock()`). @default the real clock */
  readonly clock?: Clock;
}

function parseClientVersion(clientVersion: string): GetVersionReturnType {
  const [name, version] = clientVersion.split('/');
  if (name !== undefined && version !== undefined && SIMPLE_NAME.test(name) && SIMPLE_VERSION.test(version)) {
    return { clientVersion, name, version };
  }
  return { clientVersion };
}

/**
 * Creates typed EVM calls over `requester`. Results are validated with zod (a mismatch is
 * `INVALID_RESPONSE`), quantities are parsed exactly with `BigInt`, and every call takes a
 * trailing {@link RequestOptions} (`timeoutMs`, `signal`, `endpoint`, `consensus`) passed through.
 *
 * ```ts
 * const evm = createEvmClient(pool);
 * const wei = await evm.getBalance('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
 * ```
 */
export function createEvmClient(requester: RpcRequester, defaults: EvmClientDefaults = {}): EvmClient {
  const clock = defaults.clock ?? systemClock;
  const ctx: EvmMethodContext = { requester, clock };
  return {
    ...createStateMethods(ctx),
    ...createTransactionMethods(ctx),
    ...createBlockMethods(ctx),
    ...createLogMethods(ctx),
    sendAndWait: (serializedTransaction, options = {}) => sendAndWait(requester, serializedTransaction, { clock, ...options }),
    ...evmSubscriptions(requester),
    async getHealth(options) {
      const result = await requester.request('eth_syncing', [], options);
      const syncing = parseResult('eth_syncing', syncingResultSchema, result);
      if (syncing === false) return { healthy: true };
      const { currentBlock, highestBlock } = syncing;
      if (currentBlock === undefined || highestBlock === undefined) {
        return { healthy: false, message: 'Node is syncing' };
      }
      const blocksBehind = highestBlock > currentBlock ? highestBlock - currentBlock : 0n;
      return { healthy: false, message: `Node is syncing (block ${currentBlock} of ${highestBlock})`, blocksBehind };
    },

    async getVersion(options) {
      const result = await requester.request('web3_clientVersion', [], options);
      return parseClientVersion(parseResult('web3_clientVersion', clientVersionSchema, result));
    },

    async getGenesisHash(options) {
      const result = await requester.request('eth_getBlockByNumber', ['0x0', false], options);
      return parseResult('eth_getBlockByNumber', blockHashOnlySchema, result).hash;
    },

    getBalance: (address, blockTag, options) => getBalance(requester, address, blockTag, options),

    async getChainId(options) {
      const result = await requester.request('eth_chainId', [], options);
      const chainId = parseResult('eth_chainId', quantitySchema, result);
      if (chainId > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new TransportError('INVALID_RESPONSE', 'eth_chainId returned an invalid result (result: too_big)', {
          context: { reason: 'result: too_big' },
          method: 'eth_chainId',
        });
      }
      return Number(chainId);
    },

    async getBlockNumber(options) {
      const result = await requester.request('eth_blockNumber', [], options);
      return parseResult('eth_blockNumber', quantitySchema, result);
    },

  };
}
