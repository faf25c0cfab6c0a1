import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransportPool, TransportError, createSeededRandom, type SocketFactory } from '../../src/index.js';

/**
 * `wsUrl` is as secret as `url`: keys in its subdomain, path, query and userinfo, and header
 * values, never reach an error, an event or the snapshot — even when a node echoes the URL
 * it was reached on. The socket factory (the only place that may see them) proves it did.
 */

const SUBDOMAIN_KEY = 'k3ysub7d9';
const PATH_KEY = 'p@thKey9931';
const PATH_KEY_WIRE = 'p%40thKey9931';
const QUERY_KEY = 'qu+ery/key77';
const QUERY_KEY_WIRE = 'qu%2Bery%2Fkey77';
const USER = 'alice_user';
const PASSWORD = 'hunter2pw';
const HEADER_TOKEN = 'tok_3f9a8b7c6d';
const SECRETS = [SUBDOMAIN_KEY, PATH_KEY, PATH_KEY_WIRE, QUERY_KEY, QUERY_KEY_WIRE, encodeURIComponent(QUERY_KEY), USER, PASSWORD, HEADER_TOKEN];
const WS_URL = `wss://${USER}:${PASSWORD}@${SUBDOMAIN_KEY}.mainnet.helius-rpc.com/v0/${PATH_KEY_WIRE}?api-key=${QUERY_KEY_WIRE}&x=1`;

const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** A node that answers every call with an error echoing the URL and headers it was reached with. */
function echoingFactory(seen: string[], refuseUpgradeOf?: string): SocketFactory {
  return (url, headers, handlers) => {
    seen.push(url);
    let open = true;
    queueMicrotask(() => {
      if (refuseUpgradeOf !== undefined && url.includes(refuseUpgradeOf)) {
        handlers.onFailure({ kind: 'rate-limited', status: 429, retryAfter: `1 ${url}` });
        open = false;
        handlers.onClose();
      } else handlers.onOpen();
    });
    return {
      send(text) {
        const call = JSON.parse(text) as { id: number };
        const message = `bad params at ${url} decoded ${decodeURIComponent(url)} with ${JSON.stringify(headers)} bare ${PATH_KEY} ${QUERY_KEY}`;
        queueMicrotask(() => open && handlers.onMessage(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32602, message } })));
      },
      close() {
        if (!open) return;
        open = false;
        queueMicrotask(() => handlers.onClose());
      },
    };
  };
}

function observable(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 10; depth++) {
    if (!(e instanceof Error)) {
      parts.push(JSON.stringify(e));
      break;
    }
    parts.push(e.message, String(e.stack));
    if (e instanceof TransportError) parts.push(JSON.stringify({ context: e.context, attempts: e.attempts, endpointId: e.endpointId }));
    e = e.cause;
  }
  return parts.join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text.toLowerCase(), `leaked ${secret}`).not.toContain(secret.toLowerCase());
}

describe('wsUrl secrecy', () => {
  it('an echoing node, a 429 on the upgrade, events and the snapshot: no key of the wsUrl anywhere', async () => {
    const seen: string[] = [];
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'throttled', url: 'https://throttled.example/rpc', wsUrl: 'wss://throttled.example/ws-only-key-55', tier: 0 },
        { id: 'keyed', url: 'https://api.helius-rpc.com/', wsUrl: WS_URL, headers: { authorization: `Bearer ${HEADER_TOKEN}` }, tier: 1 },
      ],
      random: createSeededRandom(1),
      subscriptions: { socketFactory: echoingFactory(seen, 'throttled'), initialBackoffMs: 1, maxBackoffMs: 2 },
    });
    pools.push(pool);
    const events: unknown[] = [];
    for (const name of ['subscription', 'failure', 'reputation', 'breaker'] as const) pool.on(name, (e) => events.push(e));
    const error = await pool.subscribe('accountSubscribe', ['x']).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SUBSCRIPTION_FAILED', endpointId: 'keyed', context: { reason: 'rpc-error', rpcCode: -32602 } });
    // The node's message is kept, with every secret redacted.
    expect((error as TransportError).message).toContain('bad params at');
    expectNoSecret(observable(error));
    expectNoSecret(observable(new Error('wrapper', { cause: error })));
    expectNoSecret(JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
    expectNoSecret(JSON.stringify(pool.snapshot()));
    expect(JSON.stringify(pool.snapshot())).not.toContain('ws-only-key-55');
    // The factory was handed the real URL: the keys were used, just never shown.
    expect(seen).toContain(WS_URL);
    expect(seen.some((url) => url.includes('ws-only-key-55'))).toBe(true);
  });

  it('an invalid wsUrl is INVALID_CONFIG naming the field, never the value', () => {
    const error = (() => {
      try {
        new HttpTransportPool({ endpoints: [{ url: 'https://a.example', wsUrl: `https://${SUBDOMAIN_KEY}.a.example/${PATH_KEY_WIRE}` }] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', context: { issues: [{ path: 'endpoints[0].wsUrl', message: 'must be a ws(s) URL' }] } });
    expectNoSecret(observable(error));
  });

  it('a derived wsUrl is redacted like the url it comes from', async () => {
    const seen: string[] = [];
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'derived', url: `https://${USER}:${PASSWORD}@${SUBDOMAIN_KEY}.mainnet.helius-rpc.com/v0/${PATH_KEY_WIRE}?api-key=${QUERY_KEY_WIRE}` }],
      subscriptions: { deriveWsUrl: true, socketFactory: echoingFactory(seen) },
    });
    pools.push(pool);
    const error = await pool.subscribe('slotSubscribe', []).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SUBSCRIPTION_FAILED' });
    expect(seen[0]).toMatch(/^wss:\/\/alice_user:hunter2pw@k3ysub7d9\./);
    expectNoSecret(observable(error));
  });
});
