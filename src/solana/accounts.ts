import { TransportError } from '../errors/transport-error.js';
import type { RequestOptions } from '../api/request-options.js';
import { assertSolanaAddress } from './address.js';
import {
  checkDataSlice,
  checkEncoding,
  checkFilters,
  checkMaxDataBytes,
  type AccountEncoding,
  type DataSlice,
  type ProgramAccountsFilter,
} from './account-inputs.js';
import type { AccountData } from './account-data.js';
import { accountInfoSchema, keyedAccountSchema, withContext, type AccountInfo, type KeyedAccountInfo } from './account-schemas.js';
import { checkSafeUint, invalidInput } from './inputs.js';
import { paramsWith, readConfig, type SolanaMethodContext, type SolanaReadParameters } from './method-context.js';
import { parseResult, U64_MAX, u64Schema } from './schemas.js';
import * as z from 'zod/mini';

/** Options of `getAccountInfo` and `getMultipleAccounts`. */
export interface GetAccountInfoParameters extends SolanaReadParameters {
  /** `base64` → `data` is a `Uint8Array`; `jsonParsed` → the node's parse where it has one (else bytes). @default 'base64' */
  readonly encoding?: AccountEncoding;
  /** Only this window of each account's data. */
  readonly dataSlice?: DataSlice;
  /** Largest data (decoded bytes) accepted per account; more is `INVALID_RESPONSE` (`…data: too_big`). @default 10 485 760 (10 MiB, Solana's largest account) */
  readonly maxDataBytes?: number;
}
/** Options of `getMultipleAccounts`. */
export type GetMultipleAccountsParameters = GetAccountInfoParameters;
/** Options of `getProgramAccounts`. */
export interface GetProgramAccountsParameters extends GetAccountInfoParameters {
  /** Up to 4 filters, all of which an account must pass. */
  readonly filters?: readonly ProgramAccountsFilter[];
}
/** Which token accounts `getTokenAccountsByOwner` lists: of one mint, or of one token program. */
export type TokenAccountsFilter = { readonly mint: string } | { readonly programId: string };
/** Options of `getTokenAccountsByOwner`. */
export type GetTokenAccountsByOwnerParameters = GetAccountInfoParameters;

/**
 * What the account reads' overloads pick by: `encoding` unset or `'base64'` gives every
 * account's `data` as a `Uint8Array` (so `data.length` type-checks); `'jsonParsed'` gives
 * {@link AccountData} (bytes, or the node's parse where it has one).
 */
export interface Base64Encoding {
  /** @default 'base64' */
  readonly encoding?: 'base64';
}

/** Result of `getAccountInfo`: `value` is `null` when the account does not exist. */
export interface GetAccountInfoReturnType<D extends AccountData = AccountData> {
  readonly slot: bigint;
  readonly value: AccountInfo<D> | null;
}
/** Result of `getMultipleAccounts`: one entry per address, in order (`null` = no such account). */
export interface GetMultipleAccountsReturnType<D extends AccountData = AccountData> {
  readonly slot: bigint;
  readonly value: readonly (AccountInfo<D> | null)[];
}
/** Result of `getProgramAccounts` and `getTokenAccountsByOwner`. */
export interface GetProgramAccountsReturnType<D extends AccountData = AccountData> {
  readonly slot: bigint;
  readonly value: readonly KeyedAccountInfo<D>[];
}
export type GetTokenAccountsByOwnerReturnType<D extends AccountData = AccountData> = GetProgramAccountsReturnType<D>;
/** Result of `getTokenAccountBalance`. */
export interface GetTokenAccountBalanceReturnType {
  readonly slot: bigint;
  readonly value: {
    /** Raw amount in base units (u64, exact). */
    readonly amount: bigint;
    readonly decimals: number;
    /** The amount in whole tokens as a decimal string (never a float). */
    readonly uiAmountString: string;
  };
}

/**
 * Typed account reads. Each read that takes an `encoding` is overloaded by it: without one (or
 * with `'base64'`) `data` is a `Uint8Array`; with `'jsonParsed'` (or an encoding only known at
 * run time) it is {@link AccountData}.
 */
export interface SolanaAccountMethods {
  /** `getAccountInfo`: base64 data decoded to bytes, under `maxDataBytes`. */
  getAccountInfo(address: string, parameters?: GetAccountInfoParameters & Base64Encoding, options?: RequestOptions): Promise<GetAccountInfoReturnType<Uint8Array>>;
  /** `getAccountInfo` with `jsonParsed`: the node's parse passed through where it has one, else bytes. */
  getAccountInfo(address: string, parameters: GetAccountInfoParameters, options?: RequestOptions): Promise<GetAccountInfoReturnType>;
  /** `getMultipleAccounts` of 1 to 100 addresses; an answer of another length is `INVALID_RESPONSE`. */
  getMultipleAccounts(
    addresses: readonly string[],
    parameters?: GetMultipleAccountsParameters & Base64Encoding,
    options?: RequestOptions,
  ): Promise<GetMultipleAccountsReturnType<Uint8Array>>;
  getMultipleAccounts(addresses: readonly string[], parameters: GetMultipleAccountsParameters, options?: RequestOptions): Promise<GetMultipleAccountsReturnType>;
  /** `getProgramAccounts` with `filters` (≤ 4: `dataSize`, `memcmp`) and `dataSlice`; always `withContext`. */
  getProgramAccounts(
    programId: string,
    parameters?: GetProgramAccountsParameters & Base64Encoding,
    options?: RequestOptions,
  ): Promise<GetProgramAccountsReturnType<Uint8Array>>;
  getProgramAccounts(programId: string, parameters: GetProgramAccountsParameters, options?: RequestOptions): Promise<GetProgramAccountsReturnType>;
  /** `getTokenAccountBalance` → exact `amount`, `decimals`, `uiAmountString`. */
  getTokenAccountBalance(
    address: string,
    parameters?: SolanaReadParameters,
    options?: RequestOptions,
  ): Promise<GetTokenAccountBalanceReturnType>;
  /** `getTokenAccountsByOwner` of one `mint` or one `programId`. */
  getTokenAccountsByOwner(
    owner: string,
    filter: TokenAccountsFilter,
    parameters?: GetTokenAccountsByOwnerParameters & Base64Encoding,
    options?: RequestOptions,
  ): Promise<GetTokenAccountsByOwnerReturnType<Uint8Array>>;
  getTokenAccountsByOwner(
    owner: string,
    filter: TokenAccountsFilter,
    parameters: GetTokenAccountsByOwnerParameters,
    options?: RequestOptions,
  ): Promise<GetTokenAccountsByOwnerReturnType>;
  /** `getMinimumBalanceForRentExemption(dataLength)` → lamports (exact). */
  getMinimumBalanceForRentExemption(
    dataLength: number | bigint,
    parameters?: Pick<SolanaReadParameters, 'commitment'>,
    options?: RequestOptions,
  ): Promise<bigint>;
}

/** The largest `getMultipleAccounts` request nodes accept. */
export const MAX_MULTIPLE_ACCOUNTS = 100;

const tokenAmountSchema = withContext(
  z.object({
    amount: z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,20}$/, { message: 'expected a u64 decimal string' })), z.transform((text: string) => BigInt(text))),
      z.bigint().check(z.maximum(U64_MAX)),
    ),
    decimals: z.number().check(z.int(), z.minimum(0), z.maximum(255)),
    uiAmountString: z.string().check(z.regex(/^\d+(?:\.\d+)?$/, { message: 'expected a decimal string' })),
  }),
);

/** The implementation's view: one signature per read (the overloads only narrow `data`'s type). */
type AccountMethodsImplementation = {
  readonly [K in keyof SolanaAccountMethods]: K extends 'getAccountInfo' | 'getMultipleAccounts' | 'getProgramAccounts' | 'getTokenAccountsByOwner'
    ? OverloadOf<SolanaAccountMethods[K]>
    : SolanaAccountMethods[K];
};
/** The last (widest) signature of an overloaded method. */
type OverloadOf<F> = F extends { (...args: never[]): unknown; (...args: infer A): infer R } ? (...args: A) => R : F;

interface AccountRead {
  readonly config: Record<string, unknown> | undefined;
  readonly encoding: AccountEncoding;
  readonly maxDataBytes: number;
  readonly sliced: boolean;
}

function accountRead(ctx: SolanaMethodContext, parameters: GetAccountInfoParameters, extra: Record<string, unknown> = {}): AccountRead {
  const dataSlice = checkDataSlice(parameters.dataSlice);
  const maxDataBytes = checkMaxDataBytes(parameters.maxDataBytes);
  const encoding = checkEncoding(parameters.encoding);
  const config = readConfig(ctx, parameters, { encoding, dataSlice, ...extra });
  return { config, encoding, maxDataBytes, sliced: dataSlice !== undefined };
}

/** Without `dataSlice`, decoded bytes must be as long as the `space` the node itself reported. */
function checkSpace(method: string, account: AccountInfo | null, sliced: boolean, path: string): AccountInfo | null {
  if (account === null || sliced || account.space === undefined || !(account.data instanceof Uint8Array)) return account;
  if (BigInt(account.data.length) === account.space) return account;
  const reason = `${path}.data: space-mismatch`;
  throw new TransportError('INVALID_RESPONSE', `${method} returned an invalid result (${reason})`, { context: { reason }, method });
}

function checkAddresses(addresses: unknown, field: string, max: number): readonly string[] {
  if (!Array.isArray(addresses) || addresses.length === 0 || addresses.length > max) {
    return invalidInput(field, `an array of 1 to ${max} addresses`);
  }
  addresses.forEach((address, index) => assertSolanaAddress(address, `${field}.${index}`));
  return addresses as readonly string[];
}

function tokenFilter(filter: unknown): Record<string, string> {
  if (typeof filter === 'object' && filter !== null) {
    const f = filter as { mint?: unknown; programId?: unknown };
    if ('mint' in f && !('programId' in f)) {
      assertSolanaAddress(f.mint, 'filter.mint');
      return { mint: f.mint };
    }
    if ('programId' in f && !('mint' in f)) {
      assertSolanaAddress(f.programId, 'filter.programId');
      return { programId: f.programId };
    }
  }
  return invalidInput('filter', '{ mint } or { programId }');
}

export function createAccountMethods(ctx: SolanaMethodContext): SolanaAccountMethods {
  // The schemas enforce the overloads' promise: asked for base64, data is only ever bytes.
  return accountMethods(ctx) as SolanaAccountMethods;
}

function accountMethods(ctx: SolanaMethodContext): AccountMethodsImplementation {
  const { requester } = ctx;

  async function keyedAccounts(method: string, params: unknown[], read: AccountRead, options?: RequestOptions) {
    const result = await requester.request(method, params, options);
    const schema = z.union([withContext(z.array(keyedAccountSchema(read.maxDataBytes, read.encoding))), z.array(keyedAccountSchema(read.maxDataBytes, read.encoding))]);
    const parsed = parseResult(method, schema, result);
    // Some nodes ignore `withContext`; the slot is then unknown (0n would lie), so refuse rather than guess.
    if (Array.isArray(parsed)) {
      throw new TransportError('INVALID_RESPONSE', `${method} returned an invalid result (context: missing)`, { context: { reason: 'context: missing' }, method });
    }
    parsed.value.forEach((keyed, index) => checkSpace(method, keyed.account, read.sliced, `value.${index}.account`));
    return { slot: parsed.context.slot, value: parsed.value };
  }

  return {
    async getAccountInfo(address, parameters = {}, options) {
      assertSolanaAddress(address, 'address');
      const read = accountRead(ctx, parameters);
      const result = await requester.request('getAccountInfo', paramsWith([address], read.config), options);
      const parsed = parseResult('getAccountInfo', withContext(z.nullable(accountInfoSchema(read.maxDataBytes, read.encoding))), result);
      return { slot: parsed.context.slot, value: checkSpace('getAccountInfo', parsed.value, read.sliced, 'value') };
    },

    async getMultipleAccounts(addresses, parameters = {}, options) {
      const list = checkAddresses(addresses, 'addresses', MAX_MULTIPLE_ACCOUNTS);
      const read = accountRead(ctx, parameters);
      const result = await requester.request('getMultipleAccounts', paramsWith([list], read.config), options);
      const schema = withContext(z.array(z.nullable(accountInfoSchema(read.maxDataBytes, read.encoding))).check(z.length(list.length)));
      const parsed = parseResult('getMultipleAccounts', schema, result);
      const value = parsed.value.map((account, index) => checkSpace('getMultipleAccounts', account, read.sliced, `value.${index}`));
      return { slot: parsed.context.slot, value };
    },

    async getProgramAccounts(programId, parameters = {}, options) {
      assertSolanaAddress(programId, 'programId');
      const read = accountRead(ctx, parameters, { filters: checkFilters(parameters.filters), withContext: true });
      return keyedAccounts('getProgramAccounts', paramsWith([programId], read.config), read, options);
    },

    async getTokenAccountBalance(address, parameters = {}, options) {
      assertSolanaAddress(address, 'address');
      const result = await requester.request('getTokenAccountBalance', paramsWith([address], readConfig(ctx, parameters)), options);
      const parsed = parseResult('getTokenAccountBalance', tokenAmountSchema, result);
      return { slot: parsed.context.slot, value: parsed.value };
    },

    async getTokenAccountsByOwner(owner, filter, parameters = {}, options) {
      assertSolanaAddress(owner, 'owner');
      const which = tokenFilter(filter);
      const read = accountRead(ctx, parameters);
      return keyedAccounts('getTokenAccountsByOwner', paramsWith([owner, which], read.config), read, options);
    },

    async getMinimumBalanceForRentExemption(dataLength, parameters = {}, options) {
      const length = checkSafeUint(dataLength, 'dataLength') ?? invalidInput('dataLength', 'a non-negative integer');
      const config = readConfig(ctx, parameters.commitment === undefined ? {} : { commitment: parameters.commitment });
      const result = await requester.request('getMinimumBalanceForRentExemption', paramsWith([length], config), options);
      return parseResult('getMinimumBalanceForRentExemption', u64Schema, result);
    },
  };
}
