/**
 * The `eth_getLogs` row of the integrity table: every log inside the asked block range (or
 * the asked block hash), of an asked address, matching the asked topics position by
 * position, and `logIndex` strictly rising within each block. Pure, one pass over the logs.
 */
import { integrityRow, quantityOf } from './evm-checks.js';
import type { AnyIntegrityRow, IntegrityCheckName } from './types.js';

interface LogFilter {
  readonly from: number | bigint | undefined;
  readonly to: number | bigint | undefined;
  readonly blockHash: string | undefined;
  /** Lowercase addresses; undefined: any. */
  readonly addresses: Allowed | undefined;
  /** Per position, the lowercase topics allowed; undefined: any. */
  readonly topics: readonly (Allowed | undefined)[];
}

const lower = (value: unknown): string | undefined => (typeof value === 'string' ? value.toLowerCase() : undefined);

/** Lowercase values a field may take: one (the common filter, compared with `===`, no hashing) or a set. */
type Allowed = string | ReadonlySet<string>;

const has = (allowed: Allowed, value: string): boolean => (typeof allowed === 'string' ? allowed === value : allowed.has(value));

/** Most nodes answer lowercase hex: try the text as it is before lowering it (one allocation saved per field). */
const inSet = (allowed: Allowed, value: unknown): boolean => typeof value === 'string' && (has(allowed, value) || has(allowed, value.toLowerCase()));

/**
 * A log's `blockNumber` / `logIndex` as a number: block numbers and indexes fit 53 bits, so
 * 13 hex digits at most take `Number` (strict hex: `Number('0x1z')` is NaN); longer ones are
 * exact bigints (relational comparison between the two types is exact). NaN when no quantity.
 */
function logQuantity(value: unknown): number | bigint {
  if (typeof value !== 'string' || value.length < 3 || value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 120) return Number.NaN;
  if (value.length <= 15) return Number(value);
  return quantityOf(value) ?? Number.NaN;
}

/** A filter value that is one string or a list of them (null inside a list: any). */
function setOf(value: unknown): Allowed | undefined {
  if (typeof value === 'string') return value.toLowerCase();
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string')) return undefined;
  return value.length === 1 ? (value[0] as string).toLowerCase() : new Set(value.map((v: string) => v.toLowerCase()));
}

/** A numeric range bound in the logs' own representation; a tag (`latest`, `safe`) bounds nothing here. */
function boundOf(value: unknown): number | bigint | undefined {
  const bound = quantityOf(value) === undefined ? Number.NaN : logQuantity(value);
  return typeof bound === 'number' && Number.isNaN(bound) ? undefined : bound;
}

function filterOf(params: readonly unknown[]): LogFilter | undefined {
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return undefined;
  const f = filter as Record<string, unknown>;
  const blockHash = lower(f['blockHash']);
  return {
    // With a block hash the node ignores the range (the two are exclusive).
    from: blockHash === undefined ? boundOf(f['fromBlock']) : undefined,
    to: blockHash === undefined ? boundOf(f['toBlock']) : undefined,
    blockHash,
    addresses: setOf(f['address']),
    topics: Array.isArray(f['topics']) ? f['topics'].map(setOf) : [],
  };
}

function logFails(filter: LogFilter, log: Record<string, unknown>): IntegrityCheckName | undefined {
  if (filter.from !== undefined || filter.to !== undefined) {
    const number = logQuantity(log['blockNumber']);
    // NaN compares false both ways: a log without a block number is outside any range.
    if (!(filter.from === undefined || number >= filter.from) || !(filter.to === undefined || number <= filter.to)) return 'log-block-range';
  }
  if (filter.blockHash !== undefined && log['blockHash'] !== filter.blockHash && lower(log['blockHash']) !== filter.blockHash) return 'log-block-hash';
  if (filter.addresses !== undefined && !inSet(filter.addresses, log['address'])) return 'log-address';
  if (filter.topics.length === 0) return undefined;
  const topics = log['topics'];
  for (let i = 0; i < filter.topics.length; i++) {
    const allowed = filter.topics[i];
    if (allowed === undefined) continue;
    if (!Array.isArray(topics) || !inSet(allowed, topics[i])) return 'log-topics';
  }
  return undefined;
}

function verifyLogs(filter: LogFilter, result: unknown): IntegrityCheckName | undefined {
  // Not a list: the answer's shape is the typed client's to judge, not a contradiction of the filter.
  if (!Array.isArray(result)) return undefined;
  let block: unknown;
  let lastIndex: number | bigint = Number.NaN;
  for (const entry of result) {
    if (typeof entry !== 'object' || entry === null) continue;
    const log = entry as Record<string, unknown>;
    const failed = logFails(filter, log);
    if (failed !== undefined) return failed;
    // Within one answer a node spells a block's hash one way: the text itself is the key.
    const key = log['blockHash'] ?? log['blockNumber'];
    const index = logQuantity(log['logIndex']);
    if (key !== undefined && key === block && index <= lastIndex) return 'log-order';
    block = key;
    lastIndex = index;
  }
  return undefined;
}

export const LOG_ROWS: readonly AnyIntegrityRow[] = [
  integrityRow<LogFilter>({
    methods: ['eth_getLogs'],
    checks: ['log-block-range', 'log-block-hash', 'log-address', 'log-topics', 'log-order'],
    ask: filterOf,
    verify: verifyLogs,
  }),
];
