import { describe, expect, it } from 'vitest';
import { findTransportError, PoolRpcError, toJsonRpcError } from '../../src/adapters/rpc-error.js';
import { TransportError } from '../../src/errors/transport-error.js';

/** How pool errors are shown to host libraries as JSON-RPC error objects. */

const nodeError = new TransportError('RPC_ERROR', 'eth_call failed', {
  context: { rpcCode: 3, rpcMessage: 'execution reverted', rpcData: '0x08c379a0' },
  method: 'eth_call',
});
const ambiguous = new TransportError('AMBIGUOUS_DISPATCH', "sendTransaction may have reached endpoint 'a'", {
  context: { signature: '5sig' },
  method: 'sendTransaction',
});

describe('toJsonRpcError', () => {
  it("passes a node's own error through: code, message and data", () => {
    expect(toJsonRpcError(nodeError)).toEqual({ code: 3, message: 'execution reverted', data: '0x08c379a0' });
  });

  it('gives every other pool failure code 4900, the TransportError code and the transaction id (signature or hash) in data and leading the message', () => {
    expect(toJsonRpcError(ambiguous)).toEqual({
      code: 4900,
      message: "AMBIGUOUS_DISPATCH (signature 5sig): sendTransaction may have reached endpoint 'a'",
      data: { sturdyCode: 'AMBIGUOUS_DISPATCH', signature: '5sig' },
    });
    const evmSend = new TransportError('AMBIGUOUS_DISPATCH', "eth_sendRawTransaction may have reached endpoint 'a'", {
      context: { transactionHash: '0xfeed' },
      method: 'eth_sendRawTransaction',
    });
    expect(evmSend.transactionHash).toBe('0xfeed');
    expect(toJsonRpcError(evmSend)).toEqual({
      code: 4900,
      message: "AMBIGUOUS_DISPATCH (transactionHash 0xfeed): eth_sendRawTransaction may have reached endpoint 'a'",
      data: { sturdyCode: 'AMBIGUOUS_DISPATCH', transactionHash: '0xfeed' },
    });
    const deadline = new TransportError('DEADLINE_EXCEEDED', 'getSlot did not complete within 100 ms', { context: { timeoutMs: 100 } });
    expect(toJsonRpcError(deadline)).toMatchObject({ code: 4900, data: { sturdyCode: 'DEADLINE_EXCEEDED' } });
  });

  it('gives INVALID_INPUT (nothing was sent) the standard -32602', () => {
    const invalid = new TransportError('INVALID_INPUT', 'params must be an array', { context: { field: 'params' } });
    expect(toJsonRpcError(invalid)).toMatchObject({ code: -32602, data: { sturdyCode: 'INVALID_INPUT' } });
  });

  it("reports a foreign error under 4900 without its text (it may hold a URL)", () => {
    const object = toJsonRpcError(new Error('connect ECONNREFUSED https://key@rpc.example/v2/secret'));
    expect(object.code).toBe(4900);
    expect(JSON.stringify(object)).not.toMatch(/secret|rpc\.example/);
  });
});

describe('PoolRpcError and findTransportError', () => {
  it('carries the JSON-RPC code and data, with the TransportError as cause', () => {
    const error = new PoolRpcError(ambiguous);
    expect([error.code, error.data, error.cause]).toEqual([4900, { sturdyCode: 'AMBIGUOUS_DISPATCH', signature: '5sig' }, ambiguous]);
  });

  it('finds the TransportError through wrapping causes, optionally of one code', () => {
    const wrapped = new Error('viem-like wrapper', { cause: new PoolRpcError(ambiguous) });
    expect(findTransportError(wrapped)).toBe(ambiguous);
    expect(findTransportError(wrapped, 'AMBIGUOUS_DISPATCH')?.signature).toBe('5sig');
    expect(findTransportError(wrapped, 'RPC_ERROR')).toBeUndefined();
    expect(findTransportError(new Error('plain'))).toBeUndefined();
    expect(findTransportError('not an error')).toBeUndefined();
  });
});
