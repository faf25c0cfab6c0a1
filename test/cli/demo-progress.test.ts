import { describe, expect, it } from 'vitest';
import { formatDemoProgress, progressWriter, type DemoProgress } from '../../src/cli/demo-progress.js';

const at = (elapsedMs: number, calls = 500): DemoProgress => ({ elapsedMs, calls, succeeded: calls - 4, failed: 4, sends: 25, ambiguousSends: 1, lagSlots: 300 });

describe('demo progress', () => {
  it('says calls so far with their rate, successes, failures, sends and the lag', () => {
    expect(formatDemoProgress(at(2_000))).toBe('2.0 s  calls 500 (250/s)  ok 496  failed 4  sends 25  ambiguous 1  lagging node 300 slots behind');
    expect(formatDemoProgress({ ...at(0, 0), succeeded: 0, failed: 0, lagSlots: undefined })).toBe('0.0 s  calls 0 (0/s)  ok 0  failed 0  sends 25  ambiguous 1  lagging node - slots behind');
  });

  it('on a terminal rewrites one line in place and ends it; piped, writes one plain line per second', () => {
    const tty: string[] = [];
    const onTerminal = progressWriter((text) => tty.push(text), true);
    onTerminal.report(at(100));
    onTerminal.report(at(200));
    onTerminal.end();
    expect(tty.map((text) => text[0])).toEqual(['\r', '\r', '\n']);

    const piped: string[] = [];
    const toPipe = progressWriter((text) => piped.push(text), false);
    for (let ms = 100; ms <= 2_500; ms += 100) toPipe.report(at(ms));
    toPipe.end();
    expect(piped.map((line) => line.split(' s ')[0])).toEqual(['1.0', '2.0']);
    expect(piped.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
  });
});
