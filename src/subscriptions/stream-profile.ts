/**
 * What the pool knows about each subscription method: how to unsubscribe, whether the
 * stream is ordered (and by what number), how to recognise a notification already
 * delivered, whether it ends after one notification, and how often it should tick.
 *
 * Guarantees per method (after a rebind, across sockets):
 * - Solana `slotSubscribe`, `rootSubscribe`; EVM `newHeads`: ordered. A number below
 *   the last delivered one is dropped (a node behind the previous one, after a rebind), and
 *   so is the same number again — except, for EVM heads, a new hash at the last number (a
 *   reorg at the tip), which is delivered. Skipped numbers yield one `gap { from, to }`.
 * - Solana `signatureSubscribe`: one notification, then the subscription is done.
 * - Solana `logsSubscribe`, EVM `logs`, `newPendingTransactions`: unordered; deduplicated by
 *   signature / (block hash, log index, removed) / transaction hash over the last 4096 keys.
 * - Solana `accountSubscribe`, `programSubscribe`, `blockSubscribe`: no sequence. A
 *   notification whose `context.slot` is not newer than the last delivered one for the same
 *   account is dropped; changes during a rebind are not replayed — the `rebind` item is the
 *   signal to re-read over HTTP.
 * - Other methods: delivered as they come (no dedup, no gaps).
 * What is read after a rebind (backfill) is `backfill.ts`'s, per stream.
 */

/** A sequence number: a `number` while it is a safe integer (the hot path), else a `bigint`. */
export type Seq = number | bigint;

/** How notifications of one subscription are ordered and deduplicated. */
export type StreamOrder =
  /** A number that only grows (slot, root, block): dedup and gaps. `key` distinguishes forks at one number (block hash). */
  | { readonly type: 'sequence'; readonly read: (value: unknown) => { readonly n: Seq; readonly key?: string } | undefined }
  /** Each notification has an identity; seen ones are dropped (bounded memory). */
  | { readonly type: 'identity'; readonly read: (value: unknown) => string | undefined }
  /** A per-key slot that only grows (account changes): older or equal slots are dropped. */
  | { readonly type: 'per-key-slot'; readonly read: (value: unknown) => { readonly key: string; readonly slot: Seq } | undefined }
  | { readonly type: 'none' };

export interface StreamProfile {
  readonly unsubscribeMethod: string;
  readonly order: StreamOrder;
  /** The stream ends after its first notification (Solana `signatureSubscribe`). */
  readonly once: boolean;
  /** Expected time between notifications, in ms; undefined: learned (ordered streams) or none. */
  readonly expectedIntervalMs: number | undefined;
  /** Whether silence on this stream means the socket is dead (streams that must tick). */
  readonly ticks: boolean;
}

const SOLANA_SLOT_MS = 400;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

function integer(value: unknown): Seq | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string' && HEX_QUANTITY.test(value)) return value.length <= 15 ? Number.parseInt(value, 16) : BigInt(value);
  return undefined;
}

const contextSlot = (value: unknown) => integer(record(record(value)?.['context'])?.['slot']);

const ORDERS = {
  slot: { type: 'sequence', read: (v: unknown) => wrap(integer(record(v)?.['slot'])) },
  root: { type: 'sequence', read: (v: unknown) => wrap(integer(v)) },
  head: {
    type: 'sequence',
    read: (v: unknown) => {
      const n = integer(record(v)?.['number']);
      const hash = record(v)?.['hash'];
      return n === undefined ? undefined : { n, key: typeof hash === 'string' ? hash.toLowerCase() : '' };
    },
  },
  solanaLogs: { type: 'identity', read: (v: unknown) => str(record(record(v)?.['value'])?.['signature']) },
  evmLog: {
    type: 'identity',
    read: (v: unknown) => {
      const log = record(v);
      const hash = str(log?.['blockHash']);
      const index = log?.['logIndex'];
      return hash === undefined ? undefined : `${hash}:${String(index)}:${String(log?.['removed'] ?? false)}`;
    },
  },
  txHash: { type: 'identity', read: (v: unknown) => (typeof v === 'string' ? v : str(record(v)?.['hash'])) },
  account: { type: 'per-key-slot', read: (v: unknown) => keyed('', contextSlot(v)) },
  program: { type: 'per-key-slot', read: (v: unknown) => keyed(str(record(record(v)?.['value'])?.['pubkey']), contextSlot(v)) },
  block: { type: 'per-key-slot', read: (v: unknown) => keyed('', integer(record(record(v)?.['value'])?.['slot'])) },
} as const satisfies Record<string, StreamOrder>;

function wrap(n: Seq | undefined) {
  return n === undefined ? undefined : { n };
}
function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function keyed(key: string | undefined, slot: Seq | undefined) {
  return key === undefined || slot === undefined ? undefined : { key, slot };
}

const NONE: StreamOrder = { type: 'none' };

function profile(unsubscribeMethod: string, order: StreamOrder, extra: Partial<StreamProfile> = {}): StreamProfile {
  return { unsubscribeMethod, order, once: false, expectedIntervalMs: undefined, ticks: false, ...extra };
}

/** The profile of `method` called with `params`. */
export function streamProfileOf(method: string, params: readonly unknown[]): StreamProfile {
  switch (method) {
    case 'slotSubscribe':
      return profile('slotUnsubscribe', ORDERS.slot, { expectedIntervalMs: SOLANA_SLOT_MS, ticks: true });
    case 'rootSubscribe':
      return profile('rootUnsubscribe', ORDERS.root, { expectedIntervalMs: SOLANA_SLOT_MS, ticks: true });
    case 'signatureSubscribe':
      return profile('signatureUnsubscribe', NONE, { once: true });
    case 'accountSubscribe':
      return profile('accountUnsubscribe', ORDERS.account);
    case 'programSubscribe':
      return profile('programUnsubscribe', ORDERS.program);
    case 'logsSubscribe':
      return profile('logsUnsubscribe', ORDERS.solanaLogs);
    case 'blockSubscribe':
      return profile('blockUnsubscribe', ORDERS.block);
    case 'eth_subscribe':
      switch (params[0]) {
        case 'newHeads':
          return profile('eth_unsubscribe', ORDERS.head, { ticks: true });
        case 'logs':
          return profile('eth_unsubscribe', ORDERS.evmLog);
        case 'newPendingTransactions':
          return profile('eth_unsubscribe', ORDERS.txHash);
        default:
          return profile('eth_unsubscribe', NONE);
      }
    default:
      // `fooSubscribe` → `fooUnsubscribe`, the Solana convention.
      return profile(method.endsWith('Subscribe') ? `${method.slice(0, -'Subscribe'.length)}Unsubscribe` : `${method}Unsubscribe`, NONE);
  }
}
