import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import type { ProbeReport } from '../../src/cli/probe-report.js';
import { evmFixtures, mainnetSolanaFixtures, projectFixtures, runCli } from './run-cli.js';

const MAINNET = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const DEVNET = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
/** The `solana-core` version the getVersion fixture answers. */
const SOLANA_VERSION = (JSON.parse(projectFixtures((n) => n === 'solana-getVersion')[0]!.response.body) as { result: { 'solana-core': string } }).result['solana-core'];
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const servers: FixtureServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function solanaNode(options: { devnet?: boolean } = {}): Promise<FixtureServer> {
  const server = await createFixtureServer({
    fixtures: mainnetSolanaFixtures(),
    behaviours: options.devnet === true ? [{ type: 'wrong-genesis' }] : [],
  });
  servers.push(server);
  return server;
}

/** A loopback port nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const server = await createFixtureServer({ fixtures: [] });
  await server.close();
  return server.url;
}

/** Checks every field of the `--json` schema (ProbeReport, schemaVersion 1). */
function expectProbeSchema(report: ProbeReport): void {
  expect(report.schemaVersion).toBe(1);
  expect(typeof report.ok).toBe('boolean');
  expect(typeof report.samples).toBe('number');
  if (report.majority !== null) {
    expect(['solana', 'evm']).toContain(report.majority.chain);
    expect(typeof report.majority.endpoints).toBe('number');
    for (const key of ['genesisHash', 'network'] as const) expect(['string', 'object']).toContain(typeof report.majority[key]);
  }
  expect(Array.isArray(report.endpoints)).toBe(true);
  for (const row of report.endpoints) {
    expect(Object.keys(row).sort()).toEqual(
      ['admissionWaitP50Ms', 'chain', 'chainId', 'endpoint', 'error', 'flag', 'genesisHash', 'health', 'id', 'latencySamples', 'network', 'p50Ms', 'reachable', 'version'].sort(),
    );
    expect(typeof row.id).toBe('string');
    // Scheme and host only; a port only after an IP or a single-label host.
    expect(row.endpoint).toMatch(/^https?:\/\/(?:[^/:@?]*|(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\]|[a-z0-9-]+):\d+)$/);
    expect(typeof row.reachable).toBe('boolean');
    expect([null, 'solana', 'evm']).toContain(row.chain);
    expect(row.p50Ms === null || typeof row.p50Ms === 'number').toBe(true);
    expect(row.admissionWaitP50Ms === null || typeof row.admissionWaitP50Ms === 'number').toBe(true);
    expect(Number.isInteger(row.latencySamples)).toBe(true);
    for (const key of ['version', 'genesisHash', 'network', 'error'] as const) expect(row[key] === null || typeof row[key] === 'string').toBe(true);
    expect(row.chainId === null || typeof row.chainId === 'number').toBe(true);
    if (row.health !== null) {
      expect(typeof row.health.healthy).toBe('boolean');
      expect(row.health.detail === null || typeof row.health.detail === 'string').toBe(true);
    }
    expect([null, 'unreachable', 'wrong-chain', 'no-majority', 'unknown-chain']).toContain(row.flag);
  }
}

describe('sturdy-rpc probe', () => {
  it('prints a table with one row per endpoint and exits 0 when all are reachable and on one chain', async () => {
    const [a, b] = [await solanaNode(), await solanaNode()];
    const result = await runCli(['probe', '--url', a.url, '--url', b.url, '--samples', '3']);
    expect(result.stderr).toBe('');
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = result.stdout.trim().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual(['id', 'endpoint', 'reachable', 'node p50 ms', 'wait p50 ms', 'version', 'genesis/cluster', 'health', 'flag']);
    expect(rows).toHaveLength(2);
    // Two local nodes differ by their port.
    [a, b].forEach((node, i) => {
      const pattern = `^127\\.0\\.0\\.1-${i}\\s+http://127\\.0\\.0\\.1:${node.port}\\s+yes\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+${escape(SOLANA_VERSION)}\\s+5eykt4…2N9d \\(mainnet-beta\\)\\s+ok$`;
      expect(rows[i]).toMatch(new RegExp(pattern));
    });
    // Latency samples are pinned calls: each server saw 3 samples + the genesis detection call.
    expect(a.count('getGenesisHash')).toBe(4);
    expect(b.count('getGenesisHash')).toBe(4);
  });

  it('prints JSON following the documented schema with --json', async () => {
    const node = await solanaNode();
    const result = await runCli(['probe', '--url', node.url, '--json', '--samples', '2']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ProbeReport;
    expectProbeSchema(report);
    expect(report).toMatchObject({
      ok: true,
      samples: 2,
      majority: { chain: 'solana', genesisHash: MAINNET, network: 'mainnet-beta', chainId: null, endpoints: 1 },
    });
    expect(report.endpoints[0]).toMatchObject({
      endpoint: `http://127.0.0.1:${node.port}`,
      reachable: true,
      chain: 'solana',
      latencySamples: 2,
      version: SOLANA_VERSION,
      genesisHash: MAINNET,
      network: 'mainnet-beta',
      health: { healthy: true, detail: null },
      flag: null,
      error: null,
    });
    expect(report.endpoints[0]?.p50Ms).toBeGreaterThan(0);
  });

  it('flags the one devnet endpoint among two mainnet ones as wrong-chain and exits 1', async () => {
    const nodes = [await solanaNode(), await solanaNode({ devnet: true }), await solanaNode()];
    const result = await runCli(['probe', ...nodes.flatMap((n) => ['--url', n.url]), '--json', '--samples', '1']);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as ProbeReport;
    expectProbeSchema(report);
    expect(report.ok).toBe(false);
    expect(report.majority).toMatchObject({ genesisHash: MAINNET, network: 'mainnet-beta', endpoints: 2 });
    expect(report.endpoints.map((row) => row.flag)).toEqual([null, 'wrong-chain', null]);
    expect(report.endpoints[1]).toMatchObject({ reachable: true, genesisHash: DEVNET, network: 'devnet' });
    expect(result.stderr.trim().split('\n')).toEqual(['sturdy-rpc probe: probe failed: 1 of 3 on the wrong chain (127.0.0.1-1)']);
  });

  it('marks an endpoint nothing listens on as unreachable, still reports the others, and exits 1', async () => {
    const node = await solanaNode();
    const result = await runCli(['probe', '--url', node.url, '--url', await closedPortUrl(), '--timeout', '2000']);
    expect(result.code, result.stderr).toBe(1);
    const rows = result.stdout.trim().split('\n');
    expect(rows[1]).toMatch(/^127\.0\.0\.1-0\s.*\byes\b.*mainnet-beta/);
    expect(rows[2]).toMatch(/^127\.0\.0\.1-1\s+http:\/\/127\.0\.0\.1:\d+\s+no\s+-\s+-\s+-\s+-\s+-\s+unreachable$/);
    expect(result.stdout).toContain('127.0.0.1-1: connection refused (ECONNREFUSED)');
    expect(result.stderr.trim().split('\n')).toEqual(['sturdy-rpc probe: probe failed: 1 of 2 unreachable (127.0.0.1-1)']);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('never prints a key hidden in the userinfo, subdomain, path or query of a URL (table and JSON)', async () => {
    const node = await solanaNode();
    const secrets = ['userKEY7f3a', 'pwKEY9b2c1d', 'subKEY4e5f6a', 'pathKEY1a2b3c', 'queryKEY8d9e0f'];
    const port = new URL(node.url).port;
    const urls = [
      `http://${secrets[0]}:${secrets[1]}@127.0.0.1:${port}/v2/${secrets[3]}?api-key=${secrets[4]}`,
      // Unresolvable on most systems (then unreachable); where *.localhost resolves, it is the same node.
      `http://${secrets[2]}.localhost:${port}/${secrets[3]}`,
    ];
    for (const extra of [[], ['--json']]) {
      const result = await runCli(['probe', ...urls.flatMap((u) => ['--url', u]), '--samples', '1', '--timeout', '3000', ...extra]);
      expect([0, 1]).toContain(result.code);
      expect(result.stdout).toContain('127.0.0.1-0');
      const output = `${result.stdout}\n${result.stderr}`;
      for (const secret of secrets) expect(output.toLowerCase()).not.toContain(secret.toLowerCase());
      // The port shows only after the IP; the `.localhost` subdomain row shows neither it nor the port.
      expect(output.replaceAll(`http://127.0.0.1:${port}`, '')).not.toContain(`:${port}`);
      expect(output).toContain(`http://127.0.0.1:${port}`);
    }
  });

  it('detects an EVM node and reports its chain id, genesis block and client version', async () => {
    const server = await createFixtureServer({ fixtures: evmFixtures() });
    servers.push(server);
    const result = await runCli(['probe', '--url', server.url, '--json', '--samples', '2']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ProbeReport;
    expectProbeSchema(report);
    const chainId = Number(BigInt(JSON.parse(projectFixtures((n) => n === 'evm-eth_chainId')[0]!.response.body).result as string));
    expect(report.endpoints[0]).toMatchObject({
      chain: 'evm',
      chainId,
      network: 'mainnet',
      genesisHash: '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
      health: { healthy: true },
      flag: null,
    });
    expect(report.endpoints[0]?.version).toMatch(/^Geth\//);
  });

  it('reads endpoints, ids and headers from --config, shows the ids, and probes a submit-only endpoint too', async () => {
    const [a, b] = [await solanaNode(), await solanaNode()];
    const dir = await mkdtemp(join(tmpdir(), 'sturdy-probe-'));
    dirs.push(dir);
    const config = join(dir, 'pool.json');
    await writeFile(
      config,
      JSON.stringify({ endpoints: [{ id: 'alpha', url: `${a.url}/keyPATHabc123`, headers: { 'x-api-key': 'hdrKEY123456' } }, { id: 'beta', url: b.url, tier: 1, kinds: ['submit'] }] }),
    );
    const result = await runCli(['probe', '--config', config, '--samples', '1']);
    expect(result.code, result.stderr).toBe(0);
    const ids = result.stdout.trim().split('\n').slice(1).map((row) => row.split(/\s+/)[0]);
    expect(ids).toEqual(['alpha', 'beta']);
    expect(result.stdout).not.toContain('keyPATHabc123');
    expect(result.stdout).not.toContain('hdrKEY123456');
  });

  it('reports the node’s time apart from the admission wait: requestsPerSecond 2 shows as wait, not as node latency', async () => {
    const node = await solanaNode();
    const dir = await mkdtemp(join(tmpdir(), 'sturdy-probe-'));
    dirs.push(dir);
    const config = join(dir, 'pool.json');
    await writeFile(config, JSON.stringify({ endpoints: [{ id: 'metered', url: node.url, requestsPerSecond: 2 }] }));
    const result = await runCli(['probe', '--config', config, '--samples', '3', '--json'], 20_000);
    expect(result.code, result.stderr).toBe(0);
    const row = (JSON.parse(result.stdout) as ProbeReport).endpoints[0]!;
    expect(row.latencySamples).toBe(3);
    // The burst (2 tokens) went to detection and getVersion; health and every sample wait ~500 ms for a token.
    expect(row.admissionWaitP50Ms).toBeGreaterThanOrEqual(400);
    expect(row.p50Ms).toBeLessThan(row.admissionWaitP50Ms!);
    // What the server saw: detection + 3 samples, never more.
    expect(node.count('getGenesisHash')).toBe(4);
  }, 25_000);

  it('reports a node that is behind in the health column without failing the probe', async () => {
    const behind = await createFixtureServer({
      fixtures: mainnetSolanaFixtures().filter((f) => f.request.method !== 'getHealth').concat(projectFixtures((n) => n === 'solana-getHealth-behind')),
    });
    servers.push(behind);
    const result = await runCli(['probe', '--url', behind.url, '--samples', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[1]).toMatch(/\s{2}Node is behind by 42 slots$/);
  });

  it.each([
    ['no endpoint', ['probe'], /give at least one --url, or --config/],
    ['both --url and --config', ['probe', '--url', 'http://127.0.0.1:1', '--config', 'x.json'], /either --url or --config/],
    ['an unknown chain', ['probe', '--url', 'http://127.0.0.1:1', '--chain', 'bitcoin'], /--chain must be 'solana' or 'evm'/],
    ['a bad sample count', ['probe', '--url', 'http://127.0.0.1:1', '--samples', 'many'], /--samples must be an integer/],
    ['an unknown option', ['probe', '--url', 'http://127.0.0.1:1', '--fast'], /Unknown option '--fast'/],
    ['a non-http URL (not echoed)', ['probe', '--url', 'ftp://secretKEY42@host/'], /--url #1 must be an http/],
    ['a missing --config file', ['probe', '--config', '/nonexistent/pool.json'], /cannot read --config file/],
  ])('rejects %s with a one-line error, the usage and exit code 2', async (_name, args, message) => {
    const result = await runCli(args);
    expect(result.code, result.stderr).toBe(2);
    const [first, blank, usage] = result.stderr.split('\n');
    expect(first).toMatch(/^sturdy-rpc probe: /);
    expect(first).toMatch(message);
    expect(blank).toBe('');
    expect(usage).toMatch(/^Usage: sturdy-rpc probe /);
    expect(result.stderr).not.toContain('secretKEY42');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });
});
