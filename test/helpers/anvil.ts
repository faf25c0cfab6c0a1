import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running anvil on 127.0.0.1. */
export interface AnvilInstance {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Kills anvil and resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

// Resolved as a package (not a path from this file): the bench runs a compiled copy from `.bench-build/`.
const ANVIL_BINARY = join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin/anvil');
const READY_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 50;
const STOP_GRACE_MS = 3_000;

/** Asks the OS for a free loopback port (listen on :0, read it, close). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function answersClientVersion(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_clientVersion', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === 'string';
  } catch {
    return false;
  }
}

/**
 * Starts anvil (`@foundry-rs/anvil-linux-amd64`) on a free loopback port with a fixed
 * genesis timestamp (so the genesis hash is stable), and waits — at most 10 s — until it
 * answers `web3_clientVersion`. Always `stop()` it (e.g. in `afterAll`).
 */
export interface StartAnvilOptions {
  /** Extra arguments (e.g. `['--no-mining']`). */
  readonly args?: readonly string[];
  /** Listen on this port (a restart on the port a stopped instance used). @default a free port */
  readonly port?: number;
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    ANVIL_BINARY,
    ['--host', '127.0.0.1', '--port', String(port), '--timestamp', '1700000000', '--quiet', ...(options.args ?? [])],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4_096) stderr += chunk.toString('utf8');
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const pid = child.pid;
  const url = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const done = exited(child);
    const grace = new AbortController();
    const graceful = await Promise.race([
      done.then(() => true),
      sleep(STOP_GRACE_MS, false, { signal: grace.signal }).catch(() => false),
    ]);
    grace.abort();
    if (!graceful) {
      child.kill('SIGKILL');
      await done;
    }
  };

  if (pid === undefined) throw await spawnError;
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await answersClientVersion(url)) return { url, port, pid, stop };
    await sleep(POLL_INTERVAL_MS);
  }
  await stop();
  throw new Error(`anvil did not become ready on port ${port} within ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`);
}
