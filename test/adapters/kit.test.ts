import {
  address,
  createSolanaRpcFromTransport,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS, type Base64EncodedWireTransaction,
} from '@solana/kit';
import { eachItem, itemsOf } from '../helpers/batch-server.js';
import { afterEach, describe, expect, it } from 'vitest';
import { kitTransport } from '../../src/adapters/kit.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import { closeAllServers, sendBody, sendResult, startRpcServer } from '../helpers/loopback.js';
import { closePools, createPool, rejectionOf, resetAfterReading, routeFixtures, SOLANA_SEND, twoTierPool } from './helpers.js';

/** @solana/kit 8 `createSolanaRpcFromTransport(kitTransport(pool))` against fixture-serving loopback nodes. */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const FIXTURES = {
  getBalance: 'solana-getBalance-u64-max',
  getGenesisHash: 'solana-getGenesisHash-mainnet-beta',
  getVersion: 'solana-getVersion',
  getHealth: 'solana-getHealth-ok',
};
const ACCOUNT = address('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');

async function rpcOverFixtures() {
  const node = await startRpcServer(routeFixtures(FIXTURES));
  return { node, rpc: createSolanaRpcFromTransport(kitTransport(createPool({ endpoints: [{ url: node.url }] }))) };
}

describe('@solana/kit over kitTransport', () => {
  it('reads a u64::MAX balance as an exact bigint', async () => {
    const { rpc } = await rpcOverFixtures();
    const balance = await rpc.getBalance(ACCOUNT).send();
    expect(balance.value).toBe(18_446_744_073_709_551_615n);
    expect(balance.context.slot).toBe(341_197_053n);
  });

  it('reads the genesis hash, version and health', async () => {
    const { rpc, node } = await rpcOverFixtures();
    await expect(rpc.getGenesisHash().send()).resolves.toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    const version = await rpc.getVersion().send();
    expect(version['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    await expect(rpc.getHealth().send()).resolves.toBe('ok');
    expect(node.received.map((r) => r.method)).toEqual(['getGenesisHash', 'getVersion', 'getHealth']);
  });

  it("turns the node's JSON-RPC error into kit's SolanaError", async () => {
    const node = await startRpcServer((request, { res }) =>
      sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'Invalid param: WrongSize', data: { hint: 'x' } } })),
    );
    const rpc = createSolanaRpcFromTransport(kitTransport(createPool({ endpoints: [{ url: node.url }] })));
    const error = await rejectionOf(rpc.getBalance(ACCOUNT).send());
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)).toBe(true);
    expect(isTransportError(error)).toBe(false);
    expect(String(error)).toMatch(/WrongSize/);
    expect(node.count()).toBe(1);
  });

  it('never sends a transaction twice: a send whose first endpoint reset after reading fails AMBIGUOUS_DISPATCH with its signature', async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(SOLANA_SEND.signature)));
    const rpc = createSolanaRpcFromTransport(kitTransport(twoTierPool(primary.url, peer.url)));

    const error = await rejectionOf(rpc.sendTransaction(SOLANA_SEND.wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send());
    expect(isTransportError(error, 'AMBIGUOUS_DISPATCH')).toBe(true);
    expect(error).toMatchObject({ signature: SOLANA_SEND.signature, attempts: [{ endpointId: 'primary', dispatch: 'dispatched-ambiguous' }] });
    expect(primary.count('sendTransaction')).toBe(1);
    expect(peer.count()).toBe(0);
  });

  it('lands a send on the peer when the primary refused it before reading (429)', async () => {
    const primary = await startRpcServer((_request, { res }) => sendBody(res, 'Too Many Requests', 429, { 'retry-after': '1' }));
    const peer = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(SOLANA_SEND.signature)));
    const rpc = createSolanaRpcFromTransport(kitTransport(twoTierPool(primary.url, peer.url)));
    await expect(rpc.sendTransaction(SOLANA_SEND.wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send()).resolves.toBe(SOLANA_SEND.signature);
    expect([primary.count('sendTransaction'), peer.count('sendTransaction')]).toEqual([1, 1]);
  });

  it('cancels the pool call when kit aborts the request (the error is ABORTED)', async () => {
    const node = await startRpcServer(() => undefined);
    const rpc = createSolanaRpcFromTransport(kitTransport(createPool({ endpoints: [{ url: node.url }] })));
    const controller = new AbortController();
    const pending = rpc.getHealth().send({ abortSignal: controller.signal });
    // Abort once the node has the request (bounded wait, not a fixed delay: the machine may be busy).
    for (let i = 0; i < 400 && node.count() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(isTransportError(await rejectionOf(pending), 'ABORTED')).toBe(true);
    expect(node.count()).toBe(1);
  });

  it('sends an array payload as one JSON-RPC batch (one HTTP request) and answers one object per request, in order, with each id', async () => {
    const node = await startRpcServer(eachItem(routeFixtures(FIXTURES)));
    const transport = kitTransport(createPool({ endpoints: [{ url: node.url }] }));
    const responses = await transport<unknown[]>({
      payload: [
        { jsonrpc: '2.0', id: '10', method: 'getHealth', params: [] },
        { jsonrpc: '2.0', id: '11', method: 'getBalance', params: [ACCOUNT] },
        { jsonrpc: '2.0', id: '12', method: 'getNothing', params: [] },
      ],
    });
    expect(responses).toEqual([
      { jsonrpc: '2.0', id: '10', result: 'ok' },
      { jsonrpc: '2.0', id: '11', result: { context: { apiVersion: '2.2.1', slot: 341197053 }, value: 18_446_744_073_709_551_615n } },
      { jsonrpc: '2.0', id: '12', error: { code: -32601, message: 'Method not found' } },
    ]);
    expect(node.count()).toBe(1);
    expect(itemsOf(node)[0]!.map((item) => item.method)).toEqual(['getHealth', 'getBalance', 'getNothing']);
  });
});
