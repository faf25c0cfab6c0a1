import type { Clock } from '../clock.js';
import type { RpcRequester } from '../api/request-options.js';
import { checkCommitment, checkSafeUint, compactConfig, type SolanaCommitment } from './inputs.js';

/** What every family of typed calls shares: the requester, the client's defaults and its clock. */
export interface SolanaMethodContext {
  readonly requester: RpcRequester;
  readonly defaultCommitment: SolanaCommitment | undefined;
  readonly clock: Clock;
}

/** The `commitment` / `minContextSlot` options most reads take. */
export interface SolanaReadParameters {
  /** @default the client's `commitment`, else the node's default (`finalized`) */
  readonly commitment?: SolanaCommitment;
  /** Fail with node error -32016 unless the node has reached this slot. */
  readonly minContextSlot?: number | bigint;
}

/** The validated config object of a read, with extra (already validated) entries. */
export function readConfig(
  ctx: SolanaMethodContext,
  parameters: SolanaReadParameters,
  extra: Record<string, unknown> = {},
): Record<string, unknown> | undefined {
  return compactConfig({
    commitment: checkCommitment(parameters.commitment, 'commitment') ?? ctx.defaultCommitment,
    minContextSlot: checkSafeUint(parameters.minContextSlot, 'minContextSlot'),
    ...extra,
  });
}

/** `[first, config]`, or `[first]` when there is no config. */
export function paramsWith(first: readonly unknown[], config: Record<string, unknown> | undefined): unknown[] {
  return config === undefined ? [...first] : [...first, config];
}

