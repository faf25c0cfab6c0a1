/**
 * Which pool events the `logger` option logs, at which level, with which message: one entry
 * per event, pure. State changes only (a cooldown starts or ends, an endpoint is benched or
 * back, a breaker opens or closes, a chain verdict, a reconciliation), never once per call or
 * per response. Fields name endpoints by id and operator only — never a URL, header or key.
 */
import type { PoolEventMap, PoolEventName } from '../api/events.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One line to log: pino-style `logger[level](fields, message)`. */
export interface LogEntry {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What the rules remember between events: the last band of each endpoint (bounded by the configuration). */
export interface LogMemory {
  readonly bands: Map<string, string>;
}

type Rule<E extends PoolEventName> = (event: PoolEventMap[E], memory: LogMemory) => LogEntry | undefined;

const entry = (level: LogLevel, message: string, fields: Record<string, unknown>): LogEntry => ({ level, message: `sturdy-rpc: ${message}`, fields });
const rps = (value: number) => (Number.isFinite(value) ? (Math.round(value * 10) / 10).toString() : 'unlimited');
const ms = (value: number | undefined) => `${Math.round(value ?? 0)} ms`;

/** Per event, the line it becomes (undefined: not logged). Events absent here are never logged (attempts, hedges, 429s: per call). */
export const LOG_RULES: { readonly [E in PoolEventName]?: Rule<E> } = {
  'rate-learned': (e) =>
    entry(e.reason === 'demand' ? 'debug' : 'info', `endpoint '${e.endpointId}' (${e.kind}) learned rate ${rps(e.fromRps)} -> ${rps(e.toRps)} req/s (${e.reason})`, {
      event: 'rate-learned',
      endpointId: e.endpointId,
      kind: e.kind,
      fromRps: e.fromRps,
      toRps: e.toRps,
      reason: e.reason,
    }),
  'concurrency-learned': (e) =>
    entry(e.toLimit < e.fromLimit ? 'info' : 'debug', `endpoint '${e.endpointId}' learned concurrency ${e.fromLimit} -> ${e.toLimit} in flight`, {
      event: 'concurrency-learned',
      endpointId: e.endpointId,
      fromLimit: e.fromLimit,
      toLimit: e.toLimit,
    }),
  'credit-budget': (e) => {
    const spent = `endpoint '${e.endpointId}' spent ${Math.round(e.threshold * 100)} % of its monthly credits (${Math.round(e.spentCredits)} of ${e.creditsPerMonth})`;
    const fields = { event: 'credit-budget', endpointId: e.endpointId, threshold: e.threshold, spentCredits: e.spentCredits, creditsPerMonth: e.creditsPerMonth, refusing: e.refusing };
    return entry(e.refusing ? 'error' : 'warn', e.refusing ? `${spent}: it takes no more calls this month` : spent, fields);
  },
  cooldown: (e) =>
    e.phase === 'start'
      ? entry('warn', `endpoint '${e.endpointId}' (${e.kind}) paused for ${ms(e.durationMs)}`, { event: 'cooldown', endpointId: e.endpointId, kind: e.kind, phase: e.phase, durationMs: e.durationMs })
      : entry('info', `endpoint '${e.endpointId}' (${e.kind}) admits calls again`, { event: 'cooldown', endpointId: e.endpointId, kind: e.kind, phase: e.phase }),
  reputation: (e, memory) => {
    const score = Math.round(e.score);
    const fields = { event: 'reputation', endpointId: e.endpointId, change: e.change, score, band: e.band, detector: e.detector, cooldownMs: e.cooldownMs };
    if (e.change === 'cooldown-start') return entry('warn', `endpoint '${e.endpointId}' benched for ${ms(e.cooldownMs)} (${e.detector ?? 'reputation'}, score ${score})`, fields);
    if (e.change === 'cooldown-end') return entry('info', `endpoint '${e.endpointId}' bench over (score ${score})`, fields);
    const previous = memory.bands.get(e.endpointId);
    memory.bands.set(e.endpointId, e.band);
    // Below the eligibility threshold the endpoint leaves rotation: a bench by score.
    if (e.band === 'ineligible') return entry('warn', `endpoint '${e.endpointId}' out of rotation: score ${score} below the eligibility threshold`, fields);
    if (previous === 'ineligible') return entry('info', `endpoint '${e.endpointId}' back in rotation (score ${score}, band ${e.band})`, fields);
    return entry('debug', `endpoint '${e.endpointId}' score band now ${e.band} (score ${score})`, fields);
  },
  breaker: (e) =>
    e.state === 'open'
      ? entry('warn', `host breaker open for ${ms(e.openForMs)} (operator ${e.operator}; endpoints ${e.endpointIds.join(', ')})`, { event: 'breaker', state: e.state, operator: e.operator, endpointIds: e.endpointIds, openForMs: e.openForMs })
      : entry('info', `host breaker closed (operator ${e.operator}; endpoints ${e.endpointIds.join(', ')})`, { event: 'breaker', state: e.state, operator: e.operator, endpointIds: e.endpointIds }),
  chain: (e) => {
    const fields = { event: 'chain', endpointId: e.endpointId, status: e.status, method: e.method, reported: e.reported, detail: e.detail, retryInMs: e.retryInMs };
    if (e.status === 'wrong-chain') return entry('error', `endpoint '${e.endpointId}' is on another chain (${e.method} answered ${e.reported}): excluded`, fields);
    if (e.status === 'check-failed') return entry('warn', `endpoint '${e.endpointId}' chain check failed (${e.detail}); asking again in ${ms(e.retryInMs)}`, fields);
    return entry('info', `endpoint '${e.endpointId}' chain verified`, fields);
  },
  head: (e) => {
    const fields = { event: 'head', endpointId: e.endpointId, state: e.state, quantity: e.quantity, head: String(e.head), tip: String(e.tip), lag: String(e.lag), syncAllowance: e.syncAllowance };
    return e.state === 'lagging'
      ? entry('warn', `endpoint '${e.endpointId}' is ${e.lag} ${e.quantity}s behind the tip (allowance ${e.syncAllowance}): out of rotation`, fields)
      : entry('info', `endpoint '${e.endpointId}' caught up (${e.lag} ${e.quantity}s behind the tip): back in rotation`, fields);
  },
  reconcile: (e) =>
    entry(e.found ? 'info' : 'warn', `ambiguous ${e.method} ${e.found ? 'found on chain' : 'not found'} after ${e.lookups} lookup(s)`, {
      event: 'reconcile',
      endpointId: e.endpointId,
      method: e.method,
      found: e.found,
      lookups: e.lookups,
    }),
  reshape: (e) =>
    entry('debug', `operator cap reshaped tier ${e.tier} (${e.kind})${e.feasible ? '' : ': cap infeasible, operators weighted uniformly'}`, {
      event: 'reshape',
      kind: e.kind,
      tier: e.tier,
      feasible: e.feasible,
      operators: e.operators,
    }),
};
