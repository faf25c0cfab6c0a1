/**
 * The `eth_getLogs` row of the integrity table: every log inside the asked block range (or
 * the asked block hash), of an asked address, matching the asked topics position by
 * position, and `logIndex` strictly rising within each block. Pure, one pass over the logs.
 */
import { integrityRow, quantityOf } from './evm-checks.js';
import type { AnyIntegrityRow, IntegrityCheckName } from './types.js';

interface LogFilter {
  readonly from: bigint | undefined;
  readonly to: bigint | undefined;
  readonly blockHash: string | undefined;
  /** Lowercase addresses; undefined: any. */
  readonly addresses: ReadonlySet<string> | undefined;
  /** Per position, the lowercase topics allowed; undefined: any. */
  readonly topics: readonly (ReadonlySet<string> | undefined)[];
}

const lower = (value: unknown): string | undefined => (typeof value === 'string' ? value.toLowerCase() : undefined);

/** A filter value that is one string or a list of them (null inside a list: any). */
function setOf(value: unknown): ReadonlySet<string> | undefined {
  if (typeof value === 'string') return new Set([value.toLowerCase()]);
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string')) return undefined;
  return new Set(value.map((v: string) => v.toLowerCase()));
}

function filterOf(params: readonly unknown[]): LogFilter | undefined {
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return undefined;
  const f = filter as Record<string, unknown>;
  const blockHash = lower(f['blockHash']);
  return {
    // With a block hash the node ignores the range (the two are exclusive).
    from: blockHash === undefined ? quantityOf(f['fromBlock']) : undefined,
    to: blockHash === undefined ? quantityOf(f['toBlock']) : undefined,
    blockHash,
    addresses: setOf(f['address']),
    topics: Array.isArray(f['topics']) ? f['topics'].map(setOf) : [],
  };
}

function logFails(filter: LogFilter, log: Record<string, unknown>): IntegrityCheckName | undefined {
  if (filter.from !== undefined || filter.to !== undefined) {
    const number = quantityOf(log['blockNumber']);
    if (number === undefined || (filter.from !== undefined && number < filter.from) || (filter.to !== undefined && number > filter.to)) return 'log-block-range';
  }
  if (filter.blockHash !== undefined && lower(log['blockHash']) !== filter.blockHash) return 'log-block-hash';
  if (filter.addresses !== undefined && !filter.addresses.has(lower(log['address']) ?? '')) return 'log-address';
  const topics = log['topics'];
  for (let i = 0; i < filter.topics.length; i++) {
    const allowed = filter.topics[i];
    if (allowed === undefined) continue;
    const topic = Array.isArray(topics) ? lower(topics[i]) : undefined;
    if (topic === undefined || !allowed.has(topic)) return 'log-topics';
  }
  return undefined;
}

function verifyLogs(filter: LogFilter, result: unknown): IntegrityCheckName | undefined {
  // Not a list: the answer's shape is the typed client's to judge, not a contradiction of the filter.
  if (!Array.isArray(result)) return undefined;
  let block: unknown;
  let lastIndex: bigint | undefined;
  for (const entry of result) {
    if (typeof entry !== 'object' || entry === null) continue;
    const log = entry as Record<string, unknown>;
    const failed = logFails(filter, log);
    if (failed !== undefined) return failed;
    const key = lower(log['blockHash']) ?? log['blockNumber'];
    const index = quantityOf(log['logIndex']);
    if (key !== undefined && key === block && index !== undefined && lastIndex !== undefined && index <= lastIndex) return 'log-order';
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
