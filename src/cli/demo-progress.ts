/**
 * The demo's live progress, as the CLI prints it while the workload runs: the table comes only
 * at the end, and ten silent seconds read as a hang. Pure: numbers in, one line out.
 */

/** Where the demo's workload stands, reported about every 100 ms. */
export interface DemoProgress {
  /** Since the workload started, in ms. */
  readonly elapsedMs: number;
  /** Calls completed or failed so far. */
  readonly calls: number;
  readonly succeeded: number;
  /** Calls that failed (any code; ambiguous sends included). */
  readonly failed: number;
  readonly sends: number;
  readonly ambiguousSends: number;
  /** How far the lagging node is behind the tip now, in slots (undefined: not known yet). */
  readonly lagSlots: number | undefined;
}

/** One progress line: `3.2 s  calls 812 (254/s)  ok 806  failed 6  sends 41  ambiguous 2  lagging node 300 slots behind`. */
export function formatDemoProgress(progress: DemoProgress): string {
  const seconds = progress.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(progress.calls / seconds) : 0;
  return [
    `${seconds.toFixed(1)} s`,
    `calls ${progress.calls} (${rate}/s)`,
    `ok ${progress.succeeded}`,
    `failed ${progress.failed}`,
    `sends ${progress.sends}`,
    `ambiguous ${progress.ambiguousSends}`,
    `lagging node ${progress.lagSlots ?? '-'} slots behind`,
  ].join('  ');
}

/**
 * Writes progress to a terminal in place (`\r`, every report) or, piped, as one plain line
 * per `everyMs` so a log still shows the run moving; `end()` finishes the line.
 */
export function progressWriter(write: (text: string) => void, terminal: boolean, everyMs = 1_000): { report(progress: DemoProgress): void; end(): void } {
  let nextAtMs = everyMs;
  let wrote = false;
  return {
    report(progress) {
      if (terminal) {
        write(`\r${formatDemoProgress(progress)}   `);
        wrote = true;
      } else if (progress.elapsedMs >= nextAtMs) {
        write(`${formatDemoProgress(progress)}\n`);
        nextAtMs = (Math.floor(progress.elapsedMs / everyMs) + 1) * everyMs;
      }
    },
    end() {
      if (wrote) write('\n');
    },
  };
}
