import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { evmChainOf } from '../../src/evm/chains.js';
import { createEvmClient } from '../../src/evm/client.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { solanaClusterOf } from '../../src/solana/clusters.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { ANVIL_GENESIS_HASH } from '../../src/testing/fault-answers.js';
import { call, closeAll, healthyFixtures, poolFor, resultFixture, startServer } from './helpers.js';

/** Lying nodes (other chain, lagging), latency on the fake clock, and how triggers pick calls. */

afterEach(closeAll);

const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';

describe('a node on another chain', () => {
  it('reports the devnet genesis hash to Solana clients', async () => {
    const honest = await startServer({ fixtures: healthyFixtures() });
    const lying = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'wrong-genesis' }] });
    expect(solanaClusterOf(await createSolanaClient(poolFor(honest.url)).getGenesisHash())).toBe('mainnet-beta');
    expect(solanaClusterOf(await createSolanaClient(poolFor(lying.url)).getGenesisHash())).toBe('devnet');
    // Nothing else changes.
    await expect(createSolanaClient(poolFor(lying.url)).getHealth()).resolves.toEqual({ healthy: true });
  });

  it('reports another genesis block hash to EVM clients, even without a genesis fixture', async () => {
    const honest = await startServer({ fixtures: healthyFixtures() });
    const lying = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'wrong-genesis' }] });
    const bare = await startServer({ fixtures: [], behaviours: [{ type: 'wrong-genesis', evmGenesisHash: `0x${'ab'.repeat(32)}` }] });
    expect(evmChainOf(await createEvmClient(poolFor(honest.url)).getGenesisHash())).toBe('mainnet');
    await expect(createEvmClient(poolFor(lying.url)).getGenesisHash()).resolves.toBe(ANVIL_GENESIS_HASH);
    expect(evmChainOf(ANVIL_GENESIS_HASH)).toBeUndefined();
    await expect(createEvmClient(poolFor(bare.url)).getGenesisHash()).resolves.toBe(`0x${'ab'.repeat(32)}`);
  });
});

describe('a node on another EVM chain id (wrong-genesis with evmChainId)', () => {
  it('answers eth_chainId with evmChainId as a hex quantity, and leaves it alone when unset', async () => {
    const honest = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'wrong-genesis' }] });
    const lying = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'wrong-genesis', evmChainId: 31337 }] });
    // Unset: the fixture's mainnet chain id 1, as before.
    await expect(createEvmClient(poolFor(honest.url)).getChainId()).resolves.toBe(1);
    await expect(createEvmClient(poolFor(lying.url)).getChainId()).resolves.toBe(31337);
    const raw = await call(lying.url, 'eth_chainId', [], 42);
    expect(JSON.parse(raw.body)).toEqual({ jsonrpc: '2.0', id: 42, result: '0x7a69' });
    // The genesis hash and the other methods keep their own behaviour.
    await expect(createEvmClient(poolFor(lying.url)).getGenesisHash()).resolves.toBe(ANVIL_GENESIS_HASH);
    await expect(createEvmClient(poolFor(lying.url)).getBlockNumber()).resolves.toBe(20057356n);
    expect(lying.countByMethod()).toMatchObject({ eth_chainId: 2, eth_getBlockByNumber: 1, eth_blockNumber: 1 });
  });

  it('answers eth_chainId without an eth_chainId fixture, only when the trigger fires', async () => {
    const bare = await startServer({ fixtures: [], behaviours: [{ type: 'wrong-genesis', evmChainId: 5, everyNth: 2 }] });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(JSON.parse((await call(bare.url, 'eth_chainId')).body) as unknown);
    expect(answers.map((a) => ('result' in (a as object) ? (a as { result: string }).result : (a as { error: { code: number } }).error.code))).toEqual([
      -32601,
      '0x5',
      -32601,
      '0x5',
    ]);
  });

  it('rejects an evmChainId that is not a non-negative safe integer', async () => {
    for (const evmChainId of [-1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(startServer({ fixtures: [], behaviours: [{ type: 'wrong-genesis', evmChainId }] })).rejects.toThrow(/evmChainId/);
    }
  });
});

describe('a lagging node', () => {
  it('is unhealthy with numSlotsBehind when it lags more than 128 slots', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'lag', slots: 200 }] });
    await expect(createSolanaClient(poolFor(server.url)).getHealth()).resolves.toEqual({
      healthy: false,
      numSlotsBehind: 200,
      message: 'Node is behind by 200 slots',
    });
  });

  it('stays healthy within the threshold but reports older slots', async () => {
    const fixtures = [...healthyFixtures(), resultFixture('getSlot', '341197060')];
    const server = await startServer({ fixtures, behaviours: [{ type: 'lag', slots: 50 }] });
    const pool = poolFor(server.url);
    await expect(createSolanaClient(pool).getHealth()).resolves.toEqual({ healthy: true });
    await expect(createSolanaClient(pool).getBalance(ADDRESS, { commitment: 'confirmed' })).resolves.toEqual({
      slot: 341197053n - 50n,
      value: 2039280n,
    });
    await expect(pool.request('getSlot', [])).resolves.toBe(341197010);
  });

  it('honours a custom unhealthy threshold, and lowers EVM block numbers', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'lag', slots: 10, unhealthyAboveSlots: 5 }] });
    const health = await createSolanaClient(poolFor(server.url)).getHealth();
    expect(health).toMatchObject({ healthy: false, numSlotsBehind: 10 });
    await expect(createEvmClient(poolFor(server.url)).getBlockNumber()).resolves.toBe(20057356n - 10n);
  });
});

describe('latency on the injected clock', () => {
  it('answers after exactly the fixed latency', async () => {
    const clock = createFakeClock();
    const server = await startServer({ fixtures: healthyFixtures(), clock, behaviours: { getHealth: [{ type: 'latency', ms: 250 }] } });
    let answered = false;
    const reply = call(server.url, 'getHealth').then((r) => {
      answered = true;
      return r;
    });
    await server.waitForRequests(1);
    await clock.advance(249);
    expect(answered).toBe(false);
    await clock.advance(1);
    await expect(reply).resolves.toMatchObject({ status: 200, body: '{"jsonrpc":"2.0","result":"ok","id":1}' });
    // Methods without the behaviour answer at once.
    await expect(call(server.url, 'getVersion')).resolves.toMatchObject({ status: 200 });
  });

  it('draws random latency uniformly in [minMs, maxMs] from the injected random', async () => {
    const clock = createFakeClock();
    const expectedMs = 100 + createSeededRandom(7)() * 200;
    const server = await startServer({
      fixtures: healthyFixtures(),
      clock,
      random: createSeededRandom(7),
      behaviours: [{ type: 'latency', minMs: 100, maxMs: 300 }],
    });
    let answered = false;
    const reply = call(server.url, 'getHealth').then(() => {
      answered = true;
    });
    await server.waitForRequests(1);
    await clock.advance(expectedMs - 0.5);
    expect(answered).toBe(false);
    await clock.advance(0.5);
    await reply;
    expect(answered).toBe(true);
  });

  it('delays fault answers too (latency, then 503)', async () => {
    const clock = createFakeClock();
    const server = await startServer({
      fixtures: healthyFixtures(),
      clock,
      behaviours: [{ type: 'latency', ms: 40 }, { type: 'http-error' }],
    });
    const reply = call(server.url, 'getHealth');
    await server.waitForRequests(1);
    await clock.advance(40);
    await expect(reply).resolves.toMatchObject({ status: 503 });
  });
});

describe('triggers', () => {
  it('applies a behaviour with a probability, reproducibly from the seeded random', async () => {
    const reference = createSeededRandom(42);
    const expected = Array.from({ length: 12 }, () => (reference() < 0.4 ? 503 : 200));
    const server = await startServer({
      fixtures: healthyFixtures(),
      random: createSeededRandom(42),
      behaviours: [{ type: 'http-error', probability: 0.4 }],
    });
    const statuses: number[] = [];
    for (let i = 0; i < expected.length; i++) statuses.push((await call(server.url, 'getHealth')).status);
    expect(statuses).toEqual(expected);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
  });

  it('per-method behaviours apply only to that method; setBehaviours and reset restart the count', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: { getVersion: [{ type: 'html', everyNth: 2 }] } });
    const status = async (method: string) => (await call(server.url, method)).headers.get('content-type');
    expect([await status('getVersion'), await status('getHealth'), await status('getVersion')]).toEqual([
      'application/json',
      'application/json',
      'text/html',
    ]);
    server.reset();
    expect(await status('getVersion')).toBe('application/json');
    expect(await status('getVersion')).toBe('text/html');
    server.setBehaviours([]);
    expect(await status('getVersion')).toBe('application/json');
    expect(server.count('getVersion')).toBe(3);
  });

  it('rejects invalid behaviour settings at creation', async () => {
    await expect(startServer({ fixtures: [], behaviours: [{ type: 'html', probability: 2 }] })).rejects.toThrow(/probability/);
    await expect(startServer({ fixtures: [], behaviours: [{ type: 'reset', everyNth: 0 }] })).rejects.toThrow(/everyNth/);
  });
});
