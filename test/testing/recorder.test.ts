import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { loadFixtures, parseFixture, type Fixture } from '../../src/testing/fixtures.js';
import { createRecorder } from '../../src/testing/recorder.js';
import { closeAll, fixtureNamed, healthyFixtures, poolFor, rejection, startServer } from './helpers.js';

/**
 * The recorder wraps the undici executor under a real pool, writes fixture files, and those
 * files re-serve the same typed results through the fixture server — without the URL, the
 * key in it, or any request header.
 */

const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sturdy-recorder-'));
  dirs.push(dir);
  return dir;
}

const PATH_KEY = 'sk4f8a9b2c7d1e6f3a0b9c8d7e';
const QUERY_KEY = 'qk9c1d2e3f4a5b6c7d8e9f';
const HEADER_SECRET = 'hdr-secret-7d8e9f0a1b2c3d4e';
const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const SEND = fixtureNamed('solana-sendTransaction');

/** The workload, as typed results (the same calls against the recorded node and the replay). */
async function workload(pool: HttpTransportPool): Promise<unknown[]> {
  const sol = createSolanaClient(pool);
  return [
    await sol.getHealth(),
    await sol.getVersion(),
    await sol.getGenesisHash(),
    await sol.getBalance(ADDRESS, { commitment: 'confirmed' }),
    await sol.getBalance(ADDRESS),
    await sol.sendTransaction(SEND.request.params[0] as string),
  ];
}

function keyedPool(serverUrl: string, dir: string, onRecord?: (fixture: Fixture) => void): HttpTransportPool {
  const recorder = createRecorder({ executor: createUndiciExecutor(), dir, ...(onRecord ? { onRecord } : {}) });
  return poolFor(`${serverUrl}/v2/${PATH_KEY}?api-key=${QUERY_KEY}`, {
    endpoints: [{ id: 'recorded', url: `${serverUrl}/v2/${PATH_KEY}?api-key=${QUERY_KEY}`, headers: { 'x-api-key': HEADER_SECRET } }],
    executor: recorder,
  });
}

describe('createRecorder', () => {
  it('writes one fixture file per exchange that re-serves the same typed results', async () => {
    const dir = tempDir();
    const original = await startServer({ fixtures: healthyFixtures() });
    const seen: Fixture[] = [];
    const recordedResults = await workload(keyedPool(original.url, dir, (f) => seen.push(f)));

    expect(readdirSync(dir).sort()).toEqual([
      'getBalance-1.json',
      'getBalance-2.json',
      'getGenesisHash-1.json',
      'getHealth-1.json',
      'getVersion-1.json',
      'sendTransaction-1.json',
    ]);
    const recorded = loadFixtures(dir);
    expect(recorded.map((f) => f.name).sort()).toEqual(seen.map((f) => f.name).sort());

    const replay = await startServer({ fixtures: recorded });
    const replayedResults = await workload(poolFor(replay.url));
    expect(replayedResults).toEqual(recordedResults);
    expect(replay.countByMethod()).toEqual({ getHealth: 1, getVersion: 1, getGenesisHash: 1, getBalance: 2, sendTransaction: 1 });
  });

  it('keeps bodies byte for byte with the id normalised to 1, and records method, params and chain', async () => {
    const dir = tempDir();
    const original = await startServer({ fixtures: healthyFixtures() });
    await workload(keyedPool(original.url, dir));
    const balance = parseFixture(JSON.parse(readFileSync(join(dir, 'getBalance-2.json'), 'utf8')), 'getBalance-2.json');
    expect(balance).toEqual({
      name: 'getBalance-2',
      source: 'recorded by sturdy-rpc recorder against http://127.0.0.1',
      chain: 'solana',
      request: { method: 'getBalance', params: [ADDRESS] },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: fixtureNamed('solana-getBalance-u64-max').response.body },
    });
    const send = loadFixtures([join(dir, 'sendTransaction-1.json')])[0];
    expect(send?.request).toEqual(SEND.request);
    expect(send?.response.body).toBe(SEND.response.body);
  });

  it('stores no URL, no key and no request header value', async () => {
    const dir = tempDir();
    const original = await startServer({ fixtures: healthyFixtures() });
    await workload(keyedPool(original.url, dir));
    const text = readdirSync(dir)
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    for (const secret of [PATH_KEY, QUERY_KEY, HEADER_SECRET, original.url, `:${original.port}`, 'x-api-key', '/v2/']) {
      expect(text).not.toContain(secret);
    }
  });

  it('removes a key that the node echoes in a body', async () => {
    const dir = tempDir();
    const echo: Fixture = {
      name: 'echo',
      source: 'test',
      chain: 'solana',
      request: { method: 'getIdentity', params: [] },
      response: {
        status: 401,
        headers: { 'content-type': 'application/json', 'set-cookie': 'session=abc' },
        body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"invalid api key ${QUERY_KEY}"}}`,
      },
    };
    const original = await startServer({ fixtures: [echo] });
    await rejection(keyedPool(original.url, dir).request('getIdentity', []));
    const [fixture] = loadFixtures(dir);
    expect(fixture?.response).toEqual({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"invalid api key <redacted>"}}',
    });
  });

  it('records a 429 with its Retry-After, which replays as the same rate limit', async () => {
    const dir = tempDir();
    const original = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'rate-limit', retryAfterSeconds: 3 }] });
    const first = await rejection(createSolanaClient(keyedPool(original.url, dir)).getHealth());
    const replay = await startServer({ fixtures: loadFixtures(dir) });
    const second = await rejection(createSolanaClient(poolFor(replay.url)).getHealth());
    expect([first.code, first.context]).toEqual(['RATE_LIMITED', { retryAfterMs: 3000 }]);
    expect([second.code, second.context]).toEqual([first.code, first.context]);
  });

  it('records nothing for an exchange without a response (reset), and infers the EVM chain', async () => {
    const original = await startServer({ fixtures: healthyFixtures(), behaviours: { getHealth: [{ type: 'reset' }] } });
    const recorder = createRecorder({ executor: createUndiciExecutor() });
    const pool = poolFor(original.url, { executor: recorder });
    await rejection(createSolanaClient(pool).getHealth());
    expect(recorder.recorded).toEqual([]);
    await pool.request('eth_chainId', []);
    expect(recorder.recorded.map((f) => [f.name, f.chain])).toEqual([['eth_chainId-1', 'evm']]);
  });
});
