/**
 * Intrinsic integrity (issue 28 §1): what a call asked, read once from its method and params,
 * so its answer can be checked against it where answers are classified — with no second
 * request. An answer that contradicts the question (a receipt of another transaction, a block
 * of another number, logs outside the filter, a context slot below the `minContextSlot` sent,
 * another chain than the verified one) is a lie, not an answer: `invalid-response` with detail
 * `integrity` and the check's name, asked of another endpoint and counted against the node.
 *
 * The checks are one table of pure rows (`INTEGRITY_ROWS`); a method no row names costs one
 * map look-up per call and nothing per answer.
 */
import { EVM_ROWS } from './evm-checks.js';
import { LOG_ROWS } from './log-checks.js';
import { SOLANA_ROWS } from './solana-checks.js';
import type { AnyIntegrityRow, IntegrityAsk, IntegrityFacts } from './types.js';

export type { AnyIntegrityRow, IntegrityAsk, IntegrityCheckName, IntegrityFacts, IntegrityRow } from './types.js';

/** Every check, in one table. */
export const INTEGRITY_ROWS: readonly AnyIntegrityRow[] = [...EVM_ROWS, ...LOG_ROWS, ...SOLANA_ROWS];

const ROWS_BY_METHOD: ReadonlyMap<string, readonly AnyIntegrityRow[]> = (() => {
  const byMethod = new Map<string, AnyIntegrityRow[]>();
  for (const row of INTEGRITY_ROWS) {
    for (const method of row.methods) {
      const rows = byMethod.get(method);
      if (rows === undefined) byMethod.set(method, [row]);
      else rows.push(row);
    }
  }
  return byMethod;
})();

function bind(row: AnyIntegrityRow, asked: unknown): IntegrityAsk {
  return { verify: (result, chainVerified) => row.verify(asked, result, chainVerified) };
}

/** The checks a call's answer must pass, or undefined when none applies. Pure. */
export function integrityAskOf(method: string, params: readonly unknown[], facts: IntegrityFacts = {}): IntegrityAsk | undefined {
  const rows = ROWS_BY_METHOD.get(method);
  if (rows === undefined) return undefined;
  let single: IntegrityAsk | undefined;
  let many: IntegrityAsk[] | undefined;
  for (const row of rows) {
    const asked = row.ask(params, facts, method);
    if (asked === undefined) continue;
    const bound = bind(row, asked);
    if (single === undefined) single = bound;
    else (many ??= [single]).push(bound);
  }
  if (many === undefined) return single;
  const all = many;
  return {
    verify: (result, chainVerified) => {
      for (const ask of all) {
        const failed = ask.verify(result, chainVerified);
        if (failed !== undefined) return failed;
      }
      return undefined;
    },
  };
}

/** `expectedChain` as the checks read it (already validated by the chain guard's config check). */
export function integrityFactsOf(expected: { readonly chainId?: number | bigint | undefined; readonly genesisHash?: string | undefined } | undefined): IntegrityFacts {
  if (expected === undefined) return {};
  const { chainId, genesisHash } = expected;
  return {
    chainId: chainId === undefined ? undefined : BigInt(chainId),
    genesisHash: genesisHash === undefined ? undefined : genesisHash.startsWith('0x') ? genesisHash.toLowerCase() : genesisHash,
  };
}
