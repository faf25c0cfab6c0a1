import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import { createEvmClient, type EvmClient } from '../../src/evm/index.js';
import type { RpcRequester } from '../../src/pool/request-options.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';

/**
 * A minimal `RpcRequester` over `fetch`, standing in for the pool until it exists.
 * EVM results are hex strings, so the platform JSON parser is exact here.
 */
function fetchRequester(url: string): RpcRequester & { readonly sent: string[] } {
  const sent: string[] = [];
  let id = 0;
  return {
    sent,
    async request(method, params, options) {
      sent.push(method);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: options?.signal ?? AbortSignal.timeout(options?.timeoutMs ?? 5_000),
      });
      const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
      if (body.error !== undefined) {
        throw new TransportError('RPC_ERROR', `node error ${body.error.code}`, {
          context: { rpcCode: body.error.code, rpcMessage: body.error.message },
          method,
        });
      }
      return body.result;
    },
  };
}

const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ONE_ETH = 10n ** 18n;

describe('typed EVM calls against anvil', () => {
  let anvil: AnvilInstance;
  let requester: ReturnType<typeof fetchRequester>;
  let evm: EvmClient;

  beforeAll(async () => {
    anvil = await startAnvil();
    requester = fetchRequester(anvil.url);
    evm = createEvmClient(requester);
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it('reads the default account balance exactly: 10 000 ETH in wei', async () => {
    await expect(evm.getBalance(ACCOUNT_0)).resolves.toBe(10_000n * ONE_ETH);
    await expect(evm.getBalance(ACCOUNT_0.toLowerCase(), 0n)).resolves.toBe(10_000n * ONE_ETH);
  });

  it('reads chain id 31337', async () => {
    await expect(evm.getChainId()).resolves.toBe(31_337);
  });

  it('reads the genesis hash fixed by --timestamp 1700000000, which is not mainnet', async () => {
    await expect(evm.getGenesisHash()).resolves.toBe(
      '0xc56b8342e33b57477139f45874ae699b6fe1ca1a65d089b78c34dabc3206e07b',
    );
  });

  it('reads an anvil client version', async () => {
    const version = await evm.getVersion();
    expect(version.clientVersion.startsWith('anvil/')).toBe(true);
    expect(version.name).toBe('anvil');
  });

  it('reports a node that is not syncing as healthy', async () => {
    await expect(evm.getHealth()).resolves.toEqual({ healthy: true });
  });

  it('sends a raw transaction once, and it lands', async () => {
    const before = await evm.getBlockNumber();
    // anvil signs for its unlocked accounts, so the test needs no signing library.
    const raw = (await requester.request('eth_signTransaction', [
      {
        from: ACCOUNT_0,
        to: ACCOUNT_1,
        value: `0x${ONE_ETH.toString(16)}`,
        gas: '0x5208',
        nonce: '0x0',
        maxFeePerGas: '0x77359400',
        maxPriorityFeePerGas: '0x3b9aca00',
        chainId: '0x7a69',
      },
    ])) as string;
    const sendsBefore = requester.sent.filter((m) => m === 'eth_sendRawTransaction').length;
    const hash = await evm.sendRawTransaction(raw);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(requester.sent.filter((m) => m === 'eth_sendRawTransaction').length - sendsBefore).toBe(1);
    // anvil automines: one more block, and the recipient holds 10 001 ETH.
    await expect(evm.getBlockNumber()).resolves.toBe(before + 1n);
    await expect(evm.getBalance(ACCOUNT_1)).resolves.toBe(10_001n * ONE_ETH);
    const receipt = (await requester.request('eth_getTransactionReceipt', [hash])) as { status: string };
    expect(receipt.status).toBe('0x1');
  });

  it('rejects a bad address without sending anything to anvil', async () => {
    const sentBefore = requester.sent.length;
    await expect(evm.getBalance('0x1234')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(requester.sent.length).toBe(sentBefore);
  });
});
