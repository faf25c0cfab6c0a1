import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { PoolLogger } from '../../src/logging/pool-logger.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

const SECRET = 'sk-live-0123456789abcdef';
const URLS = [`https://${SECRET}.rpc.example.com/`, `https://rpc.example.org/v2/${SECRET}?api-key=${SECRET}`, `https://user:${SECRET}@rpc.example.io/`];

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

function recordingLogger(): PoolLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: Readonly<Record<string, unknown>>, message: string) => lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const response = (status: number, body = '', headers: Record<string, string> = {}) => ({ type: 'response' as const, status, headers, body });

afterEach(closePools);
afterEach(() => vi.restoreAllMocks());

function setup(logger: PoolLogger | undefined, extra: Record<string, unknown> = {}) {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    endpoints: URLS.map((url, i) => ({ id: `node-${i}`, url, tier: i, headers: { 'x-api-key': SECRET } })),
    clock,
    random: createSeededRandom(5),
    executor,
    hedge: false,
    ...(logger ? { logger } : {}),
    ...extra,
  });
  return { clock, executor, pool };
}

describe('the logger option', () => {
  it('logs a rate-limit cooldown once when it starts and once when it ends, however many calls pass meanwhile', async () => {
    const logger = recordingLogger();
    const { clock, executor, pool } = setup(logger);
    executor.script('node-0', response(429, 'slow down', { 'retry-after': '5' }), (_r, id) => ok(1, id));
    for (let i = 0; i < 40; i++) await pool.request('getSlot', []);
    await clock.advance(6_000);
    for (let i = 0; i < 5; i++) await pool.request('getSlot', []);
    const cooldown = logger.lines.filter((l) => l.fields.event === 'cooldown');
    expect(cooldown.map((l) => [l.level, l.message])).toEqual([
      ['warn', "sturdy-rpc: endpoint 'node-0' (read) paused for 5000 ms"],
      ['info', "sturdy-rpc: endpoint 'node-0' (read) admits calls again"],
    ]);
    // 45 calls, 46 attempts: nothing logged per call.
    expect(logger.lines.length).toBeLessThan(10);
  });

  it('logs a bench, a host breaker opening and an ambiguous send, each once, with no URL, header or key', async () => {
    const logger = recordingLogger();
    const { clock, executor, pool } = setup(logger, { reputation: { hostBreaker: { minFailures: 3, windowMs: 10_000 } } });
    executor.script('node-0', { type: 'error', kind: 'socket', dispatched: true, code: 'ECONNRESET' });
    for (let i = 0; i < 30; i++) {
      await pool.request('getSlot', []);
      await clock.advance(100);
    }
    const error = await rejection(pool.request('sendTransaction', [wireTransaction(7), { encoding: 'base64' }], { endpoint: 'node-0' }));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');

    const events = logger.lines.map((l) => l.fields.event);
    expect(events.filter((e) => e === 'breaker')).toHaveLength(1);
    expect(logger.lines.find((l) => l.fields.event === 'breaker')!.message).toMatch(/^sturdy-rpc: host breaker open for \d+ ms \(operator example\.com; endpoints node-0\)$/);
    const ambiguous = logger.lines.filter((l) => l.fields.event === 'ambiguous-send');
    expect(ambiguous).toHaveLength(1);
    expect(ambiguous[0]!.level).toBe('warn');
    expect(error.signature).toBe(signatureOf(wireTransaction(7)));
    expect(ambiguous[0]!.message).toContain(`(reconcile ${error.signature})`);
    const text = JSON.stringify(logger.lines);
    for (const leak of [SECRET, 'https://', 'rpc.example', 'user:']) expect(text, leak).not.toContain(leak);
  });

  it('logs an endpoint leaving rotation by score and coming back, once each', async () => {
    const logger = recordingLogger();
    const { clock, executor, pool } = setup(logger);
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' });
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' });
    for (let i = 0; i < 12; i++) {
      let settled = false;
      void pool.request('getSlot', [], { endpoint: 'node-0', timeoutMs: 1_000 }).catch(() => undefined).finally(() => (settled = true));
      while (!settled) await clock.advance(100);
    }
    executor.script('node-0', (_r, id) => ok(1, id));
    await clock.advance(3_600_000);
    await pool.request('getSlot', [], { endpoint: 'node-0' });
    const reputation = logger.lines.filter((l) => l.fields.event === 'reputation' && l.level !== 'debug');
    expect(reputation.map((l) => [l.level, l.message])).toEqual([
      ['warn', "sturdy-rpc: endpoint 'node-0' out of rotation: score 20 below the eligibility threshold"],
      ['info', "sturdy-rpc: endpoint 'node-0' back in rotation (score 80, band good)"],
    ]);
  });

  it('logs a wrong chain as an error, once', async () => {
    const logger = recordingLogger();
    const { executor, pool } = setup(logger, { expectedChain: { chainId: 1 } });
    executor.script('node-0', (_r, id) => ok('0x2', id));
    executor.script('node-1', (_r, id) => ok('0x1', id));
    executor.script('node-2', (_r, id) => ok('0x1', id));
    for (let i = 0; i < 5; i++) await pool.request('eth_blockNumber', []);
    const chain = logger.lines.filter((l) => l.fields.event === 'chain' && l.level === 'error');
    expect(chain.map((l) => l.message)).toEqual(["sturdy-rpc: endpoint 'node-0' is on another chain (eth_chainId answered 2): excluded"]);
  });

  it('stays silent without a logger: nothing reaches the console', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => vi.spyOn(console, name).mockImplementation(() => undefined));
    const { clock, executor, pool } = setup(undefined);
    executor.script('node-0', response(429, '', { 'retry-after': '1' }));
    executor.script('node-1', { type: 'error', kind: 'socket', dispatched: true });
    for (let i = 0; i < 10; i++) {
      await pool.request('getSlot', []).catch(() => undefined);
      await clock.advance(500);
    }
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('a logger that throws never fails a call', async () => {
    const broken = () => {
      throw new Error('logger down');
    };
    const { executor, pool } = setup({ debug: broken, info: broken, warn: broken, error: broken });
    executor.script('node-0', response(429, '', { 'retry-after': '1' }));
    await expect(pool.request('getSlot', [])).resolves.toBe('default');
  });

  it('rejects a logger without the four methods with INVALID_CONFIG', () => {
    expect(() => setup({ info: () => undefined } as unknown as PoolLogger)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
  });
});
