/**
 * `getBalance` on its own, for pages that make one call: importing it from `sturdy-rpc/solana`
 * does not bring the client's other methods, their inputs and response schemas into the
 * bundle (`createSolanaClient` holds every method, so a bundler keeps them all).
 */
import type { RequestOptions, RpcRequester } from '../api/request-options.js';
import { assertSolanaAddress } from './address.js';
import { checkCommitment, checkSafeUint, compactConfig, type SolanaCommitment } from './inputs.js';
import { balanceResultSchema, parseResult } from './schemas.js';

export interface GetBalanceParameters {
  readonly commitment?: SolanaCommitment;
  readonly minContextSlot?: number | bigint;
}

export interface GetBalanceReturnType {
  readonly slot: bigint;
  readonly value: bigint;
}

/**
 * `getBalance` of `address` (lamports, an exact `bigint`, with the slot it was read at). The
 * address, commitment and `minContextSlot` are checked before anything is sent
 * (`INVALID_INPUT`); a malformed answer is `INVALID_RESPONSE`. `parameters.commitment` unset:
 * the node's default (`createSolanaClient`'s `defaults.commitment` does not apply here).
 *
 * ```ts
 * const { value } = await getBalance(pool, address, { commitment: 'confirmed' });
 * ```
 */
export function getBalance(requester: RpcRequester, address: string, parameters?: GetBalanceParameters, options?: RequestOptions): Promise<GetBalanceReturnType> {
  return balanceAt(requester, address, parameters ?? {}, options, undefined);
}

/** `getBalance`, with the client's default commitment for a call that names none. */
export async function balanceAt(
  requester: RpcRequester,
  address: string,
  parameters: GetBalanceParameters,
  options: RequestOptions | undefined,
  defaultCommitment: SolanaCommitment | undefined,
): Promise<GetBalanceReturnType> {
  assertSolanaAddress(address, 'address');
  const config = compactConfig({
    commitment: checkCommitment(parameters.commitment, 'commitment') ?? defaultCommitment,
    minContextSlot: checkSafeUint(parameters.minContextSlot, 'minContextSlot'),
  });
  const params = config === undefined ? [address] : [address, config];
  const result = await requester.request('getBalance', params, options);
  const balance = parseResult('getBalance', balanceResultSchema, result);
  return { slot: balance.context.slot, value: balance.value };
}
