import { beforeAll, describe, expect, it } from 'vitest';
import { BaseError, createPublicClient, custom, InternalRpcError, ProviderDisconnectedError, type PublicClient } from 'viem';
import { anvil as anvilChain } from 'viem/chains';
import { findTransportError, sturdyTransport } from '../../src/adapters/viem.js';
import { TransportError } from '../../src/errors/transport-error.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { sendBody, startRpcServer } from '../helpers/loopback.js';
import { ANVIL_ACCOUNT_0, ANVIL_ACCOUNT_1, createPool, firstParamsOf, forwardTo, losingThenRelay, ONE_ETH, pollReceipt, RECORDED_SEND, rejectionOf, relayTo, signTransferWithViem, useAnvil } from './helpers.js';

/**
 * viem 2 `createPublicClient({ transport: sturdyTransport(pool, { custom }) })` against a
 * real anvil, directly and behind loopback proxies that count arrivals and can lose the
 * answer to a send after anvil processed it.
 */

describe('viem over sturdyTransport, against anvil', () => {
  const anvil = useAnvil();
  let client: PublicClient;

  beforeAll(() => {
    client = clientOver(anvil.pool);
  });

  function clientOver(pool: HttpTransportPool, retryCount?: number): PublicClient {
    return createPublicClient({
      chain: anvilChain,
      pollingInterval: 50,
      transport: sturdyTransport(pool, { custom, ...(retryCount === undefined ? {} : { retryCount, retryDelay: 1 }) }),
    });
  }

  it('reads the default account balance exactly (10 000 ETH), chain id 31337 and the block number', async () => {
    await expect(client.getBalance({ address: ANVIL_ACCOUNT_0 })).resolves.toBe(10_000n * ONE_ETH);
    await expect(client.getChainId()).resolves.toBe(31_337);
    const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
    expect(blockNumber).toBe(0n);
  });

  it("with the pool's micro-batching (batch: { waitMs: 0 }), viem's 3 concurrent reads reach anvil as one JSON-RPC batch: 1 HTTP request", async () => {
    const relay = await startRpcServer(forwardTo(anvil.url));
    const batched = clientOver(createPool({ endpoints: [{ url: relay.url }], chain: 'evm', batch: { waitMs: 0 } }));
    const [balance, chainId, nonce] = await Promise.all([
      batched.getBalance({ address: ANVIL_ACCOUNT_1 }),
      batched.getChainId(),
      batched.getTransactionCount({ address: ANVIL_ACCOUNT_1 }),
    ]);
    expect([balance >= 10_000n * ONE_ETH, chainId, nonce]).toEqual([true, 31_337, 0]);
    expect(relay.count()).toBe(1);
    expect((JSON.parse(relay.received[0]!.body) as { method: string }[]).map((item) => item.method)).toEqual(['eth_getBalance', 'eth_chainId', 'eth_getTransactionCount']);
  });

  it('a send whose answer is lost after anvil processed it fails with the ambiguous-dispatch error, is not resent, and landed once', async () => {
    const { losing, relay, pool } = await losingThenRelay(anvil.url, 'eth_sendRawTransaction');

    const error = await rejectionOf(clientOver(pool).sendRawTransaction({ serializedTransaction: RECORDED_SEND.rawTx }));
    // viem's own class for code 4900, which its retry logic never retries ...
    expect(error).toBeInstanceOf(ProviderDisconnectedError);
    // ... whose message (its details) and data (on the provider's error, viem's cause) name the code and the hash.
    expect((error as BaseError).details).toMatch(new RegExp(`^AMBIGUOUS_DISPATCH \\(transactionHash ${RECORDED_SEND.hash}\\): eth_sendRawTransaction may have reached endpoint 'e0'`));
    expect((error as BaseError).message).toContain(`AMBIGUOUS_DISPATCH (transactionHash ${RECORDED_SEND.hash})`);
    // ... and whose short message, what viem users log, is the pool's code and reason, still under code 4900.
    expect((error as ProviderDisconnectedError).code).toBe(4900);
    expect((error as BaseError).shortMessage).toMatch(new RegExp(`^AMBIGUOUS_DISPATCH \\(transactionHash ${RECORDED_SEND.hash}\\): eth_sendRawTransaction may have reached endpoint 'e0'`));
    expect((error as BaseError).message.split('\n')[0]).toBe((error as BaseError).shortMessage);
    expect(((error as BaseError).cause as { data?: unknown }).data).toEqual({ sturdyCode: 'AMBIGUOUS_DISPATCH', transactionHash: RECORDED_SEND.hash });
    // ... and the pool's error behind it, with the attempt that may have landed.
    const ambiguous = findTransportError(error, 'AMBIGUOUS_DISPATCH');
    expect(ambiguous).toBeInstanceOf(TransportError);
    expect(ambiguous?.attempts).toMatchObject([{ endpointId: 'e0', dispatch: 'dispatched-ambiguous' }]);
    expect(ambiguous?.transactionHash).toBe(RECORDED_SEND.hash);
    expect((error as BaseError).walk((e) => e instanceof TransportError)).toBe(ambiguous);
    expect(firstParamsOf('eth_sendRawTransaction', losing)).toEqual([RECORDED_SEND.rawTx]);
    expect(relay.count()).toBe(0);

    // Reconcile: the receipt shows it once; the account's nonce is now 1.
    const receipt = await pollReceipt(() => client.getTransactionReceipt({ hash: RECORDED_SEND.hash }).catch(() => null));
    expect(receipt.status).toBe('success');
    await expect(client.getTransactionCount({ address: ANVIL_ACCOUNT_0 })).resolves.toBe(1);
    await expect(client.getBalance({ address: ANVIL_ACCOUNT_1 })).resolves.toBe(10_001n * ONE_ETH);
  });

  it("a node's own error becomes viem's RpcError, with the pool's RPC_ERROR behind it", async () => {
    // The recorded transaction has landed: anvil refuses it again ("nonce too low").
    const error = await rejectionOf(client.sendRawTransaction({ serializedTransaction: RECORDED_SEND.rawTx }));
    expect(error).toBeInstanceOf(BaseError);
    expect(String(error)).toMatch(/nonce too low|already known/i);
    expect(findTransportError(error, 'RPC_ERROR')?.rpcMessage).toMatch(/nonce too low|already known/i);
  });

  it('a transaction signed locally with viem lands exactly once through the pool', async () => {
    const { relay, pool } = await relayTo(anvil.url);
    const relayed = clientOver(pool);
    const serializedTransaction = await signTransferWithViem(await client.getTransactionCount({ address: ANVIL_ACCOUNT_0 }));

    const hash = await relayed.sendRawTransaction({ serializedTransaction });
    expect(firstParamsOf('eth_sendRawTransaction', relay)).toEqual([serializedTransaction]);
    const receipt = await pollReceipt(() => client.getTransactionReceipt({ hash }).catch(() => null));
    expect(receipt.status).toBe('success');
    await expect(client.getBalance({ address: ANVIL_ACCOUNT_1 })).resolves.toBe(10_002n * ONE_ETH);
  });

  it("a read every endpoint fails reads, in viem's shortMessage, the pool's code and reason (code 4900, one request per endpoint)", async () => {
    const down = await startRpcServer((_request, { res }) => {
      res.statusCode = 503;
      res.end('down');
    });
    const pool = createPool({ endpoints: [{ url: down.url }], chain: 'evm', retry: { maxRetries: 0 } });
    const error = await rejectionOf(clientOver(pool).getBlockNumber({ cacheTime: 0 }));
    expect(error).toBeInstanceOf(ProviderDisconnectedError);
    expect((error as ProviderDisconnectedError).code).toBe(4900);
    const shortMessage = (error as BaseError).shortMessage;
    expect(shortMessage).toMatch(/^[A-Z_]+: /);
    expect(shortMessage.startsWith(`${findTransportError(error)?.code}: `)).toBe(true);
    expect(shortMessage).not.toContain(down.url);
    expect(down.count()).toBe(1);
  });

  it("viem's own retry does not resend an ambiguous call, even with retryCount raised to 3", async () => {
    // eth_newBlockFilter creates server state: never-after-dispatch in the method table.
    const { losing, relay, pool } = await losingThenRelay(anvil.url, 'eth_newBlockFilter');
    const error = await rejectionOf(clientOver(pool, 3).request({ method: 'eth_newBlockFilter' }));
    expect(losing.count('eth_newBlockFilter') + relay.count('eth_newBlockFilter')).toBe(1);
    expect(error).toBeInstanceOf(ProviderDisconnectedError);
    expect(findTransportError(error, 'AMBIGUOUS_DISPATCH')).toBeDefined();
  });

  it("adds no viem retries of its own by default: a node's -32603, which viem would retry, arrives once", async () => {
    const node = await startRpcServer((request, { res }) =>
      sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'internal error: boom' } })),
    );
    const error = await rejectionOf(clientOver(createPool({ endpoints: [{ url: node.url }], chain: 'evm' })).request({ method: 'eth_newBlockFilter' }));
    expect(node.count()).toBe(1);
    expect(error).toBeInstanceOf(InternalRpcError);
    expect(findTransportError(error, 'RPC_ERROR')?.rpcCode).toBe(-32603);
  });
});
