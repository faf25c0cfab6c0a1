import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEvmClient, evmChainOf, EVM_GENESIS_HASHES, isEvmAddress } from '../../src/evm/index.js';
import { answering, rejection, stub } from '../helpers/stub-requester.js';

const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const MAINNET_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';
const TX_HASH = '0x7d4c13ed95c0cee830d7457ec5a5976db1fc301cfa7a23fef0039a7ccf6aea87';

describe('getHealth (eth_syncing)', () => {
  it('is healthy when the node is not syncing, and passes request options through', async () => {
    const { requester, calls } = answering(false);
    await expect(createEvmClient(requester).getHealth({ endpoint: 'local' })).resolves.toEqual({ healthy: true });
    expect(calls).toEqual([{ method: 'eth_syncing', params: [], options: { endpoint: 'local' } }]);
  });

  it('is unhealthy with blocksBehind = highestBlock − currentBlock while syncing', async () => {
    const syncing = { startingBlock: '0x0', currentBlock: '0x1320ce2', highestBlock: '0x1320d0c' };
    await expect(createEvmClient(answering(syncing).requester).getHealth()).resolves.toEqual({
      healthy: false,
      message: 'Node is syncing (block 20057314 of 20057356)',
      blocksBehind: 42n,
    });
  });

  it('omits blocksBehind when the sync object lacks the block numbers, and never goes negative', async () => {
    await expect(createEvmClient(answering({}).requester).getHealth()).resolves.toEqual({
      healthy: false,
      message: 'Node is syncing',
    });
    const ahead = { currentBlock: '0x10', highestBlock: '0x5' };
    const health = await createEvmClient(answering(ahead).requester).getHealth();
    expect(health).toMatchObject({ healthy: false, blocksBehind: 0n });
  });

  it.each([true, 'false', null, { currentBlock: 12 }])('rejects %j as INVALID_RESPONSE', async (result) => {
    const error = await rejection(createEvmClient(answering(result).requester).getHealth());
    expect(error.code).toBe('INVALID_RESPONSE');
  });
});

describe('getVersion (web3_clientVersion)', () => {
  it.each([
    ['anvil/v1.7.1', { name: 'anvil', version: 'v1.7.1' }],
    ['Geth/v1.14.11-stable-f3c696fa/linux-amd64/go1.23.2', { name: 'Geth', version: 'v1.14.11-stable-f3c696fa' }],
    ['erigon/2.60.10/linux-amd64/go1.22.5', { name: 'erigon', version: '2.60.10' }],
  ])('parses %s into name and version', async (clientVersion, parsed) => {
    await expect(createEvmClient(answering(clientVersion).requester).getVersion()).resolves.toEqual({
      clientVersion,
      ...parsed,
    });
  });

  it('keeps only the raw string when it has no simple name/version shape', async () => {
    await expect(createEvmClient(answering('Some Client 1.0').requester).getVersion()).resolves.toEqual({
      clientVersion: 'Some Client 1.0',
    });
  });

  it('rejects an empty or non-string version as INVALID_RESPONSE', async () => {
    for (const bad of ['', 7, null]) {
      expect((await rejection(createEvmClient(answering(bad).requester).getVersion())).code).toBe('INVALID_RESPONSE');
    }
  });
});

describe('getGenesisHash and evmChainOf', () => {
  it('asks for block 0 without transactions and names mainnet by its hash, in any case', async () => {
    const { requester, calls } = answering({ number: '0x0', hash: MAINNET_GENESIS.toUpperCase().replace('0X', '0x') });
    const hash = await createEvmClient(requester).getGenesisHash();
    expect(hash).toBe(MAINNET_GENESIS);
    expect(evmChainOf(hash)).toBe('mainnet');
    expect(evmChainOf(MAINNET_GENESIS.toUpperCase())).toBe('mainnet');
    expect(calls[0]?.params).toEqual(['0x0', false]);
    expect(EVM_GENESIS_HASHES.mainnet).toBe(MAINNET_GENESIS);
  });

  it('names no chain for another genesis hash', () => {
    expect(evmChainOf(`0x${'ab'.repeat(32)}`)).toBeUndefined();
  });

  it.each([null, {}, { hash: '0x1234' }, { hash: `0x${'g'.repeat(64)}` }])(
    'rejects block %j as INVALID_RESPONSE',
    async (block) => {
      const error = await rejection(createEvmClient(answering(block).requester).getGenesisHash());
      expect(error.code).toBe('INVALID_RESPONSE');
    },
  );
});

describe('getBalance (eth_getBalance)', () => {
  it('parses a wei quantity exactly, far above 2^53', async () => {
    const { requester, calls } = answering('0x21e19e0c9bab2400000');
    await expect(createEvmClient(requester).getBalance(ACCOUNT)).resolves.toBe(10_000n * 10n ** 18n);
    expect(calls[0]?.params).toEqual([ACCOUNT, 'latest']);
  });

  it('parses a 256-bit quantity exactly and tolerates leading zeros', async () => {
    const max = `0x${'f'.repeat(64)}`;
    await expect(createEvmClient(answering(max).requester).getBalance(ACCOUNT)).resolves.toBe(2n ** 256n - 1n);
    await expect(createEvmClient(answering('0x00ff').requester).getBalance(ACCOUNT)).resolves.toBe(255n);
  });

  it('sends block tags and block numbers as given or as hex quantities', async () => {
    const { requester, calls } = answering('0x0');
    const client = createEvmClient(requester);
    await client.getBalance(ACCOUNT, 'finalized');
    await client.getBalance(ACCOUNT, 255n);
    await client.getBalance(ACCOUNT, 16, { timeoutMs: 100 });
    expect(calls.map((c) => c.params[1])).toEqual(['finalized', '0xff', '0x10']);
    expect(calls[2]?.options).toEqual({ timeoutMs: 100 });
  });

  it.each(['0x', '21e19e0c9bab2400000', '0x-1', '0x1.5', 10, null, `0x${'1'.repeat(1025)}`])(
    'rejects the quantity %j as INVALID_RESPONSE',
    async (result) => {
      const error = await rejection(createEvmClient(answering(result).requester).getBalance(ACCOUNT));
      expect(error.code).toBe('INVALID_RESPONSE');
      expect(error.context).toMatchObject({ reason: expect.stringMatching(/^result: /) });
    },
  );

  it.each([
    ['missing 0x', 'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['39 hex digits', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226'],
    ['41 hex digits', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb922660'],
    ['a non-hex digit', '0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['a Solana address', '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a'],
    ['empty', ''],
  ])('sends nothing and throws INVALID_INPUT for an address %s', async (_, address) => {
    const { requester, calls } = answering('0x0');
    const error = await rejection(createEvmClient(requester).getBalance(address));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'address' });
    expect(calls).toHaveLength(0);
  });

  it('accepts lowercase, uppercase and mixed-case addresses (checksum not verified)', () => {
    expect(isEvmAddress(ACCOUNT.toLowerCase())).toBe(true);
    expect(isEvmAddress(`0x${ACCOUNT.slice(2).toUpperCase()}`)).toBe(true);
    expect(isEvmAddress(ACCOUNT)).toBe(true);
  });

  it.each([-1, 1.5, 'newest', -1n])('sends nothing for the block %s', async (block) => {
    const { requester, calls } = answering('0x0');
    const error = await rejection(createEvmClient(requester).getBalance(ACCOUNT, block as 'latest'));
    expect(error.context).toEqual({ field: 'blockTag' });
    expect(calls).toHaveLength(0);
  });
});

describe('getChainId and getBlockNumber', () => {
  it('returns the chain id as a number', async () => {
    await expect(createEvmClient(answering('0x7a69').requester).getChainId()).resolves.toBe(31_337);
  });

  it('rejects a chain id above 2^53 − 1 as INVALID_RESPONSE', async () => {
    const error = await rejection(createEvmClient(answering('0x20000000000000').requester).getChainId());
    expect(error.code).toBe('INVALID_RESPONSE');
  });

  it('returns the block number as a bigint', async () => {
    const { requester, calls } = answering('0x1320d0c');
    await expect(createEvmClient(requester).getBlockNumber()).resolves.toBe(20_057_356n);
    expect(calls[0]).toMatchObject({ method: 'eth_blockNumber', params: [] });
  });
});

describe('sendRawTransaction', () => {
  it('sends the raw bytes once and returns the hash in lowercase', async () => {
    const { requester, calls } = answering(TX_HASH.toUpperCase().replace('0X', '0x'));
    await expect(createEvmClient(requester).sendRawTransaction('0x02f874')).resolves.toBe(TX_HASH);
    expect(calls).toEqual([{ method: 'eth_sendRawTransaction', params: ['0x02f874'], options: undefined }]);
  });

  it.each(['', '0x', '02f874', '0x02f87', '0xzz', 42])('sends nothing for the raw transaction %j', async (raw) => {
    const { requester, calls } = answering(TX_HASH);
    const error = await rejection(createEvmClient(requester).sendRawTransaction(raw as string));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'serializedTransaction' });
    expect(calls).toHaveLength(0);
  });

  it('rejects a result that is not a 32-byte hash', async () => {
    const error = await rejection(createEvmClient(answering('0x1234').requester).sendRawTransaction('0x02'));
    expect(error.code).toBe('INVALID_RESPONSE');
  });
});

// ---- recorded fixtures: every EVM success case ----

interface Fixture {
  readonly name: string;
  readonly chain: string;
  readonly request: { readonly method: string; readonly params: readonly unknown[] };
  readonly response: { readonly body: string };
  readonly expect?: { readonly client?: string; readonly result?: unknown; readonly chainName?: string };
}

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const revive = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_, v: unknown) =>
    typeof v === 'object' && v !== null && '$bigint' in v ? BigInt((v as { $bigint: string }).$bigint) : v,
  );
const evmFixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as Fixture)
  .filter((f) => f.chain === 'evm' && f.expect?.client !== undefined);

describe('recorded EVM fixtures', () => {
  it('cover every typed call', () => {
    const clients = new Set(evmFixtures.map((f) => f.expect?.client));
    expect([...clients].sort()).toEqual([
      'getBalance',
      'getBlockNumber',
      'getChainId',
      'getGenesisHash',
      'getHealth',
      'getVersion',
      'sendRawTransaction',
    ]);
  });

  it.each(evmFixtures.map((f) => [f.name, f] as const))('%s gives the expected typed result', async (_, fixture) => {
    // EVM bodies carry quantities as hex strings, so the platform parser is exact here.
    const body = JSON.parse(fixture.response.body) as { result?: unknown };
    const { requester, calls } = stub(() => body.result);
    const client = createEvmClient(requester) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const args = fixture.request.method === 'eth_getBlockByNumber' ? [] : fixture.request.params;
    const result = await client[fixture.expect?.client ?? '']?.(...args);
    expect(result).toEqual(revive(fixture.expect?.result));
    expect(calls[0]).toMatchObject({ method: fixture.request.method, params: fixture.request.params });
    if (fixture.expect?.chainName !== undefined) expect(evmChainOf(result as string)).toBe(fixture.expect.chainName);
  });
});
