import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { eachItem } from '../helpers/batch-server.js';
import { closeAllServers, sendBody, startRpcServer, type ReceivedRequest } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { wireTransaction } from '../helpers/solana-wire.js';
import { createTestPool, track } from '../pool/pool-fixtures.js';

/**
 * Nodes that echo the request back — its path, query and headers, the Basic credential
 * derived from userinfo included — in their error message, data and headers. Nothing of
 * any secret, in any form it takes on the wire, reaches an error, an event or the snapshot.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const USER = 'alice_user';
const PASSWORD = 'hunter2pw';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const PATH_KEY_WIRE = 'p%40thKey9931';
const PATH_KEY = 'p@thKey9931';
const QUERY_KEY_WIRE = 'qu%2Bery%2Fkey77';
const QUERY_KEY = 'qu+ery/key77';
const HEADER_TOKEN = 'tok_3f9a8b7c6d';
const NEVER_CONFIGURED = 'wss://elsewhere.example/other-key-42';

/** Every form a secret of these endpoints takes (the fragments a leak would show). */
const SECRETS = [PASSWORD, USER, BASIC, PATH_KEY_WIRE, PATH_KEY, QUERY_KEY_WIRE, QUERY_KEY, encodeURIComponent(QUERY_KEY), HEADER_TOKEN, 'other-key-42', 'elsewhere'];

/** Everything a caller can read from an error: message, context, attempts and the whole cause chain. */
function observable(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 10; depth++) {
    if (e instanceof Error) {
      parts.push(e.message, String(e.stack));
      if (e instanceof TransportError) parts.push(JSON.stringify({ context: e.context, attempts: e.attempts, rpcData: e.rpcData, rpcMessage: e.rpcMessage }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
      e = e.cause;
    } else {
      parts.push(JSON.stringify(e));
      break;
    }
  }
  return parts.join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text, `leaked ${secret}`).not.toContain(secret);
}

/** A node that reflects the whole request in its error (message, data) and its response headers. */
function echoingNode(code = -32602) {
  return (request: ReceivedRequest, { res }: { res: http.ServerResponse }) => {
    const auth = request.headers['authorization'] ?? '';
    const message = `bad params; request had authorization=${auth} path=${request.path} decoded=${decodeURIComponent(request.path)} bare=${auth.replace(/^Basic /, '')} password?=${Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString()} also see ${NEVER_CONFIGURED}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code, message, data: { headers: request.headers, path: request.path, [auth]: 'as a key' } } });
    sendBody(res, body, 200, { 'x-echo-authorization': auth, 'x-echo-path': request.path });
  };
}

const urlOf = (port: number) => `http://${USER}:${PASSWORD}@127.0.0.1:${port}/v2/${PATH_KEY_WIRE}?api_key=${QUERY_KEY_WIRE}&x=1`;

describe('a node that echoes the request cannot hand a secret back', () => {
  it('RPC_ERROR from an echoing node carries no form of the userinfo, Basic credential, path, query or header key', async () => {
    const server = await startRpcServer(echoingNode());
    const pool = createPool({ endpoints: [{ id: 'a', url: urlOf(server.port), headers: { authorization2: `Bearer ${HEADER_TOKEN}` } }], retry: { maxRetries: 0 } });
    const events: unknown[] = [];
    for (const name of ['attempt', 'failure', 'success'] as const) pool.on(name, (e) => events.push(e));

    const error = await rejection(pool.request('getSlot', []));
    expect(error.code).toBe('RPC_ERROR');
    // The node really saw (and echoed) the credential: the test would catch a leak.
    expect(server.received[0]?.headers['authorization']).toBe(`Basic ${BASIC}`);
    expect(server.received[0]?.path).toContain(PATH_KEY_WIRE);
    expect(error.rpcMessage).toContain('<redacted');
    expectNoSecret(observable(error));
    expectNoSecret(JSON.stringify(events));
    expectNoSecret(JSON.stringify(pool.snapshot(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  });

  it('a batch answered item by item by an echoing node: every item’s error and the events carry no form of a secret', async () => {
    const server = await startRpcServer(eachItem(echoingNode()));
    const pool = createPool({ endpoints: [{ id: 'a', url: urlOf(server.port), headers: { authorization2: `Bearer ${HEADER_TOKEN}` } }], retry: { maxRetries: 0 } });
    const events: unknown[] = [];
    for (const name of ['attempt', 'failure', 'success'] as const) pool.on(name, (e) => events.push(e));

    const results = await pool.batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]);
    expect(server.count()).toBe(1);
    expect(server.received[0]?.path).toContain(PATH_KEY_WIRE);
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, error: { code: 'RPC_ERROR' } });
      // The node echoed the credential into each item's error: the test would catch a leak.
      if (!result.ok) expect(result.error.rpcMessage).toContain('<redacted');
      if (!result.ok) expectNoSecret(observable(result.error));
    }
    expectNoSecret(JSON.stringify(events));
  });

  it('the reconciliation path of an ambiguous send leaks nothing either', async () => {
    const sender = await startRpcServer((_request, { socket }) => socket.resetAndDestroy());
    const reader = await startRpcServer(echoingNode(-32000));
    const pool = createPool({
      endpoints: [
        { id: 'sender', url: urlOf(sender.port), kinds: ['submit'] },
        { id: 'reader', url: urlOf(reader.port), kinds: ['read'], headers: { authorization2: `Bearer ${HEADER_TOKEN}` } },
      ],
      reconcileSends: { windowMs: 200, intervalMs: 50 },
      retry: { maxRetries: 0 },
    });
    const events: unknown[] = [];
    for (const name of ['failure', 'reconcile'] as const) pool.on(name, (e) => events.push(e));

    const error = await rejection(createSolanaClient(pool).sendTransaction(wireTransaction(3), {}, { timeoutMs: 3_000 }));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(reader.count('getSignatureStatuses')).toBeGreaterThan(0);
    expectNoSecret(observable(error));
    expectNoSecret(JSON.stringify(events));
  });

  it('a key hidden in a subdomain, echoed as a host name, is redacted (scripted: loopback has no subdomains)', async () => {
    const subKey = 'sk_live_8c1e77';
    const t = createTestPool([{ id: 'a', url: `https://${subKey}.rpc.example.com/` }], { retry: { maxRetries: 0 } });
    t.executor.script('a', (_request, id) => ({
      type: 'response',
      status: 200,
      headers: {},
      body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: `host ${subKey}.rpc.example.com refused; key=${subKey.toUpperCase()}`, data: { host: `${subKey}.rpc.example.com` } } }),
    }));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    expect(call.error).toMatchObject({ code: 'RPC_ERROR' });
    expect(observable(call.error).toLowerCase()).not.toContain(subKey);
  });
});
