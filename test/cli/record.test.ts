import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import { loadFixtures } from '../../src/testing/fixtures.js';
import { mainnetSolanaFixtures, runCli } from './run-cli.js';

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function server(): Promise<FixtureServer> {
  const s = await createFixtureServer({ fixtures: mainnetSolanaFixtures() });
  servers.push(s);
  return s;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sturdy-record-'));
  dirs.push(dir);
  return dir;
}

function pool(url: string): HttpTransportPool {
  const p = new HttpTransportPool({ endpoints: [{ id: 'node', url }], retry: { maxRetries: 0 } });
  pools.push(p);
  return p;
}

describe('sturdy-rpc record', () => {
  const secrets = ['userKEY7f3a91', 'pwKEY9b2c1d77', 'pathKEY1a2b3c4d', 'queryKEY8d9e0f12'];

  it('writes a fixture with no URL or key, prints its path only, and the recording replays', async () => {
    const origin = await server();
    const out = join(await tempDir(), 'recorded');
    const url = `http://${secrets[0]}:${secrets[1]}@127.0.0.1:${origin.port}/v2/${secrets[2]}?api-key=${secrets[3]}`;
    const result = await runCli(['record', '--url', url, '--method', 'getVersion', '--params', '[]', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const file = join(out, 'getVersion-1.json');
    expect(result.stdout).toBe(`${file}\n`);
    expect(origin.count('getVersion')).toBe(1);

    const text = await readFile(file, 'utf8');
    for (const secret of [...secrets, String(origin.port)]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/authorization/i);
    const [fixture] = loadFixtures(out);
    expect(fixture).toMatchObject({ name: 'getVersion-1', chain: 'solana', request: { method: 'getVersion', params: [] }, response: { status: 200 } });

    // Replay: the recorded file, served by the fixture server, answers as the original did.
    const replay = await createFixtureServer({ fixtures: loadFixtures(out) });
    servers.push(replay);
    const expected = await createSolanaClient(pool(origin.url)).getVersion();
    expect(await createSolanaClient(pool(replay.url)).getVersion()).toEqual(expected);
  });

  it('keeps params exact, never overwrites: a second recording of the method gets the next number', async () => {
    const origin = await server();
    const out = await tempDir();
    const params = '["83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a",{"minContextSlot":18446744073709551615}]';
    for (const n of [1, 2]) {
      const result = await runCli(['record', '--url', origin.url, '--method', 'getBalance', '--params', params, '--out', out]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(join(out, `getBalance-${n}.json`));
    }
    expect((await readdir(out)).sort()).toEqual(['getBalance-1.json', 'getBalance-2.json']);
    expect(await readFile(join(out, 'getBalance-2.json'), 'utf8')).toContain('"minContextSlot": 18446744073709551615');
  });

  it.each([
    ['params that are not a JSON array', ['--params', '{"a":1}'], /--params must be a JSON array/],
    ['params that are not JSON', ['--params', '[1,'], /--params is not valid JSON/],
    ['a missing --method', ['--method', ''], /--method is required/],
  ])('rejects %s with a one-line error, the usage and exit code 2, sending nothing', async (_name, extra, message) => {
    const origin = await server();
    const out = await tempDir();
    const args = ['record', '--url', `${origin.url}/${secrets[2]}`, '--method', 'getVersion', '--out', out];
    const i = args.indexOf(extra[0]!);
    if (i >= 0) args.splice(i, 2);
    const result = await runCli([...args, ...extra]);
    expect(result.code, result.stderr).toBe(2);
    const [first, blank, usage] = result.stderr.split('\n');
    expect(first).toMatch(/^sturdy-rpc record: /);
    expect(first).toMatch(message);
    expect(blank).toBe('');
    expect(usage).toMatch(/^Usage: sturdy-rpc record /);
    expect(result.stderr).not.toContain(secrets[2]);
    expect(origin.count()).toBe(0);
    expect(await readdir(out)).toEqual([]);
  });

  it('exits 1 with a one-line message and writes nothing when the endpoint cannot be reached', async () => {
    const gone = await createFixtureServer({ fixtures: [] });
    await gone.close();
    const out = await tempDir();
    const result = await runCli(['record', '--url', `${gone.url}/${secrets[2]}`, '--method', 'getVersion', '--out', out, '--timeout', '2000']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe('sturdy-rpc record: record failed: connection refused (ECONNREFUSED); nothing was recorded\n');
    expect(result.stdout).toBe('');
    expect(await readdir(out)).toEqual([]);
  });
});
