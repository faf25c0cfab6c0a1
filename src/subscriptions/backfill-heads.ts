/**
 * `newHeads` backfill: every block number missed is read, one chain from the head down to
 * the last block delivered, and delivered in order before the live heads; blocks that
 * replace delivered ones (a reorg across the outage) come flagged `reorged`.
 */
import type { Backfill, BackfillContext, BackfillFill, BackfillStep } from './backfill-types.js';
import { chainBlockOf, KnownHashes, latestBlock, reasonOf, walkChain, type ChainBlock } from './backfill-chain.js';
import type { ResolvedBackfill } from './settings.js';
import type { GapReason } from './types.js';

/** Fields of a block answer that a `newHeads` notification does not carry. */
const BODY_FIELDS = new Set(['transactions', 'uncles', 'withdrawals', 'size', 'totalDifficulty']);

/** A block answer in the shape of a `newHeads` notification (the header only). */
export function headOf(raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const head: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (!BODY_FIELDS.has(key)) head[key] = value;
  return head;
}

export function headsBackfill(bounds: ResolvedBackfill): Backfill {
  const known = new KnownHashes(bounds.maxBlocks);
  return {
    observe(value) {
      const head = chainBlockOf(value);
      if (head !== undefined) known.set(head.number, head.hash);
    },
    fill: (held, context) => fillHeads(known, chainBlockOf(held[0]), context),
  };
}

async function fillHeads(known: KnownHashes, firstLive: ChainBlock | undefined, context: BackfillContext): Promise<BackfillFill> {
  const last = known.top;
  // Nothing delivered yet: nothing is known missed (the live heads start the stream).
  if (last === undefined) return { steps: [] };
  // The first live head after the rebind links to what was delivered: nothing missed.
  if (firstLive !== undefined && known.get(firstLive.number - 1n) === firstLive.parentHash) return { steps: [] };
  let top: ChainBlock | undefined;
  try {
    // Down from the first live head's parent (one chain with what follows), else from the head now.
    top = firstLive === undefined ? await latestBlock(context) : chainBlockOf(await context.request('eth_getBlockByHash', [firstLive.parentHash, false]));
  } catch (error) {
    return firstLive === undefined ? { steps: [], unfilled: reasonOf(error, context) } : unfilledUpTo(last, firstLive, reasonOf(error, context));
  }
  if (top === undefined) return firstLive === undefined ? { steps: [], unfilled: 'failed' } : unfilledUpTo(last, firstLive, 'failed');
  // The endpoints answering over HTTP are not past what was delivered: on the same chain, or
  // behind every block delivered (a node catching up, not a reorg): nothing missed.
  if (top.number <= last && (known.get(top.number) ?? top.hash) === top.hash) return { steps: [] };
  const walk = await walkChain(top, known, context);
  const steps: BackfillStep[] = [];
  if (walk.unfilled !== undefined) steps.push({ kind: 'gap', ...walk.unfilled });
  for (const block of walk.blocks) {
    const before = known.get(block.number);
    const head = headOf(block.raw);
    steps.push(before !== undefined && before !== block.hash ? { kind: 'notification', value: head, reorged: true } : { kind: 'notification', value: head });
  }
  const bottom = walk.blocks[0]!;
  return { steps, resumeAfter: { n: bottom.number - 1n, key: bottom.parentHash } };
}

/** Nothing read: the numbers between the last delivered and the first live head are a gap. */
function unfilledUpTo(last: bigint, firstLive: ChainBlock, reason: GapReason): BackfillFill {
  const to = firstLive.number - 1n;
  return to > last ? { steps: [{ kind: 'gap', from: last + 1n, to, reason }], resumeAfter: { n: to, key: firstLive.parentHash } } : { steps: [] };
}
