import { performance } from 'node:perf_hooks';
import type { EndpointConfig } from '../config/types.js';
import { createEvmClient } from '../evm/client.js';
import { evmChainOf } from '../evm/chains.js';
import { HttpTransportPool } from '../pool/http-transport-pool.js';
import type { RequestOptions } from '../api/request-options.js';
import { createSolanaClient } from '../solana/client.js';
import { solanaClusterOf } from '../solana/clusters.js';
import { defaultEndpointId } from '../config/normalize.js';
import { redactUrl } from '../errors/redact.js';
import { describeCallFailure, type CallFailure } from './failure-text.js';
import { buildProbeReport, type ProbeChain, type ProbedEndpoint, type ProbeHealth, type ProbeReport } from './probe-report.js';

export interface ProbeOptions {
  readonly endpoints: readonly EndpointConfig[];
  /** Chain family; detected per endpoint when absent (Solana first, then EVM). */
  readonly chain?: ProbeChain;
  /** Latency samples per endpoint. */
  readonly samples: number;
  /** Deadline of each probe call, in ms. */
  readonly timeoutMs: number;
}

/** What one probe call gave: a value, a JSON-RPC answer that was an error, or no answer. */
type CallResult<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & CallFailure);

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(value * 10) / 10;
}

/**
 * Probes every endpoint in parallel through one pool, each call pinned to its endpoint
 * (`{ endpoint: id }`), reputation and the operator cap off, one retry on the same endpoint.
 * Per endpoint, in order: chain detection + genesis hash, version, health, then `samples`
 * latency calls of a cheap method (`getGenesisHash` / `eth_chainId`). An endpoint that gives
 * no JSON-RPC answer to the first call is not asked anything else.
 */
export async function runProbe(options: ProbeOptions): Promise<ProbeReport> {
  const pool = new HttpTransportPool({
    // Ids are assigned here when missing: the pool's default id keeps a subdomain label of
    // hosts without an ICANN suffix (`key.internal`), and ids are printed.
    // `kinds` is dropped so that a submit-only endpoint can still be asked the probe's reads.
    endpoints: options.endpoints.map(({ kinds: _kinds, ...endpoint }, index) => ({
      requestTimeoutMs: options.timeoutMs,
      ...endpoint,
      id: endpoint.id ?? defaultEndpointId(endpoint.url, index),
    })),
    retry: { maxRetries: 1, initialBackoffMs: 50, maxBackoffMs: 200 },
    reputation: false,
    concentration: { maxOperatorShare: 0 },
  });
  // The node's own time of each answered call: the answering attempt's latency, without admission waits.
  const nodeTimeMs = new Map<string, number>();
  pool.on('success', (event) => nodeTimeMs.set(event.endpointId, event.latencyMs));
  try {
    const ids = pool.snapshot().endpoints.map((endpoint) => endpoint.endpointId);
    const rows = await Promise.all(
      options.endpoints.map((endpoint, index) => probeEndpoint(pool, ids[index] ?? String(index), endpoint.url, options, nodeTimeMs)),
    );
    return buildProbeReport(rows, options.samples);
  } finally {
    await pool.close();
  }
}

async function probeEndpoint(
  pool: HttpTransportPool,
  id: string,
  url: string,
  options: ProbeOptions,
  nodeTimeMs: Map<string, number>,
): Promise<ProbedEndpoint> {
  const pin: RequestOptions = { endpoint: id, timeoutMs: options.timeoutMs };
  const call = async <T>(run: () => Promise<T>): Promise<CallResult<T>> => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, ...describeCallFailure(error) };
    }
  };
  const sol = createSolanaClient(pool);
  const evm = createEvmClient(pool);
  const base: ProbedEndpoint = {
    id,
    endpoint: redactUrl(url, { localPort: true }),
    reachable: false,
    chain: null,
    p50Ms: null,
    admissionWaitP50Ms: null,
    latencySamples: 0,
    version: null,
    genesisHash: null,
    network: null,
    chainId: null,
    health: null,
    error: null,
  };

  // Detection: Solana's genesis hash, else EVM's chain id.
  let chain: ProbeChain | undefined;
  let solanaGenesis: string | undefined;
  let evmChainId: number | undefined;
  const failures: CallFailure[] = [];
  if (options.chain !== 'evm') {
    const genesis = await call(() => sol.getGenesisHash(pin));
    if (genesis.ok) [chain, solanaGenesis] = ['solana', genesis.value];
    else failures.push(genesis);
  }
  if (chain === undefined && options.chain !== 'solana' && !failures.some((f) => f.dead)) {
    const chainId = await call(() => evm.getChainId(pin));
    if (chainId.ok) [chain, evmChainId] = ['evm', chainId.value];
    else failures.push(chainId);
  }
  if (chain === undefined) {
    return { ...base, reachable: failures.some((f) => f.answered), error: failures.at(-1)?.text ?? null };
  }

  const errors: string[] = [];
  const note = <T>(result: CallResult<T>): T | undefined => {
    if (result.ok) return result.value;
    errors.push(result.text);
    return undefined;
  };
  let row: ProbedEndpoint;
  if (chain === 'solana') {
    const version = note(await call(() => sol.getVersion(pin)));
    const health = note(await call(() => sol.getHealth(pin)));
    row = {
      ...base,
      reachable: true,
      chain,
      version: version?.solanaCore ?? null,
      genesisHash: solanaGenesis ?? null,
      network: solanaGenesis === undefined ? null : (solanaClusterOf(solanaGenesis) ?? null),
      health: health === undefined ? null : healthOf(health),
    };
  } else {
    const genesis = note(await call(() => evm.getGenesisHash(pin)));
    const version = note(await call(() => evm.getVersion(pin)));
    const health = note(await call(() => evm.getHealth(pin)));
    row = {
      ...base,
      reachable: true,
      chain,
      chainId: evmChainId ?? null,
      version: version?.clientVersion ?? null,
      genesisHash: genesis ?? null,
      network: genesis === undefined ? null : (evmChainOf(genesis) ?? null),
      health: health === undefined ? null : healthOf(health),
    };
  }

  const cheap = chain === 'solana' ? (): Promise<unknown> => sol.getGenesisHash(pin) : (): Promise<unknown> => evm.getChainId(pin);
  // Samples of one endpoint run one after another, so its last success event is this sample's.
  const latencies: number[] = [];
  const waits: number[] = [];
  for (let i = 0; i < options.samples; i++) {
    nodeTimeMs.delete(id);
    const started = performance.now();
    const sample = await call(cheap);
    const totalMs = performance.now() - started;
    const nodeMs = nodeTimeMs.get(id);
    if (sample.ok && nodeMs !== undefined) {
      latencies.push(nodeMs);
      waits.push(Math.max(0, totalMs - nodeMs));
    } else if (!sample.ok) errors.push(sample.text);
  }
  return { ...row, p50Ms: median(latencies), admissionWaitP50Ms: median(waits), latencySamples: latencies.length, error: errors[0] ?? null };
}

function healthOf(health: { readonly healthy: boolean; readonly message?: string }): ProbeHealth {
  return health.healthy ? { healthy: true, detail: null } : { healthy: false, detail: health.message ?? 'unhealthy' };
}
