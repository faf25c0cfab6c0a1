/**
 * The clients of the everyday-path bench (everyday.bench.ts): raw undici `Pool.request` as
 * the limit and `HttpTransportPool` setups that differ only in their options, every call an
 * `eth_getBalance` of its own address (coalescing can never share a request), and the load
 * loop that measures calls/s, p50 and client CPU per call.
 */
import { Pool } from 'undici';
import { HttpTransportPool, type HttpTransportPoolOptions } from '../src/index.js';
import { percentile } from './fault-model.js';
import { timedLoad } from './util.js';

export const RAW = 'raw undici Pool.request';
/** Raw undici spread round-robin over the 4 origins the 4-endpoint pools use: what spreading alone costs. */
export const RAW_FOUR = 'raw undici Pool.request, 4 origins';
/**
 * Raw undici doing what any JSON-RPC client must: the request written with `JSON.stringify`
 * and the answer read with `JSON.parse` (the limit above does neither) — a floor no pool can
 * go under, beside the limit.
 */
export const RAW_JSON = 'raw undici Pool.request + JSON';
export const ONE_DEFAULTS = '1 endpoint, defaults';
export const FOUR_DEFAULTS = '4 endpoints, defaults';
export const FOUR_ALL_OFF = '4 endpoints, every optional stage off';
/**
 * The first version of the pool (commit 473fd60: admission, reputation, the operator cap, the
 * retry loop; before hedging, health, coalescing, batching, fleet and observers), built by
 * `scripts/first-version.sh` and run beside raw undici in the same harness
 * (`npm run bench -- --only everyday --first-version .first-version`).
 */
export const FIRST_ONE = 'first version, 1 endpoint';
export const FIRST_FOUR = 'first version, 4 endpoints';
/** The first version's pool class, as its build exports it (the options it takes are a subset of today's). */
export type FirstVersionPool = new (options: HttpTransportPoolOptions) => Pick<HttpTransportPool, 'request' | 'close'>;

/**
 * Every stage that is on by default and can be turned off (src/config/types.ts): batching,
 * reconcileSends, expectedChain, fleet and logger are already off by default.
 */
export const STAGES_OFF: readonly (readonly [stage: string, off: Partial<HttpTransportPoolOptions>])[] = [
  ['hedge', { hedge: false }],
  ['coalesce', { coalesce: false }],
  ['cache', { cache: false }],
  ['balance', { balance: false }],
  ['health', { health: false }],
  ['reputation', { reputation: false }],
  ['integrity', { integrity: false }],
  // 0 disables the cap (ConcentrationSettings.maxOperatorShare).
  ['concentration cap', { concentration: { maxOperatorShare: 0 } }],
];
export const EVERY_STAGE_OFF: Partial<HttpTransportPoolOptions> = Object.assign({}, ...STAGES_OFF.map(([, off]) => off));
export const withoutStage = (stage: string) => `4 endpoints, ${stage} off`;

export interface EverydayClient {
  readonly name: string;
  call(): Promise<unknown>;
}

export interface LoadResult {
  readonly calls: number;
  readonly callsPerSecond: number;
  readonly p50Ms: number;
  /** Client process CPU (user + system) per call, in µs; the server is another process. */
  readonly cpuUsPerCall: number;
}

/** Every client of the bench, by name: the two limits, then the pools. */
export const EVERYDAY_CLIENTS: readonly string[] = [RAW, RAW_FOUR, RAW_JSON, ONE_DEFAULTS, FOUR_DEFAULTS, FOUR_ALL_OFF, ...STAGES_OFF.map(([stage]) => withoutStage(stage))];

/** The pool options of a pool client (undefined for the raw undici limits). */
function poolOptionsOf(name: string, urls: readonly string[]): HttpTransportPoolOptions | undefined {
  const one: HttpTransportPoolOptions = { endpoints: [{ url: urls[0]!, maxConcurrentRequests: 64 }], chain: 'evm' };
  // Each port stands for a different provider (on loopback they would share one operator, and the cap would do nothing).
  const four: HttpTransportPoolOptions = {
    endpoints: urls.map((url, i) => ({ id: `e${i}`, url, operator: `op${i}`, maxConcurrentRequests: 64 })),
    chain: 'evm',
  };
  if (name === ONE_DEFAULTS || name === FIRST_ONE) return one;
  if (name === FOUR_DEFAULTS || name === FIRST_FOUR) return four;
  if (name === FOUR_ALL_OFF) return { ...four, ...EVERY_STAGE_OFF };
  const off = STAGES_OFF.find(([stage]) => withoutStage(stage) === name)?.[1];
  return off === undefined ? undefined : { ...four, ...off };
}

/**
 * Creates the client `name` against `urls` (the ports of one server process); `close()`
 * releases it. The first version's clients need its pool class (`firstVersion`).
 */
export function createEverydayClient(urls: readonly string[], name: string, firstVersion?: FirstVersionPool): { client: EverydayClient; close(): Promise<void> } {
  let distinct = 0;
  const nextAddress = () => `0x${(distinct++ % 1_000_000).toString(16).padStart(40, '0')}`;
  const options = poolOptionsOf(name, urls);
  if (options !== undefined) {
    const first = name === FIRST_ONE || name === FIRST_FOUR;
    if (first && firstVersion === undefined) throw new Error(`'${name}' needs the first version's build (--first-version)`);
    const pool = first ? new firstVersion!(options) : new HttpTransportPool(options);
    return { client: { name, call: () => pool.request('eth_getBalance', [nextAddress(), 'latest']) }, close: () => pool.close() };
  }
  if (name !== RAW && name !== RAW_FOUR && name !== RAW_JSON) throw new Error(`unknown everyday client '${name}'`);
  const raws = (name === RAW_FOUR ? urls : urls.slice(0, 1)).map((url) => new Pool(url, { connections: 64 }));
  let turn = 0;
  let id = 0;
  const json = name === RAW_JSON;
  const call = async () => {
    // The same JSON body the pool sends, with its own address; the limit does not even parse the answer.
    const body = json
      ? JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'eth_getBalance', params: [nextAddress(), 'latest'] })
      : `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${nextAddress()}","latest"]}`;
    const res = await raws[turn++ % raws.length]!.request({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    return json ? (JSON.parse(text) as { result: unknown }).result : text;
  };
  return { client: { name, call }, close: async () => void (await Promise.all(raws.map((pool) => pool.close()))) };
}

/** Runs `client.call` with `inFlight` loops for `durationMs`. */
export async function runLoad(client: EverydayClient, inFlight: number, durationMs: number): Promise<LoadResult> {
  const { latencies, elapsedMs, cpuUs } = await timedLoad(client.name, () => client.call(), inFlight, durationMs);
  return {
    calls: latencies.length,
    callsPerSecond: (latencies.length / elapsedMs) * 1000,
    p50Ms: percentile(latencies, 0.5),
    cpuUsPerCall: cpuUs / Math.max(1, latencies.length),
  };
}

/**
 * `count` turns of every client at `inFlight`, `ms` each, the order flipped every turn, so
 * each client's turns sit seconds from the others' on the same machine state; each client's
 * results by name, in the order they ran.
 */
export async function takeTurns(clients: readonly EverydayClient[], inFlight: number, ms: number, count: number): Promise<Record<string, LoadResult[]>> {
  const results: Record<string, LoadResult[]> = Object.fromEntries(clients.map((client) => [client.name, []]));
  for (let turn = 0; turn < count; turn++) {
    const order = turn % 2 === 0 ? clients : [...clients].reverse();
    for (const client of order) results[client.name]!.push(await runLoad(client, inFlight, ms));
  }
  return results;
}

/** The warm-up's turns: short, so the clients warm in the same stretch of time. */
const WARMUP_TURN_MS = 250;

/** Turns at 64 in flight, unmeasured, for about `ms` per client: the JIT, connections, latency estimates. */
export async function warmUp(clients: readonly EverydayClient[], ms: number): Promise<void> {
  await takeTurns(clients, 64, WARMUP_TURN_MS, Math.max(1, Math.round(ms / WARMUP_TURN_MS)));
}

/**
 * A client's slices paired with the reference's beside them, by turn. A turn where either side
 * completed no call (a stall of the shared machine) has no value and is left out.
 */
export function slicePairs(client: readonly LoadResult[], reference: readonly LoadResult[]): [client: LoadResult, reference: LoadResult][] {
  return client.flatMap((run, i) => {
    const beside = reference[i];
    return run.calls > 0 && beside !== undefined && beside.calls > 0 ? [[run, beside] as [LoadResult, LoadResult]] : [];
  });
}
