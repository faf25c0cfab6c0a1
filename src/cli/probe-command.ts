import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { EndpointConfig } from '../config/types.js';
import { isTransportError } from '../errors/transport-error.js';
import { httpUrl, integerInRange, positiveNumber, UsageError, type CliCommand } from './args.js';
import { runProbe } from './probe.js';
import type { ProbeChain, ProbeEndpointResult, ProbeReport } from './probe-report.js';
import { formatTable } from './table.js';

const HELP = `Usage: sturdy-rpc probe (--url <url> [--url <url> …] | --config <pool.json>) [options]

Checks each endpoint: reachable, latency (p50 of --samples calls of a cheap method pinned to
it: the node's time, and apart from it the time the pool waited to admit the call, e.g. under
the endpoint's requestsPerSecond), version, genesis hash and the network it names, health. An
endpoint whose genesis hash differs from the majority's is flagged wrong-chain. URLs are only
ever shown as scheme + registrable domain (https://…helius-rpc.com), also in --json; an IP or
localhost keeps its port (http://127.0.0.1:8899).

Options:
  --url <url>         an endpoint (repeatable); ids default to <eTLD+1>-<index>
  --config <file>     a JSON file { "endpoints": [ … ] } with the pool's endpoint options
                      (id, url, headers, requestsPerSecond, …); its ids are shown; other
                      pool options in the file are ignored
  --chain <chain>     solana | evm (default: detected per endpoint, Solana first)
  --samples <n>       latency samples per endpoint, 1-100 (default 5)
  --timeout <ms>      deadline of each probe call (default 5000)
  --json              print JSON instead of a table
  -h, --help          show this help

Exit codes: 0 every endpoint reachable and on one chain; 1 an endpoint is unreachable or on
another chain (the report is still printed); 2 bad arguments.

--json prints (schemaVersion 1; fields are only ever added):
  { "schemaVersion": 1, "ok": boolean, "samples": number,
    "majority": null | { "chain": "solana"|"evm", "genesisHash": string|null,
                         "network": string|null, "chainId": number|null, "endpoints": number },
    "endpoints": [ { "id": string, "endpoint": string (redacted), "reachable": boolean,
                     "chain": "solana"|"evm"|null, "p50Ms": number|null (node time),
                     "admissionWaitP50Ms": number|null, "latencySamples": number,
                     "version": string|null, "genesisHash": string|null, "network": string|null,
                     "chainId": number|null, "health": null | { "healthy": boolean, "detail": string|null },
                     "flag": null|"unreachable"|"wrong-chain"|"no-majority"|"unknown-chain",
                     "error": string|null } ] }`;

/** Reads `--config`: `{ endpoints: [...] }`; the pool validates each endpoint's fields. */
async function readConfigEndpoints(path: string): Promise<EndpointConfig[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
    throw new UsageError(`cannot read --config file '${path}'${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--config file '${path}' is not valid JSON`);
  }
  const endpoints: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'endpoints') : undefined;
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new UsageError(`--config file '${path}' must hold { "endpoints": [ … ] } with at least one endpoint`);
  }
  endpoints.forEach((endpoint: unknown, index) => {
    const url: unknown = typeof endpoint === 'object' && endpoint !== null ? Reflect.get(endpoint, 'url') : undefined;
    if (typeof url !== 'string') throw new UsageError(`--config endpoints[${index}].url must be a string`);
    httpUrl(url, `config endpoints[${index}].url`, index + 1);
  });
  return endpoints as EndpointConfig[];
}

function shortHash(hash: string): string {
  return hash.length > 14 ? `${hash.slice(0, 6)}…${hash.slice(-4)}` : hash;
}

function genesisCell(row: ProbeEndpointResult): string {
  const parts: string[] = [];
  if (row.genesisHash !== null) parts.push(shortHash(row.genesisHash));
  const names = [row.network, row.chainId === null ? null : `chain ${row.chainId}`].filter((n) => n !== null);
  if (names.length > 0) parts.push(parts.length > 0 ? `(${names.join(', ')})` : names.join(', '));
  return parts.length > 0 ? parts.join(' ') : '-';
}

function healthCell(row: ProbeEndpointResult): string {
  if (row.health === null) return '-';
  return row.health.healthy ? 'ok' : (row.health.detail ?? 'unhealthy');
}

/** The table: endpoint id, redacted URL, reachable, node p50 ms, admission wait p50 ms, version, genesis/cluster, health, flag. */
export function formatProbeTable(report: ProbeReport): string {
  const table = formatTable(
    ['id', 'endpoint', 'reachable', 'node p50 ms', 'wait p50 ms', 'version', 'genesis/cluster', 'health', 'flag'],
    report.endpoints.map((row) => [
      row.id,
      row.endpoint,
      row.reachable ? 'yes' : 'no',
      row.p50Ms === null ? '-' : row.p50Ms.toFixed(1),
      row.admissionWaitP50Ms === null ? '-' : row.admissionWaitP50Ms.toFixed(1),
      row.version ?? '-',
      genesisCell(row),
      healthCell(row),
      row.flag ?? '',
    ]),
  );
  const notes = report.endpoints.filter((row) => row.error !== null).map((row) => `  ${row.id}: ${row.error}`);
  return notes.length > 0 ? `${table}\n\nerrors:\n${notes.join('\n')}` : table;
}

/** The one-line stderr message of a failed probe (exit code 1). */
export function probeFailureLine(report: ProbeReport): string {
  const count = report.endpoints.length;
  const named = (flag: ProbeEndpointResult['flag']) => report.endpoints.filter((r) => r.flag === flag).map((r) => r.id);
  const parts: string[] = [];
  const unreachable = named('unreachable');
  if (unreachable.length > 0) parts.push(`${unreachable.length} of ${count} unreachable (${unreachable.join(', ')})`);
  const wrong = named('wrong-chain');
  if (wrong.length > 0) parts.push(`${wrong.length} of ${count} on the wrong chain (${wrong.join(', ')})`);
  const split = named('no-majority');
  if (split.length > 0) parts.push(`no majority chain among ${split.join(', ')}`);
  const unknown = named('unknown-chain');
  if (unknown.length > 0) parts.push(`chain unknown for ${unknown.join(', ')}`);
  return `probe failed: ${parts.join('; ')}`;
}

export const probeCommand: CliCommand = {
  name: 'probe',
  summary: 'check endpoints: reachable, p50 latency, version, genesis/cluster, health, wrong-chain flag',
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        url: { type: 'string', multiple: true },
        config: { type: 'string' },
        chain: { type: 'string' },
        samples: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const urls = values.url ?? [];
    if (urls.length > 0 && values.config !== undefined) throw new UsageError('give either --url or --config, not both');
    if (urls.length === 0 && values.config === undefined) throw new UsageError('give at least one --url, or --config');
    const chain = values.chain;
    if (chain !== undefined && chain !== 'solana' && chain !== 'evm') throw new UsageError("--chain must be 'solana' or 'evm'");
    const samples = integerInRange(values.samples, 'samples', 5, 1, 100);
    const timeoutMs = positiveNumber(values.timeout, 'timeout', 5_000);
    const endpoints: EndpointConfig[] =
      values.config === undefined ? urls.map((url, i) => ({ url: httpUrl(url, 'url', i + 1) })) : await readConfigEndpoints(values.config);

    let report: ProbeReport;
    try {
      report = await runProbe({ endpoints, samples, timeoutMs, ...(chain === undefined ? {} : { chain: chain as ProbeChain }) });
    } catch (error) {
      // A bad endpoint option (the pool validates them before sending anything).
      if (isTransportError(error, 'INVALID_CONFIG')) throw new UsageError(`${values.config === undefined ? 'endpoints' : '--config'}: ${error.message}`);
      throw error;
    }
    console.log(values.json ? JSON.stringify(report, null, 2) : formatProbeTable(report));
    if (report.ok) return 0;
    console.error(`sturdy-rpc probe: ${probeFailureLine(report)}`);
    return 1;
  },
};
