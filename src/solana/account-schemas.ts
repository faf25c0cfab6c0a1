import * as z from 'zod/mini';
import { isSolanaAddress } from './address.js';
import { accountDataSchema, base64DataSchema, type AccountData } from './account-data.js';
import type { AccountEncoding } from './account-inputs.js';
import { u64Schema } from './schemas.js';

/**
 * One account as the typed calls return it. `D` is its data: `Uint8Array` when the call asked
 * for `base64` (the default), bytes or the node's parse ({@link AccountData}) with `jsonParsed`.
 */
export interface AccountInfo<D extends AccountData = AccountData> {
  /** Balance in lamports (u64, exact). */
  readonly lamports: bigint;
  /** The owning program (base58). */
  readonly owner: string;
  /** True for a program account. */
  readonly executable: boolean;
  /** u64; `U64_MAX` for rent-exempt accounts. */
  readonly rentEpoch: bigint;
  /** Bytes of data in the account, when the node reports it (it does since 1.17). */
  readonly space?: bigint;
  /** The data (bytes, or the node's parse with `jsonParsed`); only the slice with `dataSlice`. */
  readonly data: D;
}

/** A base58 address of 32 bytes in a result. */
export const addressSchema = z.string().check(z.refine(isSolanaAddress, { message: 'expected a base58 address of 32 bytes' }));

/**
 * One account object, data decoded under `maxDataBytes`. Asked for `base64`, only base64 data
 * is accepted (a parsed object would break the bytes the caller's types promise).
 */
export function accountInfoSchema(maxDataBytes: number, encoding: AccountEncoding = 'jsonParsed') {
  const account = z.object({
    lamports: u64Schema,
    owner: addressSchema,
    executable: z.boolean(),
    rentEpoch: u64Schema,
    space: z.optional(u64Schema),
    data: encoding === 'base64' ? base64DataSchema(maxDataBytes) : accountDataSchema(maxDataBytes),
  });
  return z.pipe(
    account,
    z.transform((parsed: z.output<typeof account>): AccountInfo => {
      const { lamports, owner, executable, rentEpoch, space, data } = parsed;
      return space === undefined ? { lamports, owner, executable, rentEpoch, data } : { lamports, owner, executable, rentEpoch, space, data };
    }),
  );
}

/** `{ context: { slot }, value }` around any value schema. */
export function withContext<S extends z.ZodMiniType>(value: S) {
  return z.object({ context: z.object({ slot: u64Schema }), value });
}

/** An account with its address, as `getProgramAccounts` and `getTokenAccountsByOwner` list them. */
export interface KeyedAccountInfo<D extends AccountData = AccountData> {
  readonly pubkey: string;
  readonly account: AccountInfo<D>;
}

export function keyedAccountSchema(maxDataBytes: number, encoding?: AccountEncoding) {
  return z.object({ pubkey: addressSchema, account: accountInfoSchema(maxDataBytes, encoding) });
}
