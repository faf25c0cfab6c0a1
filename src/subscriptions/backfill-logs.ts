/**
 * EVM `logs` backfill: the blocks from the last one the subscription is known to have
 * covered (its last log's block, or the head read when it was bound) up to the head now are
 * walked as one chain, and each block's logs read by its hash (EIP-234 `blockHash` filter:
 * exact even while the chain moves). Logs delivered from blocks the walk shows replaced (a
 * reorg across the outage) are delivered again with `removed: true`, newest first, as a
 * node does; then the missed logs, in block order. Duplicates of live logs are dropped by
 * the stream's identity dedup.
 */
import type { Backfill, BackfillContext, BackfillFill, BackfillStep } from './backfill-types.js';
import { KnownHashes, latestBlock, reasonOf, walkChain } from './backfill-chain.js';
import type { ResolvedBackfill } from './settings.js';

interface DeliveredBlock {
  readonly number: bigint;
  readonly logs: Record<string, unknown>[];
}

const HEX = /^0x[0-9a-fA-F]{1,64}$/;
const record = (value: unknown) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined);

export function logsBackfill(filter: unknown, bounds: ResolvedBackfill): Backfill {
  const known = new KnownHashes(bounds.maxBlocks);
  /** Logs delivered, by block hash, for the last `maxBlocks` blocks that had some. */
  const delivered = new Map<string, DeliveredBlock>();
  const wire = record(filter) ?? {};
  return {
    observe(value) {
      const log = record(value);
      const number = log?.['blockNumber'];
      const hash = log?.['blockHash'];
      if (log === undefined || typeof number !== 'string' || !HEX.test(number) || typeof hash !== 'string') return;
      const key = hash.toLowerCase();
      if (log['removed'] === true) {
        delivered.delete(key);
        return;
      }
      known.set(BigInt(number), key);
      let block = delivered.get(key);
      if (block === undefined) {
        delivered.set(key, (block = { number: BigInt(number), logs: [] }));
        if (delivered.size > bounds.maxBlocks) delivered.delete(delivered.keys().next().value as string);
      }
      block.logs.push(log);
    },
    started(context) {
      // The head when it went live: the blocks up to it are covered by the subscription.
      latestBlock(context).then(
        (head) => head !== undefined && known.set(head.number, head.hash),
        // Unread, a rebind fills from the last log delivered instead.
        () => undefined,
      );
    },
    fill: (_held, context) => fillLogs(wire, known, delivered, context),
  };
}

async function fillLogs(filter: Record<string, unknown>, known: KnownHashes, delivered: Map<string, DeliveredBlock>, context: BackfillContext): Promise<BackfillFill> {
  // Nothing known covered (no log, no head read yet): no number to fill from.
  if (known.top === undefined) return { steps: [] };
  let top;
  try {
    top = await latestBlock(context);
  } catch {
    return { steps: [] };
  }
  if (top === undefined) return { steps: [] };
  const walk = await walkChain(top, known, context);
  const canonical = new Map(walk.blocks.map((block) => [block.number, block.hash]));
  const steps: BackfillStep[] = [];
  const undone = [...delivered].filter(([hash, block]) => canonical.has(block.number) && canonical.get(block.number) !== hash).sort(([, a], [, b]) => (a.number > b.number ? -1 : 1));
  for (const [hash, block] of undone) {
    delivered.delete(hash);
    for (const log of [...block.logs].reverse()) steps.push({ kind: 'notification', value: { ...log, removed: true } });
  }
  if (walk.unfilled !== undefined) steps.push({ kind: 'gap', ...walk.unfilled });
  for (const block of walk.blocks) known.set(block.number, block.hash);
  try {
    const logs = await Promise.all(walk.blocks.map((block) => context.request('eth_getLogs', [{ ...filter, blockHash: block.hash }])));
    for (const list of logs) if (Array.isArray(list)) for (const log of list) steps.push({ kind: 'notification', value: log });
  } catch (error) {
    steps.push({ kind: 'gap', from: walk.blocks[0]!.number, to: top.number, reason: reasonOf(error, context) });
  }
  return { steps };
}
