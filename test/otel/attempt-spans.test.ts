import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { instrumentOpenTelemetry, type OpenTelemetryOptions } from '../../src/otel/index.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { installContextManager } from '../helpers/otel.js';
import { closePools, createPool } from '../helpers/pools.js';
import { answerAfter, createScriptedExecutor, ok } from '../helpers/scripted-executor.js';

const SECRET = 'sk-live-0123456789abcdef';

let uninstallContext: () => void;
beforeAll(() => (uninstallContext = installContextManager()));
afterAll(() => uninstallContext());
afterEach(closePools);

function setupBare(hedge: false | { delayMs: number } = false) {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    endpoints: [0, 1].map((i) => ({ id: `node-${i}`, url: `https://${SECRET}.rpc${i}.example.com/?key=${SECRET}`, tier: i, headers: { authorization: `Bearer ${SECRET}` } })),
    clock,
    random: createSeededRandom(3),
    executor,
    hedge,
    retry: { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 10 },
  });
  return { clock, executor, pool };
}

function setup(attemptSpans?: OpenTelemetryOptions['attemptSpans'], hedge: false | { delayMs: number } = false) {
  const { clock, executor, pool } = setupBare(hedge);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  instrumentOpenTelemetry(pool, attemptSpans === undefined ? { tracerProvider } : { tracerProvider, attemptSpans });
  /** Runs one call to its end on the fake clock (bounded: 10 s of clock time). */
  const call = async (method: string): Promise<unknown> => {
    let settled = false;
    const result = pool.request(method, []);
    const done = () => (settled = true);
    result.then(done, done);
    for (let i = 0; i < 2_000 && !settled; i++) await clock.advance(5);
    // A hedge race's loser is reported once its cancellation lands, just after the call settles.
    for (let i = 0; i < 5; i++) await clock.advance(5);
    return result;
  };
  return { clock, executor, exporter, call };
}

const callSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['rpc.system'] === 'jsonrpc');
const attemptSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['http.request.method'] === 'POST');
/** Attempt spans as `endpoint#attempt outcome` (a hedge shares its attempt number), sorted, each checked to be a child of the call span. */
function attemptsOf(spans: readonly ReadableSpan[]): string[] {
  const [call] = callSpans(spans);
  const attempts = attemptSpans(spans);
  for (const attempt of attempts) expect(attempt.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
  return attempts.map((s) => `${String(s.attributes['sturdy_rpc.endpoint'])}#${String(s.attributes['sturdy_rpc.attempt'])} ${String(s.attributes['sturdy_rpc.outcome'])}`).sort();
}

describe("instrumentOpenTelemetry's attempt spans", () => {
  it('by default, a call its first attempt answers is one span and no attempt span', async () => {
    const { executor, exporter, call } = setup();
    executor.script('node-0', (_r, id) => ok(7, id));
    expect(await call('getSlot')).toBe(7);
    const spans = exporter.getFinishedSpans();
    expect(callSpans(spans)).toHaveLength(1);
    expect(spans).toHaveLength(1);
    expect(executor.countFor('node-0')).toBe(1);
  });

  it('by default, a retried call has a span for every attempt, the first (failed) one too', async () => {
    const { executor, exporter, call } = setup();
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false });
    executor.script('node-1', (_r, id) => ok(7, id));
    expect(await call('getSlot')).toBe(7);
    const spans = exporter.getFinishedSpans();
    expect(attemptsOf(spans)).toEqual(['node-0#1 failure', 'node-1#2 success']);
    const [failed] = attemptSpans(spans).filter((s) => s.attributes['sturdy_rpc.attempt'] === 1);
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes['sturdy_rpc.cause']).toBe('connection');
  });

  it('by default, a failed call has its attempt spans', async () => {
    const { executor, exporter, call } = setup();
    for (const id of ['node-0', 'node-1']) executor.script(id, { type: 'response', status: 503, headers: {}, body: `down ${SECRET}` });
    await expect(call('getSlot')).rejects.toMatchObject({ code: expect.any(String) });
    const attempts = attemptsOf(exporter.getFinishedSpans());
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.every((a) => a.endsWith(' failure'))).toBe(true);
  });

  it('by default, a hedged call the hedge wins has both attempt spans', async () => {
    const { clock, executor, exporter, call } = setup(undefined, { delayMs: 50 });
    executor.script('node-0', answerAfter(clock, 500, 1));
    executor.script('node-1', answerAfter(clock, 10, 2));
    expect(await call('getSlot')).toBe(2);
    expect(attemptsOf(exporter.getFinishedSpans())).toEqual(['node-0#1 lost', 'node-1#1 success']);
  });

  it('by default, a hedged call its first attempt wins has both attempt spans: the winner (held back) and the lost hedge', async () => {
    const { clock, executor, exporter, call } = setup(undefined, { delayMs: 50 });
    executor.script('node-0', answerAfter(clock, 80, 1));
    executor.script('node-1', answerAfter(clock, 500, 2));
    expect(await call('getSlot')).toBe(1);
    expect(executor.countFor('node-1')).toBe(1); // the hedge was sent
    const spans = exporter.getFinishedSpans();
    expect(attemptsOf(spans)).toEqual(['node-0#1 success', 'node-1#1 lost']);
    // The held-back winner's span is timed as the attempt ran: 80 ms from the call's start.
    const [callSpan] = callSpans(spans);
    const [winner] = attemptSpans(spans).filter((s) => s.attributes['sturdy_rpc.endpoint'] === 'node-0');
    expect(winner!.startTime).toEqual(callSpan!.startTime);
    expect(winner!.duration).toEqual([0, 80_000_000]);
  });

  it("'always' traces a hedge race's loser too, though it is reported after the call span ended", async () => {
    const { clock, executor, exporter, call } = setup('always', { delayMs: 50 });
    executor.script('node-0', answerAfter(clock, 80, 1));
    executor.script('node-1', answerAfter(clock, 500, 2));
    expect(await call('getSlot')).toBe(1);
    expect(attemptsOf(exporter.getFinishedSpans())).toEqual(['node-0#1 success', 'node-1#1 lost']);
  });

  it("'always' gives the first-time success its attempt span", async () => {
    const { executor, exporter, call } = setup('always');
    executor.script('node-0', (_r, id) => ok(7, id));
    await call('getSlot');
    expect(attemptsOf(exporter.getFinishedSpans())).toEqual(['node-0#1 success']);
  });

  it('rejects an unknown attemptSpans value with INVALID_CONFIG and instruments nothing', async () => {
    const { executor, pool } = setupBare();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
    let thrown: unknown;
    try {
      instrumentOpenTelemetry(pool, { tracerProvider, attemptSpans: 'sometimes' as 'always' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TransportError);
    expect(thrown).toMatchObject({ code: 'INVALID_CONFIG', context: { issues: [{ path: 'attemptSpans' }] } });
    expect((thrown as Error).message).not.toContain('sometimes');
    expect(executor.received).toHaveLength(0);
  });

  it.each([[[0.1, 0.05]], [[0, 1]], [[Number.NaN]], ['1,2' as unknown as number[]]])('rejects durationBuckets %j with INVALID_CONFIG and instruments nothing', async (durationBuckets) => {
    const { executor, pool } = setupBare();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
    expect(() => instrumentOpenTelemetry(pool, { tracerProvider, durationBuckets })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', context: { issues: [{ path: 'durationBuckets', message: 'must be positive numbers of seconds in increasing order' }] } }),
    );
    expect(executor.received).toHaveLength(0);
  });

  it('puts no URL, host, header value or key in any span, whichever attempts are traced', async () => {
    const { executor, exporter, call } = setup('always');
    executor.script('node-0', { type: 'response', status: 401, headers: {}, body: `invalid api key ${SECRET}` });
    executor.script('node-1', (_r, id) => ok(7, id));
    await call('getSlot');
    const text = JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.status, s.events, s.links]));
    expect(text).toContain('node-1');
    for (const leak of [SECRET, 'example.com', 'https://', 'key=']) expect(text, leak).not.toContain(leak);
  });
});

describe('span times', () => {
  it('come from one wall-clock read per call and the monotonic clock after it: a wall clock stepped back mid-call moves no span out of its call', async () => {
    const { clock, executor, exporter, call } = setup();
    // The wall clock jumps an hour back after its first read (an NTP step), as the call runs.
    let wallReads = 0;
    const wallNow = clock.wallNow.bind(clock);
    clock.wallNow = () => wallNow() - (wallReads++ === 0 ? 0 : 3_600_000);
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false });
    executor.script('node-1', answerAfter(clock, 40, 7));
    const startedAtWallMs = wallNow();
    expect(await call('getSlot')).toBe(7);

    const spans = exporter.getFinishedSpans();
    const [callSpan] = callSpans(spans);
    const toMs = ([s, ns]: readonly [number, number]) => s * 1000 + ns / 1e6;
    expect(toMs(callSpan!.startTime)).toBe(startedAtWallMs);
    // The refused connect fails at once and node-1 answers 40 ms later: both spans inside the call's.
    const attempts = attemptSpans(spans).sort((a, b) => Number(a.attributes['sturdy_rpc.attempt']) - Number(b.attributes['sturdy_rpc.attempt']));
    expect(attempts.map((s) => [toMs(s.startTime) - startedAtWallMs, toMs(s.duration)])).toEqual([
      [0, 0],
      [0, 40],
    ]);
    expect(toMs(callSpan!.duration)).toBe(40);
    expect(wallReads).toBe(1);
  });
});

describe('the call hook with no exporter attached', () => {
  it('reads no wall clock and makes no span once the exporter is removed, as before one was attached', async () => {
    const { clock, executor, pool } = setupBare();
    let wallReads = 0;
    const wallNow = clock.wallNow.bind(clock);
    clock.wallNow = () => (wallReads++, wallNow());
    executor.script('node-0', (_r, id) => ok(7, id));
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

    await pool.request('getSlot', []);
    const bare = wallReads;
    const uninstrument = instrumentOpenTelemetry(pool, { tracerProvider });
    await pool.request('getSlot', []);
    expect(wallReads).toBeGreaterThan(bare); // the observe stage reads it at start and end
    uninstrument();
    const before = wallReads;
    await pool.request('getSlot', []);
    expect(wallReads - before).toBe(bare);
    expect(callSpans(exporter.getFinishedSpans())).toHaveLength(1);
    expect(executor.countFor('node-0')).toBe(3);
  });
});
