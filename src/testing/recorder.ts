import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify as stringifyLossless } from 'lossless-json';
import { redactUrl, secretFragments } from '../errors/redact.js';
import type { ExecuteRequest, ExecutorTarget, HttpExecutor, RawOutcome } from '../http/executor.js';
import { parseJsonExact } from '../jsonrpc/exact-json.js';
import type { Fixture } from './fixtures.js';
import { replaceTopLevelId } from './json-id.js';
import { jsonEqual } from './replay.js';

export interface CreateRecorderOptions {
  /** The executor that really sends (e.g. `createUndiciExecutor()`). */
  readonly executor: HttpExecutor;
  /** Called with every fixture recorded, before the call returns. */
  readonly onRecord?: (fixture: Fixture) => void;
  /**
   * Directory to write one file per exchange, `<method>-<n>.json` (n counts from 1 per
   * method and recorder; existing files of the same name are overwritten). Created if missing.
   */
  readonly dir?: string;
  /** The fixtures' `chain`. @default inferred per method: `eth_*`, `net_*`, `web3_*`… → `'evm'`, else `'solana'` */
  readonly chain?: 'solana' | 'evm';
  /**
   * Response headers kept in the fixture (lower-case names). Everything else — cookies,
   * request ids, CDN headers — is dropped; request headers are never recorded.
   * @default ['content-type', 'retry-after']
   */
  readonly keepResponseHeaders?: readonly string[];
}

/** An executor that records what it sends and receives. */
export interface Recorder extends HttpExecutor {
  /** Every fixture recorded so far, in order. */
  readonly recorded: readonly Fixture[];
}

const EVM_PREFIXES = ['eth_', 'net_', 'web3_', 'debug_', 'trace_', 'txpool_', 'personal_', 'anvil_', 'evm_', 'hardhat_', 'erigon_', 'parity_'];
const DEFAULT_KEPT_HEADERS = ['content-type', 'retry-after'];

/**
 * Fragments of the endpoint's URL and header values (whole, and word by word) that look
 * like keys: 20+ characters, or 8+ with a digit. Plain words (`mainnet`, `application/json`)
 * stay, so bodies and headers naming them are not mangled.
 */
function likelyKeys(target: ExecutorTarget): string[] {
  const headerValues = Object.values(target.headers).flatMap((value) => [value, ...value.split(/\s+/)]);
  return secretFragments([target.url], headerValues).filter((fragment) => fragment.length >= 20 || (fragment.length >= 8 && /\d/.test(fragment)));
}

function removeKeys(text: string, keys: readonly string[]): string {
  let out = text;
  for (const key of keys) if (out.includes(key)) out = out.split(key).join('<redacted>');
  return out;
}

/** The request's method, params and id, when the body is one JSON-RPC request with array (or no) params. */
function readRequest(body: string): { method: string; params: readonly unknown[]; id: unknown } | undefined {
  let value: unknown;
  try {
    value = parseJsonExact(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const params = record['params'] ?? [];
  if (typeof record['method'] !== 'string' || !Array.isArray(params)) return undefined;
  return { method: record['method'], params, id: record['id'] };
}

function sameId(idText: string, id: unknown): boolean {
  try {
    return jsonEqual(parseJsonExact(idText), id);
  } catch {
    return false;
  }
}

/**
 * Wraps an executor so every request/response exchange it carries is recorded as a fixture
 * (see `fixtures/README.md`), ready for `createFixtureServer` or `fixtureHandlers`:
 *
 * - no URL and no request header is stored; `source` names only the scheme and registrable
 *   domain (`redactUrl`); parts of the URL and header values that look like keys are replaced
 *   by `<redacted>` in bodies and kept headers; only `keepResponseHeaders` are kept;
 * - the response's top-level id is normalised to `1` (when it was the request's id);
 * - the body is kept as the exact text received (integers above 2^53 stay exact).
 *
 * Only exchanges that produced an HTTP response are recorded (a reset has nothing to
 * replay), and only single requests (not batches). With `dir`, the file is written before
 * the call returns; a failed write rejects the call, so a recording never silently misses
 * a case.
 *
 * ```ts
 * const pool = new HttpTransportPool({
 *   endpoints: [{ id: 'main', url: process.env.RPC_URL! }],
 *   executor: createRecorder({ executor: createUndiciExecutor(), dir: 'fixtures/recorded' }),
 * });
 * await createSolanaClient(pool).getVersion(); // writes fixtures/recorded/getVersion-1.json
 * ```
 */
export function createRecorder(options: CreateRecorderOptions): Recorder {
  const inner = options.executor;
  const kept = new Set((options.keepResponseHeaders ?? DEFAULT_KEPT_HEADERS).map((name) => name.toLowerCase()));
  const perMethod = new Map<string, number>();
  const recorded: Fixture[] = [];
  let dirReady: Promise<unknown> | undefined;

  const toFixture = (request: ExecuteRequest, outcome: Extract<RawOutcome, { type: 'response' }>): Fixture | undefined => {
    const call = readRequest(request.body);
    if (call === undefined) return undefined;
    const keys = likelyKeys(request.target);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(outcome.headers)) {
      if (kept.has(name.toLowerCase())) headers[name.toLowerCase()] = removeKeys(value, keys);
    }
    const body = replaceTopLevelId(removeKeys(outcome.body, keys), '1', (current) => sameId(current, call.id));
    const n = (perMethod.get(call.method) ?? 0) + 1;
    perMethod.set(call.method, n);
    const chain = options.chain ?? (EVM_PREFIXES.some((prefix) => call.method.startsWith(prefix)) ? 'evm' : 'solana');
    return {
      name: `${call.method.replace(/[^A-Za-z0-9_.-]/g, '_')}-${n}`,
      source: `recorded by sturdy-rpc recorder against ${redactUrl(request.target.url)}`,
      chain,
      request: { method: call.method, params: call.params },
      response: { status: outcome.status, headers, body },
    };
  };

  const write = async (dir: string, fixture: Fixture) => {
    dirReady ??= mkdir(dir, { recursive: true });
    await dirReady;
    await writeFile(join(dir, `${fixture.name}.json`), `${stringifyLossless(fixture, null, 2) ?? ''}\n`, 'utf8');
  };

  return {
    recorded,
    async execute(request) {
      const outcome = await inner.execute(request);
      if (outcome.type !== 'response') return outcome;
      const fixture = toFixture(request, outcome);
      if (fixture === undefined) return outcome;
      recorded.push(fixture);
      options.onRecord?.(fixture);
      if (options.dir !== undefined) await write(options.dir, fixture);
      return outcome;
    },
    close: () => inner.close(),
  };
}
