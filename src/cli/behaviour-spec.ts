import type { FixtureServerBehaviour } from '../testing/behaviours.js';
import { UsageError } from './args.js';

/**
 * The compact `--behaviour` syntax of `sturdy-rpc serve-fixtures`:
 * `<kind>[:<value>][:<key>=<value>…]`, e.g. `429:every=3:retry-after=2`, `latency:50-200`,
 * `reset:p=0.2`, `html200`, `hang:method=sendTransaction`.
 */
export const BEHAVIOUR_SPEC_HELP = `Behaviour specs: <kind>[:<value>][:<key>=<value>…]
  kinds:
    latency:<ms> | latency:<min>-<max>   wait before answering (fixed, or uniform in the range)
    429                                  HTTP 429; keys retry-after=<seconds>|date|none (default 1),
                                         rps=<n> (only above n calls per second), body=json|text
    5xx | <status> | http-error:<status> an HTTP error with an nginx HTML page (5xx = 503);
                                         key body=html|json
    html200                              an HTML page with status 200
    truncate[:<keep ratio>]              the normal answer cut short (default 0.5)
    reset                                read the request, then reset the connection (TCP RST)
    close                                read the request, then close the connection (FIN)
    hang                                 read the request, never answer
    wrong-genesis[:<hash>]               claim another chain (default: Solana devnet / an anvil chain)
    lag:<slots>                          report slots N behind; key unhealthy-above=<n> (default 128)
  keys for every kind:
    every=<n>        only every nth call it matches
    p=<0..1>         with this probability (seeded: --seed)
    method=<name>    only calls of this method (default: every call)
  examples: 429:every=3:retry-after=2  latency:50-200  reset:p=0.2  html200  hang:method=sendTransaction`;

/** One parsed `--behaviour`: what to do, and for which method (`'*'`: every call). */
export interface ParsedBehaviour {
  readonly method: string;
  readonly behaviour: FixtureServerBehaviour;
}

const KEYS_BY_KIND: Readonly<Record<string, readonly string[]>> = {
  'rate-limit': ['retry-after', 'rps', 'body'],
  'http-error': ['body'],
  lag: ['unhealthy-above'],
};
const COMMON_KEYS = ['every', 'p', 'method'];

/**
 * Parses one `--behaviour` spec.
 *
 * @throws UsageError naming the spec and what is wrong with it.
 */
export function parseBehaviourSpec(spec: string): ParsedBehaviour {
  const fail = (what: string): never => {
    throw new UsageError(`--behaviour '${spec}': ${what}`);
  };
  const [head = '', ...parts] = spec.split(':');
  const kind = head.trim().toLowerCase();
  const positional: string[] = [];
  const keys = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq === -1) {
      positional.push(part);
      continue;
    }
    const key = part.slice(0, eq).trim().toLowerCase();
    if (keys.has(key)) fail(`'${key}' given twice`);
    keys.set(key, part.slice(eq + 1).trim());
  }
  if (positional.length > 1) fail('at most one value after the kind; use key=value for the rest');
  const value = positional[0]?.trim();

  const number = (text: string | undefined, what: string, check: (n: number) => boolean, expectation: string): number => {
    const n = Number(text);
    if (text === undefined || text === '' || !Number.isFinite(n) || !check(n)) fail(`${what} must be ${expectation}`);
    return n;
  };
  const noValue = () => {
    if (value !== undefined) fail(`'${kind}' takes no value`);
  };

  const optional = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> =>
    (v === undefined ? {} : { [key]: v }) as Partial<Record<K, V>>;
  const choice = <T extends string>(key: string, options: readonly T[]): T | undefined => {
    const v = keys.get(key);
    if (v !== undefined && !options.includes(v as T)) fail(`${key} must be ${options.map((o) => `'${o}'`).join(' or ')}`);
    return v as T | undefined;
  };

  let behaviour: FixtureServerBehaviour;
  if (kind === 'latency') {
    if (value === undefined) return fail('latency needs <ms> or <min>-<max>');
    const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(value);
    if (range) {
      const [minMs, maxMs] = [Number(range[1]), Number(range[2])];
      if (maxMs < minMs) fail('latency range must be <min>-<max> with min ≤ max');
      behaviour = { type: 'latency', minMs, maxMs };
    } else {
      behaviour = { type: 'latency', ms: number(value, 'latency', (n) => n >= 0, 'a number of ms ≥ 0, or <min>-<max>') };
    }
  } else if (kind === '429' || kind === 'rate-limit') {
    noValue();
    const retryAfter = keys.get('retry-after');
    const rps = keys.get('rps');
    behaviour = {
      type: 'rate-limit',
      ...(retryAfter === 'date' ? { retryAfter: 'http-date' as const } : {}),
      ...(retryAfter === 'none' ? { retryAfter: 'none' as const } : {}),
      ...(retryAfter === undefined || retryAfter === 'date' || retryAfter === 'none'
        ? {}
        : { retryAfterSeconds: number(retryAfter, 'retry-after', (n) => n >= 0, "seconds ≥ 0, 'date' or 'none'") }),
      ...(rps === undefined ? {} : { requestsPerSecond: number(rps, 'rps', (n) => n >= 0, 'a number ≥ 0') }),
      ...optional('body', choice('body', ['json', 'text'] as const)),
    };
  } else if (kind === '5xx' || kind === 'http-error' || /^\d{3}$/.test(kind)) {
    if (kind !== 'http-error') noValue();
    const statusText = kind === '5xx' ? '503' : kind === 'http-error' ? (value ?? '503') : kind;
    const status = number(statusText, 'status', (n) => Number.isInteger(n) && n >= 400 && n <= 599 && n !== 429, 'an HTTP status from 400 to 599 (use 429 for rate limits)');
    behaviour = { type: 'http-error', status, ...optional('body', choice('body', ['html', 'json'] as const)) };
  } else if (kind === 'html200' || kind === 'html') {
    noValue();
    behaviour = { type: 'html' };
  } else if (kind === 'truncate') {
    behaviour = {
      type: 'truncate',
      ...(value === undefined ? {} : { keepRatio: number(value, 'truncate ratio', (n) => n >= 0 && n < 1, 'in [0, 1)') }),
    };
  } else if (kind === 'reset' || kind === 'close' || kind === 'hang') {
    noValue();
    behaviour = { type: kind };
  } else if (kind === 'wrong-genesis') {
    if (value === undefined) behaviour = { type: 'wrong-genesis' };
    else if (/^0x[0-9a-fA-F]{64}$/.test(value)) behaviour = { type: 'wrong-genesis', evmGenesisHash: value.toLowerCase() };
    else if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) behaviour = { type: 'wrong-genesis', solanaGenesisHash: value };
    else return fail('the hash must be base58 (Solana) or 0x + 64 hex digits (EVM)');
  } else if (kind === 'lag') {
    const above = keys.get('unhealthy-above');
    behaviour = {
      type: 'lag',
      slots: number(value, 'lag', (n) => Number.isInteger(n) && n >= 0, 'a whole number of slots ≥ 0'),
      ...(above === undefined ? {} : { unhealthyAboveSlots: number(above, 'unhealthy-above', (n) => Number.isInteger(n) && n >= 0, 'a whole number ≥ 0') }),
    };
  } else {
    return fail(`unknown kind '${head}' (see --help for the list)`);
  }
  const type = behaviour.type;

  const allowed = [...COMMON_KEYS, ...(KEYS_BY_KIND[type] ?? [])];
  for (const key of keys.keys()) if (!allowed.includes(key)) fail(`unknown key '${key}' for ${kind} (allowed: ${allowed.join(', ')})`);
  const every = keys.get('every');
  const p = keys.get('p');
  const method = keys.get('method');
  if (method === '') fail('method must not be empty');
  return {
    method: method ?? '*',
    behaviour: {
      ...behaviour,
      ...(every === undefined ? {} : { everyNth: number(every, 'every', (n) => Number.isInteger(n) && n >= 1, 'an integer ≥ 1') }),
      ...(p === undefined ? {} : { probability: number(p, 'p', (n) => n >= 0 && n <= 1, 'in [0, 1]') }),
    },
  };
}

/** Groups parsed specs into the fixture server's per-method behaviours (in the order given). */
export function behavioursByMethod(parsed: readonly ParsedBehaviour[]): Record<string, FixtureServerBehaviour[]> {
  const map: Record<string, FixtureServerBehaviour[]> = {};
  for (const { method, behaviour } of parsed) (map[method] ??= []).push(behaviour);
  return map;
}
