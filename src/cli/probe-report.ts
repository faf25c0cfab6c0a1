/**
 * The `sturdy-rpc probe --json` schema (version 1) and the pure verdict over probed
 * endpoints: which chain the majority is on, which endpoint to flag, the exit code.
 * Fields are only ever added; `schemaVersion` changes if one is removed or retyped.
 */

/** Chain families the probe knows. */
export type ProbeChain = 'solana' | 'evm';

/**
 * Why an endpoint is flagged (`null` when it is fine):
 * - `unreachable`: no JSON-RPC answer to any probe call (refused, DNS, timeout, HTTP error, not JSON-RPC);
 * - `wrong-chain`: its genesis hash (EVM without a genesis answer: chain id) differs from the majority's;
 * - `no-majority`: the endpoints split evenly between chains, so none is the majority;
 * - `unknown-chain`: it answered, but neither a genesis hash nor a chain id.
 */
export type ProbeFlag = 'unreachable' | 'wrong-chain' | 'no-majority' | 'unknown-chain';

/** Health as the node reports it (Solana `getHealth`, EVM `eth_syncing`). */
export interface ProbeHealth {
  readonly healthy: boolean;
  /** e.g. `Node is behind by 42 slots`, `Node is syncing (block 100 of 142)`; `null` when healthy. */
  readonly detail: string | null;
}

/** One endpoint's probe result. Contains its id and redacted URL — never the URL itself. */
export interface ProbeEndpointResult {
  /** The endpoint id (from `--config`, else the pool default `<eTLD+1>-<index>`). */
  readonly id: string;
  /**
   * Scheme + registrable domain only, e.g. `https://…helius-rpc.com`; an IP or single-label
   * host (`localhost`) keeps its port (`http://127.0.0.1:8899`). Never a path, query, userinfo
   * or subdomain.
   */
  readonly endpoint: string;
  readonly reachable: boolean;
  /** The chain family it answered as; `null` when unreachable or unknown. */
  readonly chain: ProbeChain | null;
  /**
   * The node's time: median over the successful samples of the answering attempt's latency
   * (request written to answer read), in ms — without the time the pool waited to admit the
   * call (`admissionWaitP50Ms`); `null` when none succeeded.
   */
  readonly p50Ms: number | null;
  /**
   * Median time each successful sample waited before its answering attempt started, in ms:
   * the pool's admission (the endpoint's `requestsPerSecond`, `maxConcurrentRequests`, a
   * rate-limit cooldown) and any failed attempt and backoff before it. `null` when none succeeded.
   */
  readonly admissionWaitP50Ms: number | null;
  /** Samples that succeeded (of `report.samples`). */
  readonly latencySamples: number;
  /** Solana `solana-core` version or EVM `web3_clientVersion`; `null` when not answered. */
  readonly version: string | null;
  /** Genesis hash (Solana base58, EVM 0x hex); `null` when not answered. */
  readonly genesisHash: string | null;
  /** The public network the genesis hash names (`mainnet-beta`, `devnet`, `testnet`, `mainnet`), else `null`. */
  readonly network: string | null;
  /** EVM chain id (`eth_chainId`); `null` for Solana or when not answered. */
  readonly chainId: number | null;
  readonly health: ProbeHealth | null;
  readonly flag: ProbeFlag | null;
  /** One-line reason when unreachable (or when a call failed), never containing a URL. */
  readonly error: string | null;
}

/** What `probe --json` prints. */
export interface ProbeReport {
  readonly schemaVersion: 1;
  /** `true` when every endpoint is reachable and on the majority chain (exit code 0). */
  readonly ok: boolean;
  /** Latency samples requested per endpoint (`--samples`). */
  readonly samples: number;
  /** The majority chain, or `null` when there is none. */
  readonly majority: {
    readonly chain: ProbeChain;
    readonly genesisHash: string | null;
    readonly network: string | null;
    readonly chainId: number | null;
    /** Endpoints on it. */
    readonly endpoints: number;
  } | null;
  readonly endpoints: readonly ProbeEndpointResult[];
}

/** What one endpoint is, before the verdict. */
export type ProbedEndpoint = Omit<ProbeEndpointResult, 'flag'>;

/** What identifies an endpoint's chain: its family, genesis hash and (EVM) chain id. */
interface ChainFacts {
  readonly chain: ProbeChain;
  readonly genesis: string | undefined;
  readonly chainId: number | undefined;
}

function factsOf(row: ProbedEndpoint): ChainFacts | undefined {
  if (!row.reachable || row.chain === null || (row.genesisHash === null && row.chainId === null)) return undefined;
  return { chain: row.chain, genesis: row.genesisHash?.toLowerCase(), chainId: row.chainId ?? undefined };
}

function factCount(facts: ChainFacts): number {
  return (facts.genesis === undefined ? 0 : 1) + (facts.chainId === undefined ? 0 : 1);
}

/** Two endpoints are on the same chain when every fact both know is equal. */
function agree(a: ChainFacts, b: ChainFacts): boolean {
  const same = <T>(x: T | undefined, y: T | undefined) => x === undefined || y === undefined || x === y;
  return a.chain === b.chain && same(a.genesis, b.genesis) && same(a.chainId, b.chainId);
}

/**
 * Flags every endpoint and names the majority. The reference is the endpoint that the most
 * others agree with (ties: the one knowing more facts, then the first listed); an endpoint
 * that disagrees with it is `wrong-chain`. When an endpoint that disagrees has as much
 * support as the reference, there is no majority (`no-majority` on every endpoint with a chain).
 */
export function buildProbeReport(rows: readonly ProbedEndpoint[], samples: number): ProbeReport {
  const facts = rows.map(factsOf);
  const known = facts.flatMap((f) => (f === undefined ? [] : [f]));
  const support = (f: ChainFacts) => known.filter((other) => agree(f, other)).length;
  let reference: ChainFacts | undefined;
  for (const f of known) {
    if (reference === undefined) reference = f;
    else {
      const [a, b] = [support(f), support(reference)];
      if (a > b || (a === b && agree(f, reference) && factCount(f) > factCount(reference))) reference = f;
    }
  }
  const ref = reference;
  const split = ref !== undefined && known.some((f) => !agree(f, ref) && support(f) === support(ref));
  const majority = split ? undefined : ref;

  const endpoints = rows.map((row, i): ProbeEndpointResult => {
    const f = facts[i];
    let flag: ProbeFlag | null = null;
    if (!row.reachable) flag = 'unreachable';
    else if (f === undefined) flag = 'unknown-chain';
    else if (majority === undefined) flag = 'no-majority';
    else if (!agree(f, majority)) flag = 'wrong-chain';
    return { ...row, flag };
  });
  const model = majority === undefined ? undefined : rows[facts.indexOf(majority)];
  return {
    schemaVersion: 1,
    ok: endpoints.every((row) => row.flag === null),
    samples,
    majority:
      majority === undefined || model === undefined
        ? null
        : {
            chain: majority.chain,
            genesisHash: model.genesisHash,
            network: model.network,
            chainId: model.chainId,
            endpoints: support(majority),
          },
    endpoints,
  };
}
