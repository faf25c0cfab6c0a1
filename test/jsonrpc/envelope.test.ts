import { describe, expect, it } from 'vitest';
import { buildRequestBody, parseResponseEnvelope } from '../../src/jsonrpc/envelope.js';

describe('buildRequestBody', () => {
  it('writes a JSON-RPC 2.0 request with the pool id', () => {
    const body = buildRequestBody(7, 'getBalance', ['addr', { commitment: 'confirmed' }]);
    expect(body).toBe('{"jsonrpc":"2.0","id":7,"method":"getBalance","params":["addr",{"commitment":"confirmed"}]}');
    expect(JSON.parse(body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'getBalance',
      params: ['addr', { commitment: 'confirmed' }],
    });
  });

  it('omits params when there are none', () => {
    expect(buildRequestBody(1, 'getSlot')).toBe('{"jsonrpc":"2.0","id":1,"method":"getSlot"}');
  });

  it('writes bigint params as exact JSON integers', () => {
    expect(buildRequestBody(2, 'getBlock', [18446744073709551615n])).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"getBlock","params":[18446744073709551615]}',
    );
  });

  it('escapes the method name', () => {
    expect(JSON.parse(buildRequestBody(3, 'a"b\\c'))).toMatchObject({ method: 'a"b\\c' });
  });

  it.each([[-1], [1.5], [Number.NaN], [2 ** 53]])('rejects the id %d', (id) => {
    expect(() => buildRequestBody(id, 'getSlot')).toThrow(TypeError);
  });
});

describe('parseResponseEnvelope', () => {
  it('returns the result of a matching response', () => {
    expect(parseResponseEnvelope('{"jsonrpc":"2.0","result":"ok","id":5}', 5)).toEqual({ type: 'result', result: 'ok' });
  });

  it('keeps u64 results exact', () => {
    const body = '{"jsonrpc":"2.0","result":{"context":{"slot":341197053},"value":18446744073709551615},"id":1}';
    expect(parseResponseEnvelope(body, 1)).toEqual({
      type: 'result',
      result: { context: { slot: 341197053 }, value: 18446744073709551615n },
    });
  });

  it.each([
    ['{"jsonrpc":"2.0","result":null,"id":1}', null],
    ['{"jsonrpc":"2.0","result":[],"id":1}', []],
    ['{"jsonrpc":"2.0","result":false,"id":1}', false],
    ['{"jsonrpc":"2.0","result":"0x1","error":null,"id":1}', '0x1'],
    ['{"jsonrpc":"2.0","result":"0x1","id":"1"}', '0x1'],
    ['\ufeff{"jsonrpc":"2.0","result":1,"id":1}', 1],
    ['  \n{"result":1,"id":1}\n', 1],
  ])('accepts %j', (body, result) => {
    expect(parseResponseEnvelope(body, 1)).toEqual({ type: 'result', result });
  });

  it('returns a JSON-RPC error with code, message and data', () => {
    const body = '{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots","data":{"numSlotsBehind":42}},"id":9}';
    expect(parseResponseEnvelope(body, 9)).toEqual({
      type: 'error',
      error: { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } },
      idNull: false,
    });
  });

  it('accepts an error with id null (the server could not read the id)', () => {
    const body = '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"},"id":null}';
    expect(parseResponseEnvelope(body, 3)).toEqual({
      type: 'error',
      error: { code: -32600, message: 'Invalid request' },
      idNull: true,
    });
  });

  it('accepts an error without a message', () => {
    expect(parseResponseEnvelope('{"jsonrpc":"2.0","error":{"code":429},"id":1}', 1)).toEqual({
      type: 'error',
      error: { code: 429, message: '' },
      idNull: false,
    });
  });

  it('reads a message that is not a string as none, keeping the code and data', () => {
    expect(parseResponseEnvelope('{"jsonrpc":"2.0","error":{"code":-32000,"message":{"text":"x"},"data":7},"id":1}', 1)).toEqual({
      type: 'error',
      error: { code: -32000, message: '', data: 7 },
      idNull: false,
    });
  });

  it('reads a JSON-RPC 1.0 style null result beside an error as the error', () => {
    const parsed = parseResponseEnvelope('{"result":null,"error":{"code":-32000,"message":"x"},"id":1}', 1);
    expect(parsed).toMatchObject({ type: 'error', error: { code: -32000 } });
  });

  it.each([
    ['', 'empty'],
    ['   \r\n\t', 'empty'],
    ['<html><body>502 Bad Gateway</body></html>', 'html'],
    ['  <!DOCTYPE html><html>', 'html'],
    ['<?xml version="1.0"?><error/>', 'html'],
    ['{"jsonrpc":"2.0","result":{"value":12', 'truncated'],
    ['{"jsonrpc":"2.0","result":"abc', 'truncated'],
    ['[{"jsonrpc":"2.0"', 'truncated'],
    ['{"jsonrpc":"2.0","result":1,"id":1}}', 'not-json'],
    ['invalid api key', 'not-json'],
    ['Too Many Requests', 'not-json'],
    ['"ok"', 'not-an-object'],
    ['null', 'not-an-object'],
    ['42', 'not-an-object'],
    ['[{"jsonrpc":"2.0","result":1,"id":1}]', 'batch-where-single'],
    ['{"jsonrpc":"2.0","result":1,"error":{"code":-32000,"message":"x"},"id":1}', 'both-result-and-error'],
    ['{"jsonrpc":"2.0","id":1}', 'neither'],
    ['{}', 'neither'],
    ['{"jsonrpc":"2.0","result":1,"id":2}', 'id-mismatch'],
    ['{"jsonrpc":"2.0","result":1,"id":"one"}', 'id-mismatch'],
    ['{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"},"id":2}', 'id-mismatch'],
    ['{"jsonrpc":"2.0","result":1,"id":null}', 'id-null'],
    ['{"jsonrpc":"2.0","result":1}', 'id-null'],
    ['{"jsonrpc":"2.0","error":"rate limited","id":1}', 'malformed-error'],
    ['{"jsonrpc":"2.0","error":{"message":"no code"},"id":1}', 'malformed-error'],
    ['{"jsonrpc":"2.0","error":{"code":1.5,"message":"x"},"id":1}', 'malformed-error'],
  ])('reports %j as the violation %s', (body, reason) => {
    expect(parseResponseEnvelope(body, 1)).toEqual({ type: 'violation', reason });
  });
});
