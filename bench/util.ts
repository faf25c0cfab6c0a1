/** Small timing helpers for the benchmarks (never part of `npm test`). */
import { PerformanceObserver } from 'node:perf_hooks';

export interface MicroResult {
  readonly name: string;
  readonly nsPerOp: number;
  /** Approximate bytes allocated per op (heap growth with no GC in between), when measurable. */
  readonly bytesPerOp: number | undefined;
}

const v8gc = (globalThis as { gc?: (options?: { type: 'major' | 'minor'; execution: 'sync' | 'async' }) => void }).gc;
/**
 * A full collection before a measured run (with `--expose-gc`). Not a bare `gc()`: that is V8's
 * "collect all available garbage", which also flushes compiled code, so the run after it
 * re-compiles — measured, it doubled a pool's CPU per call (4.7 → 11 µs without a socket) and
 * hurt the pool far more than raw undici, whose hot path is less JavaScript. A major GC
 * asked for by type collects the same garbage and keeps the code.
 */
export const gc = v8gc === undefined ? undefined : () => v8gc({ type: 'major', execution: 'sync' });

/** Runs `op` `iterations` times after a warm-up; returns the best of `rounds` ns/op. */
export async function micro(name: string, op: () => unknown | Promise<unknown>, iterations = 100_000, rounds = 5): Promise<MicroResult> {
  const isAsync = op() instanceof Promise;
  const run = isAsync
    ? async (n: number) => {
        for (let i = 0; i < n; i++) await op();
      }
    : async (n: number) => {
        for (let i = 0; i < n; i++) op();
      };
  await run(Math.min(iterations, 20_000));
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    await run(iterations);
    const ns = Number(process.hrtime.bigint() - start) / iterations;
    best = Math.min(best, ns);
  }
  return { name, nsPerOp: best, bytesPerOp: await allocation(run) };
}

async function allocation(run: (n: number) => Promise<void>): Promise<number | undefined> {
  if (!gc) return undefined;
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  const n = 2_000;
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  collections = 0;
  const before = process.memoryUsage().heapUsed;
  await run(n);
  const after = process.memoryUsage().heapUsed;
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  return collections === 0 ? Math.max(0, (after - before) / n) : undefined;
}

export function formatNs(ns: number): string {
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const lines = [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** What one timed load measured: every call's latency (sorted, ms), the wall time and this process's CPU (µs). */
export interface TimedLoad {
  readonly latencies: number[];
  readonly elapsedMs: number;
  readonly cpuUs: number;
}

/**
 * Runs `call` in `inFlight` loops for `durationMs`, on a collected heap (the previous client's
 * garbage is not this one's GC work); any failed call fails the bench (the server is normal).
 */
export async function timedLoad(name: string, call: () => Promise<unknown>, inFlight: number, durationMs: number): Promise<TimedLoad> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + durationMs;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, loop));
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (errors > 0) throw new Error(`${name}: ${errors} calls failed against a normal server`);
  latencies.sort((a, b) => a - b);
  return { latencies, elapsedMs, cpuUs: cpu.user + cpu.system };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.floor(sorted.length / 2)]!) / 2;
}

/** The median of some slices' values and their spread. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function summary(values: readonly number[]): Summary {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
