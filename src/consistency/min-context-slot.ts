/**
 * Which Solana methods take `minContextSlot`, and where their config object sits: a session
 * sends its floor there, so a node that has not reached the slot refuses the read (-32016,
 * "minimum context slot has not been reached") instead of answering with older state. The
 * pool retries that refusal on another endpoint at once, at no cost to the node's reputation:
 * it is lag, not failure (`http/classify.ts`: capability, rejected). Pure.
 */

/**
 * Solana reads whose config object accepts `minContextSlot`, and that object's position in
 * params. `sendTransaction` takes it too (for its preflight) but is left out: a send is never
 * resent once it may have reached a node, so a refusal for lag would fail it, and a send
 * reads no state the app sees.
 */
export const MIN_CONTEXT_SLOT_CONFIG_INDEX: Readonly<Record<string, number>> = Object.freeze({
  getAccountInfo: 1,
  getBalance: 1,
  getBlockHeight: 0,
  getEpochInfo: 0,
  getInflationReward: 1,
  getLatestBlockhash: 0,
  getMultipleAccounts: 1,
  getProgramAccounts: 1,
  getSignaturesForAddress: 1,
  getSlot: 0,
  getSlotLeader: 0,
  getStakeActivation: 1,
  getTokenAccountsByDelegate: 2,
  getTokenAccountsByOwner: 2,
  getTransactionCount: 0,
  isBlockhashValid: 1,
  simulateTransaction: 1,
});

const isConfig = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `params` with `minContextSlot` at least `floor` in the method's config object (added, or
 * raised when the caller's is lower); the same array when the method takes none, the caller's
 * is already at or past the floor, or the params are not of the method's shape (the node, not
 * the session, says what is wrong with them).
 */
export function withMinContextSlot(method: string, params: readonly unknown[], floor: bigint): readonly unknown[] {
  const index = MIN_CONTEXT_SLOT_CONFIG_INDEX[method];
  if (index === undefined || params.length < index) return params;
  const config = params[index];
  if (config !== undefined && config !== null && !isConfig(config)) return params;
  const given = isConfig(config) ? config['minContextSlot'] : undefined;
  if ((typeof given === 'number' || typeof given === 'bigint') && BigInt(given) >= floor) return params;
  const next = params.slice();
  // A JSON number: slots stay far below 2^53 (the typed clients send them so too).
  next[index] = { ...(isConfig(config) ? config : {}), minContextSlot: Number(floor) };
  return next;
}
