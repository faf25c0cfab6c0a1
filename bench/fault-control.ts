/** Starts the benchmark server process (fault-server.ts) and talks to its control port. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FaultServerConfig, FaultServerStats } from './fault-model.js';

export interface FaultServer {
  /** One URL per port, `http://127.0.0.1:<port>/`. */
  readonly urls: readonly string[];
  /** Sets every port's fault and the base delay; resets counters and drops every connection. */
  configure(config: FaultServerConfig): Promise<void>;
  resetStats(): Promise<void>;
  stats(): Promise<FaultServerStats>;
  /** Closes port `index` (connections refused, open ones dropped) until `up(index)`. */
  down(index: number): Promise<void>;
  up(index: number): Promise<void>;
  /** Ends the server process and waits for it to exit. */
  stop(): Promise<void>;
}

export async function startFaultServer(portCount = 4): Promise<FaultServer> {
  // Benchmarks run compiled (npm run bench), so the server is the .js file beside this one.
  const child = spawn(process.execPath, [fileURLToPath(new URL('./fault-server.js', import.meta.url)), String(portCount)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (data: Buffer) => {
      buffered += data.toString();
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      child.stdout.off('data', onData);
      resolve(buffered.slice(0, end));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`fault server exited with ${code}`)));
  });
  const { control, ports } = JSON.parse(line) as { control: number; ports: number[] };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`http://127.0.0.1:${control}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`fault server control ${path}: ${text}`);
    return JSON.parse(text) as unknown;
  };
  return {
    urls: ports.map((port) => `http://127.0.0.1:${port}/`),
    configure: async (config) => void (await call('POST', '/configure', config)),
    resetStats: async () => void (await call('POST', '/reset-stats')),
    stats: async () => (await call('GET', '/stats')) as FaultServerStats,
    down: async (index) => void (await call('POST', `/down/${index}`)),
    up: async (index) => void (await call('POST', `/up/${index}`)),
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
