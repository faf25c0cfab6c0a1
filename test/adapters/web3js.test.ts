import { Connection, PublicKey } from '@solana/web3.js';
import { eachItem, itemsOf } from '../helpers/batch-server.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoolFetch } from '../../src/adapters/fetch.js';
import { closeAllServers, sendResult, startRpcServer } from '../helpers/loopback.js';
import { closePools, createPool, resetAfterReading, routeFixtures, SOLANA_SEND, twoTierPool } from './helpers.js';

/**
 * @solana/web3.js v1 `new Connection(url, { fetch: createPoolFetch(pool) })` against
 * fixture-serving loopback nodes. web3.js v1 parses bodies with `JSON.parse`, so lamports
 * are JS numbers (exact only below 2^53): the u64::MAX case belongs to kit and the typed client.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

/** The Connection's own URL is never contacted: the pool's endpoints serve every call. */
const UNUSED_URL = 'http://127.0.0.1:9';
const ACCOUNT = new PublicKey('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');

/** web3.js's internal batch entry point (what `getParsedTransactions` uses); not in its public types. */
type BatchRequest = (requests: { methodName: string; args: unknown[] }[]) => Promise<{ id: unknown; result?: unknown; error?: unknown }[]>;
const batchOf = (connection: Connection): BatchRequest => (connection as unknown as { _rpcBatchRequest: BatchRequest })._rpcBatchRequest;

async function connectionOverFixtures() {
  const node = await startRpcServer(
    routeFixtures({ getBalance: 'solana-getBalance', getGenesisHash: 'solana-getGenesisHash-devnet', getVersion: 'solana-getVersion' }),
  );
  const connection = new Connection(UNUSED_URL, { fetch: createPoolFetch(createPool({ endpoints: [{ url: node.url }] })), disableRetryOnRateLimit: true });
  return { node, connection };
}

describe('@solana/web3.js v1 Connection with createPoolFetch', () => {
  it('reads a balance (a number of lamports), the genesis hash and the version', async () => {
    const { node, connection } = await connectionOverFixtures();
    const balance = await connection.getBalance(ACCOUNT, 'confirmed');
    expect(typeof balance).toBe('number');
    expect(balance).toBeGreaterThan(0);
    await expect(connection.getGenesisHash()).resolves.toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
    const version = await connection.getVersion();
    expect(version['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(node.received.map((r) => r.method)).toEqual(['getBalance', 'getGenesisHash', 'getVersion']);
  });

  it("sends web3.js's batches as one JSON-RPC batch and answers in request order with web3.js's ids, though the node answered out of order", async () => {
    const node = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, JSON.stringify(`${request.method}-result`)), (answers) => answers.reverse()));
    const connection = new Connection(UNUSED_URL, { fetch: createPoolFetch(createPool({ endpoints: [{ url: node.url }] })) });

    const responses = await batchOf(connection)([
      { methodName: 'getSlot', args: [] },
      { methodName: 'getBlockHeight', args: [] },
      { methodName: 'getEpochInfo', args: [] },
    ]);
    expect(responses.map((r) => r.result)).toEqual(['getSlot-result', 'getBlockHeight-result', 'getEpochInfo-result']);
    const ids = responses.map((r) => r.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => typeof id === 'string' || typeof id === 'number')).toBe(true);
    expect(node.count()).toBe(1);
    expect(itemsOf(node)[0]!.map((item) => item.method)).toEqual(['getSlot', 'getBlockHeight', 'getEpochInfo']);
  });

  it('never resends a transaction whose first endpoint reset after reading; web3.js reports AMBIGUOUS_DISPATCH with the signature', async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(SOLANA_SEND.signature)));
    const connection = new Connection(UNUSED_URL, { fetch: createPoolFetch(twoTierPool(primary.url, peer.url)) });

    const error = (await connection.sendEncodedTransaction(SOLANA_SEND.wire, { skipPreflight: true }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    // web3.js keeps only the message of a send's JSON-RPC error; it leads with the pool's code and names the signature.
    expect(error.message).toMatch(/AMBIGUOUS_DISPATCH \(signature \w+\): sendTransaction may have reached endpoint 'primary'/);
    expect(error.message).toContain(SOLANA_SEND.signature);
    expect([primary.count('sendTransaction'), peer.count()]).toEqual([1, 0]);
  });
});
