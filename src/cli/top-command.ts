import { request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { sleep, systemClock } from '../clock.js';
import type { StatusDocument } from '../status/status-server.js';
import { stringifyJson } from '../jsonrpc/exact-json.js';
import { integerInRange, positiveNumber, UsageError, type CliCommand } from './args.js';
import { runDemo } from './demo.js';
import { renderTop } from './top-view.js';

const HELP = `Usage: sturdy-rpc top (--port <n> | --url <status-url> | --demo) [options]

A live view of one pool: one row per endpoint with its tier, operator, state, score, share
of the last 10 s as a bar, p50/p99, requests in flight, tokens, cooldown and lag (when the
pool tracks heads). Attach to a pool that called pool.serveStatus({ port }), or watch the
offline demo. Redraws in place on a terminal (q or Ctrl-C quits); prints plain frames
otherwise.

Options:
  --port <n>            attach to http://127.0.0.1:<n>/status
  --url <url>           attach to a status URL (http://127.0.0.1:<port>/status)
  --demo                run the offline demo (see 'sturdy-rpc demo') and watch its pool
  --duration <seconds>  stop after this long (default: until q or Ctrl-C; the demo: its run)
  --interval <ms>       refresh period, 100-60000 (default 1000)
  --once                print one frame and exit
  --json                print each status document as one JSON line instead of the table
  --ascii               draw bars with # and . instead of █ and ·
  -h, --help            show this help

Exit codes: 0 done; 1 the status server could not be reached (with --once); 2 bad arguments.`;

/** GETs a status document (no keep-alive: nothing lingers after the last frame). */
function fetchStatus(url: string): Promise<StatusDocument> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`status server answered HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(body) as StatusDocument);
        } catch {
          reject(new Error('status server answered something that is not a status document'));
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot reach the status server (${error.code ?? 'error'})`)));
    req.setTimeout(5_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.end();
  });
}

function statusUrl(port: string | undefined, url: string | undefined): string | undefined {
  if (port !== undefined) return `http://127.0.0.1:${integerInRange(port, 'port', 0, 1, 65_535)}/status`;
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError('--url is not a valid URL');
  }
  if (parsed.protocol !== 'http:') throw new UsageError('--url must be an http:// URL (pool.serveStatus serves plain HTTP on loopback)');
  return url;
}

/** Terminal control: the alternate screen, a hidden cursor, redraw from the top-left corner. */
const TTY = {
  enter: '\x1b[?1049h\x1b[?25l',
  leave: '\x1b[?25h\x1b[?1049l',
  frame: (lines: readonly string[]) => `\x1b[H${lines.map((line) => `${line}\x1b[K`).join('\n')}\x1b[J`,
};

export const topCommand: CliCommand = {
  name: 'top',
  summary: "live per-endpoint view of a pool's status server (or of the demo)",
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        url: { type: 'string' },
        demo: { type: 'boolean', default: false },
        duration: { type: 'string' },
        interval: { type: 'string' },
        once: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        ascii: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const attached = statusUrl(values.port, values.url);
    if ((attached === undefined) === !values.demo) throw new UsageError('give exactly one of --port, --url or --demo');
    const intervalMs = integerInRange(values.interval, 'interval', 1_000, 100, 60_000);
    const durationMs = values.duration === undefined ? undefined : positiveNumber(values.duration, 'duration', 0) * 1000;
    const stop = new AbortController();
    const stopNow = () => stop.abort();

    // The demo: its pool serves its status on a free loopback port, and top attaches like to any other pool.
    let url = attached;
    let demo: Promise<unknown> | undefined;
    if (values.demo) {
      let ready!: (url: string) => void;
      const served = new Promise<string>((resolve) => (ready = resolve));
      let started!: () => void;
      const workload = new Promise<void>((resolve) => (started = resolve));
      demo = runDemo({
        durationMs: durationMs ?? 24 * 3_600_000,
        seed: 1,
        concurrency: 16,
        signal: stop.signal,
        onPool: async (pool) => ready((await pool.serveStatus({ port: 0 })).url),
        onStart: started,
      });
      demo.then(stopNow, stopNow);
      url = await Promise.race([served, demo.then(() => undefined)]);
      if (url === undefined) return 1;
      // The first frame covers one interval of the workload: sampled earlier (before the chain
      // checks and subscriptions are done) it would show 0 attempts and every score at 80.
      await Promise.race([workload, demo]);
      await sleep(systemClock, intervalMs, stop.signal).catch(() => undefined);
    }

    const out = process.stdout;
    const live = out.isTTY === true && !values.json && !values.once;
    const glyphs = values.ascii ? 'ascii' : 'unicode';
    const input = process.stdin;
    const onKey = (key: Buffer) => {
      const text = key.toString('utf8');
      if (text === 'q' || text === 'Q' || text === '\x03') stopNow();
    };
    process.once('SIGINT', stopNow);
    process.once('SIGTERM', stopNow);
    if (live) {
      out.write(TTY.enter);
      if (input.isTTY) {
        input.setRawMode(true);
        input.on('data', onKey);
        input.resume();
      }
    }
    const startedMs = systemClock.now();
    try {
      for (;;) {
        let lines: string[];
        try {
          const document = await fetchStatus(url!);
          if (values.json) {
            out.write(`${stringifyJson(document)}\n`);
            lines = [];
          } else {
            lines = renderTop(document, { glyphs });
          }
        } catch (error) {
          if (values.once) throw error;
          lines = [`sturdy-rpc top: ${(error as Error).message}; retrying every ${intervalMs} ms`];
          if (values.json) process.stderr.write(`${lines[0]}\n`);
        }
        if (!values.json) out.write(live ? TTY.frame(lines) : `${lines.join('\n')}\n\n`);
        if (values.once || stop.signal.aborted) break;
        if (durationMs !== undefined && systemClock.now() - startedMs >= durationMs) break;
        await sleep(systemClock, intervalMs, stop.signal).catch(() => undefined);
        if (stop.signal.aborted) break;
      }
    } finally {
      stopNow();
      process.off('SIGINT', stopNow);
      process.off('SIGTERM', stopNow);
      if (live) {
        out.write(TTY.leave);
        if (input.isTTY) {
          input.off('data', onKey);
          input.setRawMode(false);
          input.pause();
        }
      }
      await demo?.catch(() => undefined);
    }
    return 0;
  },
};
