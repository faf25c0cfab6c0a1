/**
 * Solana backfill. Account and program streams carry states, not events: after a rebind the
 * state now is read once (`getAccountInfo` / `getProgramAccounts`, with `minContextSlot` at
 * the last slot delivered, so no node answers from before it) and delivered as one
 * `resync` item in the notifications' shape. Slots are not all blocks: a `gap` of slots
 * stays a gap, with `blocks()` to list those that have one.
 */
import type { Backfill, BackfillFill, BackfillRequest } from './backfill-types.js';
import type { Seq } from './stream-profile.js';

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** The highest `context.slot` of the delivered notifications. */
function lastSlotTracker() {
  let last: Seq | undefined;
  return {
    observe(value: unknown) {
      const slot = record(record(value)['context'])['slot'];
      if ((typeof slot === 'number' || typeof slot === 'bigint') && (last === undefined || slot > last)) last = slot;
    },
    /** `minContextSlot` at the last slot delivered, when one was. */
    floor: (): { minContextSlot?: Seq } => (last === undefined ? {} : { minContextSlot: last }),
  };
}

/** The subscription config's fields that a read of the same accounts takes too. */
function readConfig(config: unknown, fields: readonly string[]): Record<string, unknown> {
  const source = record(config);
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (source[field] !== undefined) picked[field] = source[field];
  return picked;
}

export function accountResync(params: readonly unknown[]): Backfill {
  const slots = lastSlotTracker();
  const config = readConfig(params[1], ['commitment', 'encoding', 'dataSlice']);
  return {
    observe: slots.observe,
    async fill(_held, context): Promise<BackfillFill> {
      // Already `{ context, value }`: the shape of an `accountNotification`.
      const state = await context.request('getAccountInfo', [params[0], { ...config, ...slots.floor() }]);
      return { steps: [{ kind: 'resync', values: [state] }] };
    },
  };
}

export function programResync(params: readonly unknown[]): Backfill {
  const slots = lastSlotTracker();
  const config = readConfig(params[1], ['commitment', 'encoding', 'dataSlice', 'filters']);
  return {
    observe: slots.observe,
    async fill(_held, context): Promise<BackfillFill> {
      const answer = record(await context.request('getProgramAccounts', [params[0], { ...config, withContext: true, ...slots.floor() }]));
      const accounts = Array.isArray(answer['value']) ? (answer['value'] as unknown[]) : [];
      // One `programNotification` shape per account: `{ context, value: { pubkey, account } }`.
      return { steps: [{ kind: 'resync', values: accounts.map((value) => ({ context: answer['context'], value })) }] };
    },
  };
}

export function slotGaps(request: BackfillRequest): Backfill {
  return {
    gapFields: (from, to) => ({
      blocks: async () => {
        const slots = await request('getBlocks', [from, to], {});
        return Array.isArray(slots) ? slots.map((slot) => BigInt(slot as number | bigint)) : [];
      },
    }),
  };
}
