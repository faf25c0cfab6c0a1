import { describe, expect, it } from 'vitest';
import { TRANSPORT_ERROR_CODES } from '../../src/errors/codes.js';
import { isTransportError, TransportError } from '../../src/errors/transport-error.js';
import { redactUrl } from '../../src/errors/redact.js';

describe('TransportError', () => {
  it('keeps its list of codes append-only (never rename or remove one)', () => {
    expect(TRANSPORT_ERROR_CODES).toMatchInlineSnapshot(`
      [
        "INVALID_CONFIG",
        "INVALID_INPUT",
        "NO_ENDPOINT",
        "DEADLINE_EXCEEDED",
        "ABORTED",
        "RATE_LIMITED",
        "RETRIES_EXHAUSTED",
        "AMBIGUOUS_DISPATCH",
        "RPC_ERROR",
        "INVALID_RESPONSE",
        "HTTP_ERROR",
        "POOL_CLOSED",
        "CHAIN_MISMATCH",
        "SUBSCRIPTION_FAILED",
        "SUBSCRIPTION_CLOSED",
        "SUBSCRIPTION_OVERFLOW",
        "LOG_RANGE_LIMIT",
        "LOAD_FAILED",
        "CONSENSUS_FAILED",
        "BUDGET_EXHAUSTED",
      ]
    `);
  });

  it('narrows by code and exposes the typed context and rpc shortcuts', () => {
    const error: unknown = new TransportError('RPC_ERROR', 'boom', {
      context: { rpcCode: -32602, rpcMessage: 'invalid params' },
      method: 'getBalance',
      endpointId: 'a',
    });
    expect(isTransportError(error)).toBe(true);
    expect(isTransportError(error, 'RPC_ERROR')).toBe(true);
    expect(isTransportError(error, 'ABORTED')).toBe(false);
    if (!isTransportError(error, 'RPC_ERROR')) throw new Error('unreachable');
    expect(error.context.rpcCode).toBe(-32602);
    expect(error.rpcCode).toBe(-32602);
    expect(error.rpcMessage).toBe('invalid params');
    expect(error.name).toBe('TransportError');
    expect(error).toBeInstanceOf(Error);
  });

  it('keeps the cause chain', () => {
    const root = new Error('socket hang up');
    const error = new TransportError('ABORTED', 'aborted', { context: {}, cause: root });
    expect(error.cause).toBe(root);
  });

  it('is recognised across two loaded copies of the module', async () => {
    // A query string makes Vite load a second, independent instance of the module,
    // like two installed copies of the package in one application.
    const secondCopy = '../../src/errors/transport-error.js?copy=2';
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof import('../../src/errors/transport-error.js');
    expect(copy.TransportError).not.toBe(TransportError);
    const foreign = new copy.TransportError('POOL_CLOSED', 'closed', { context: {} });
    expect(foreign instanceof TransportError).toBe(true);
    expect(isTransportError(foreign, 'POOL_CLOSED')).toBe(true);
    expect(new TransportError('ABORTED', 'x', { context: {} }) instanceof copy.TransportError).toBe(true);
    expect(new Error('plain') instanceof TransportError).toBe(false);
    expect({ code: 'ABORTED' } instanceof TransportError).toBe(false);
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://sk9f8e7d6c5b4a.mainnet.helius-rpc.com/?api-key=SECRET123', 'https://…helius-rpc.com'],
    ['https://rpc.example.org/v2/KEYPATH123456', 'https://…example.org'],
    ['https://user:PASSWORD4242@rpc.example.io/', 'https://…example.io'],
    ['https://foo.bar.co.uk/x', 'https://…bar.co.uk'],
    ['http://127.0.0.1:8899/secret', 'http://127.0.0.1'],
    ['https://mykey123.workers.dev/', 'https://…workers.dev'],
    ['not a url', '<invalid url>'],
  ])('shows only scheme and registrable domain of %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
