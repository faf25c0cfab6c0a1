/**
 * The integrity hash book's wiring (issue 28 §1): EVM block answers that passed their checks
 * teach the book the hash of each number beyond the reorg window, by operator; a later call
 * for such a block is checked against the settled hash (`settled-hash`). Present only with
 * integrity on and a pool that may serve EVM (`chain` not `solana`).
 */
import type { RoleState } from '../admission/role-state.js';
import type { ClassifiedOutcome } from '../http/outcome.js';
import { blockIdOf } from '../integrity/evm-checks.js';
import { HashBook } from '../integrity/hash-book.js';

export interface SettledHashes {
  /** An answer of `role`: a block's number and hash are learned from it. */
  observe(role: RoleState, method: string, outcome: ClassifiedOutcome): void;
  settledHashAt(number: bigint): string | undefined;
}

export function createSettledHashes(reorgWindowBlocks: number | undefined, blockTip: () => bigint | undefined): SettledHashes {
  const book = new HashBook(reorgWindowBlocks);
  return {
    observe: (role, method, outcome) => {
      if (!outcome.ok || (method !== 'eth_getBlockByNumber' && method !== 'eth_getBlockByHash')) return;
      const block = blockIdOf(outcome.result);
      if (block !== undefined) book.observe(block.number, block.hash, role.endpoint.operator, blockTip());
    },
    settledHashAt: (number) => book.hashAt(number),
  };
}
