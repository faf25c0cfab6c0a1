import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/evm/client.js';
import { solanaSignatureFromWire } from '../../src/jsonrpc/transaction-id.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { closeAllServers, sendBody, sendResult, startRpcServer, type RpcHandler, type RpcServer } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { wireTransaction } from '../helpers/solana-wire.js';

/**
 * What a node answers a send with, over real sockets: a definitive JSON-RPC error is the
 * node's answer whatever its wording (one arrival, `RPC_ERROR` with the node's code), and
 * an answer that is not the transaction's id — another id, `""`, `null` — is one outcome:
 * `AMBIGUOUS_DISPATCH` with the attempts, the endpoint and the id computed locally.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const RETRY = { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 20 };
const keccakHex = (hex: string) => `0x${bytesToHex(keccak_256(hexToBytes(hex.slice(2))))}`;
const EVM_RAW_TX = `0x02${'cd'.repeat(90)}`;
const EVM_HASH = keccakHex(EVM_RAW_TX);
const signatureOf = (wire: string) => solanaSignatureFromWire(wire, 'base64')!;

const rpcErrorAnswer =
  (code: number, message: string, data?: unknown): RpcHandler =>
  (request, { res }) =>
    sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code, message, ...(data === undefined ? {} : { data }) } }));
const resultAnswer =
  (value: (request: { params: unknown }) => unknown): RpcHandler =>
  (request, { res }) =>
    sendResult(res, request.id, JSON.stringify(value(request)));
const echoSignature = resultAnswer((request) => signatureOf((request.params as [string])[0]));

async function servers(...handlers: RpcHandler[]): Promise<RpcServer[]> {
  return Promise.all(handlers.map((handler) => startRpcServer(handler)));
}
const tiered = (list: readonly RpcServer[]) => list.map((server, i) => ({ id: String.fromCharCode(97 + i), url: server.url, tier: i }));
const arrivals = (list: readonly RpcServer[], method: string) => list.map((server) => server.count(method));

describe('a definitive JSON-RPC error is the node’s answer, whatever its words: one arrival', () => {
  const PRIVILEGE_ESCALATION =
    'Transaction simulation failed: Error processing Instruction 0: Cross-program invocation with unauthorized signer or writable account';

  it('Solana -32002 "…unauthorized signer…": RPC_ERROR with the node’s code and message, never written to b', async () => {
    const list = await servers(rpcErrorAnswer(-32002, PRIVILEGE_ESCALATION, { err: { InstructionError: [0, 'PrivilegeEscalation'] } }), echoSignature);
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });

    const error = await rejection(createSolanaClient(pool).sendTransaction(wireTransaction(21), { encoding: 'base64' }, { timeoutMs: 3_000 }));
    expect(error).toMatchObject({ code: 'RPC_ERROR', rpcCode: -32002, rpcMessage: PRIVILEGE_ESCALATION, endpointId: 'a' });
    expect(arrivals(list, 'sendTransaction')).toEqual([1, 0]);
  });

  it('three endpoints all answering it: written once in total', async () => {
    const list = await servers(...[0, 1, 2].map(() => rpcErrorAnswer(-32002, PRIVILEGE_ESCALATION)));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    const error = await rejection(createSolanaClient(pool).sendTransaction(wireTransaction(22), {}, { timeoutMs: 3_000 }));
    expect(error.code).toBe('RPC_ERROR');
    expect(arrivals(list, 'sendTransaction')).toEqual([1, 0, 0]);
  });

  it.each([
    ['nonce too low', -32000, 'nonce too low: next nonce 5, tx nonce 3'],
    ['an Unauthorized() revert', 3, 'execution reverted: Unauthorized()'],
    ['insufficient funds', -32000, 'insufficient funds for gas * price + value'],
  ])('EVM eth_sendRawTransaction answered %s: RPC_ERROR, one arrival', async (_, code, message) => {
    const list = await servers(rpcErrorAnswer(code, message), resultAnswer(() => EVM_HASH));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    const error = await rejection(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX, { timeoutMs: 3_000 }));
    expect(error).toMatchObject({ code: 'RPC_ERROR', rpcCode: code, rpcMessage: message });
    expect(arrivals(list, 'eth_sendRawTransaction')).toEqual([1, 0]);
  });

  it('an unknown method answered -32602 "…rate limit…" is RPC_ERROR (not RATE_LIMITED), one arrival', async () => {
    const list = await servers(rpcErrorAnswer(-32602, 'invalid params: rate limit must be positive'), resultAnswer(() => 'ok'));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    const error = await rejection(pool.request('relay_submit', [1], { timeoutMs: 3_000 }));
    expect(error).toMatchObject({ code: 'RPC_ERROR', rpcCode: -32602 });
    expect(arrivals(list, 'relay_submit')).toEqual([1, 0]);
  });

  it('a real provider rate limit on a send (-32429) still goes to the peer: it was refused, not processed', async () => {
    const list = await servers(rpcErrorAnswer(-32429, 'rate limited'), echoSignature);
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    const tx = wireTransaction(23);
    await expect(createSolanaClient(pool).sendTransaction(tx, {}, { timeoutMs: 3_000 })).resolves.toBe(signatureOf(tx));
    expect(arrivals(list, 'sendTransaction')).toEqual([1, 1]);
  });
});

describe('a send answered with anything but its own id: AMBIGUOUS_DISPATCH with the true id, never resent', () => {
  it('EVM: keccak256("0x1234") instead of the transaction’s hash → the true hash, reason send-result-mismatch', async () => {
    const list = await servers(resultAnswer(() => keccakHex('0x1234')), resultAnswer(() => EVM_HASH));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });

    const error = await rejection(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX, { timeoutMs: 3_000 }));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toEqual({ transactionHash: EVM_HASH, reason: 'send-result-mismatch' });
    expect(error.endpointId).toBe('a');
    expect(error.attempts).toEqual([expect.objectContaining({ endpointId: 'a', cause: 'invalid-response', dispatch: 'dispatched-ambiguous' })]);
    expect(error.message).toContain(EVM_HASH);
    expect(arrivals(list, 'eth_sendRawTransaction')).toEqual([1, 0]);
  });

  it('EVM: the true hash in upper case is the hash (hex has no case)', async () => {
    const list = await servers(resultAnswer(() => `0x${EVM_HASH.slice(2).toUpperCase()}`));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    await expect(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX)).resolves.toBe(EVM_HASH);
  });

  const tx = wireTransaction(24);
  const otherSignature = signatureOf(wireTransaction(25));
  it.each<[string, string, string[], unknown, string, Record<string, string>]>([
    ['Solana ""', 'sendTransaction', [tx, { encoding: 'base64' } as never], '', 'send-result-mismatch', { signature: signatureOf(tx) }],
    ['Solana: another valid signature', 'sendTransaction', [tx, { encoding: 'base64' } as never], otherSignature, 'send-result-mismatch', { signature: signatureOf(tx) }],
    ['Solana null', 'sendTransaction', [tx, { encoding: 'base64' } as never], null, 'empty-result', { signature: signatureOf(tx) }],
    ['EVM ""', 'eth_sendRawTransaction', [EVM_RAW_TX], '', 'send-result-mismatch', { transactionHash: EVM_HASH }],
    ['EVM null', 'eth_sendRawTransaction', [EVM_RAW_TX], null, 'empty-result', { transactionHash: EVM_HASH }],
  ])('%s: the same outcome, with attempts, endpoint and the locally computed id', async (_, method, params, answer, reason, ids) => {
    const list = await servers(resultAnswer(() => answer), method === 'sendTransaction' ? echoSignature : resultAnswer(() => EVM_HASH));
    const pool = createPool({ endpoints: tiered(list), retry: RETRY });
    const error = await rejection(pool.request(method, params, { timeoutMs: 3_000 }));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toEqual({ ...ids, reason });
    expect(error.endpointId).toBe('a');
    expect(error.attempts).toHaveLength(1);
    expect(arrivals(list, method)).toEqual([1, 0]);
  });

  it('with reconcileSends the true hash is looked up, and the call resolves with it once a node knows it', async () => {
    const liar = await startRpcServer(resultAnswer(() => keccakHex('0x1234')));
    const reader = await startRpcServer(resultAnswer(() => ({ hash: EVM_HASH, blockNumber: null })));
    const pool = createPool({
      endpoints: [
        { id: 'liar', url: liar.url, kinds: ['submit'] },
        { id: 'reader', url: reader.url, kinds: ['read'] },
      ],
      reconcileSends: { windowMs: 500, intervalMs: 50 },
    });
    await expect(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX, { timeoutMs: 3_000 })).resolves.toBe(EVM_HASH);
    expect(liar.count('eth_sendRawTransaction')).toBe(1);
    expect(reader.received.map((r) => [r.method, r.params])).toEqual([['eth_getTransactionByHash', [EVM_HASH]]]);
  });
});
