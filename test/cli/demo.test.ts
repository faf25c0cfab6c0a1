import { describe, expect, it } from 'vitest';
import type { DemoReport } from '../../src/cli/demo.js';
import { runCli } from './run-cli.js';

describe('sturdy-rpc demo', () => {
  it('runs offline for --duration 2, exits 0 and reports no duplicate sends in its --json schema', async () => {
    const result = await runCli(['demo', '--duration', '2', '--json'], 14_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as DemoReport;
    for (const key of ['seed', 'durationMs', 'calls', 'succeeded', 'successRate', 'p50Ms', 'p99Ms', 'sends', 'ambiguousSends', 'duplicateSends'] as const) {
      expect(typeof report[key], key).toBe('number');
    }
    expect(report.durationMs).toBe(2000);
    expect(report.duplicateSends).toBe(0);
    expect(report.calls).toBeGreaterThan(0);
    expect(Array.isArray(report.excludedForWrongChain)).toBe(true);
    expect(typeof report.failuresByCode).toBe('object');
    expect(report.endpoints.length).toBeGreaterThan(0);
    for (const row of report.endpoints) {
      expect(typeof row.endpoint).toBe('string');
      expect(typeof row.fault).toBe('string');
      for (const key of ['requests', 'successes', 'rateLimited', 'cooldowns', 'share'] as const) expect(typeof row[key], key).toBe('number');
      expect(row.score === null || typeof row.score === 'number').toBe(true);
      // The state says what admission does: never "admitted" below the eligibility score (30).
      expect(row.state).toMatch(/^(admitted|skipped|paused|excluded|waiting)\b/);
      if (row.score !== null && row.score < 30) expect(row.state).not.toMatch(/^admitted/);
    }
    // The node that falls 300 slots behind for a while: the table shows its lag and how long it was kept out.
    const lagging = report.endpoints.find((row) => row.fault === 'lagging');
    expect(lagging?.maxLagSlots).toBeGreaterThanOrEqual(200);
    expect(lagging?.laggingMs).toBeGreaterThan(0);
    expect(report.endpoints.find((row) => row.fault === 'healthy')?.laggingMs).toBe(0);
  }, 15_000);

  it('rejects a bad --duration with exit code 2 and the usage', async () => {
    const result = await runCli(['demo', '--duration', 'soon']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^sturdy-rpc demo: --duration must be a positive number\n\nUsage: sturdy-rpc demo /);
  });
});
