import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * A real `redis-server` for one test file: a free loopback port, no persistence
 * (`--save "" --appendonly no`), stopped by PID. `kill()` / `restart()` take it away and
 * bring it back on the same port; `pause()` / `resume()` freeze it (SIGSTOP/SIGCONT), so
 * commands hang instead of failing. `extraArgs` add server options (`--maxmemory 1mb`,
 * `--replicaof 127.0.0.1 <port>`, `--requirepass …`).
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** PID of the running server (undefined while killed). */
  pid(): number | undefined;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

const servers = new Set<RedisServer>();

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function launch(binary: string, port: number, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}: ${output.slice(-500)}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGCONT');
  process.kill(child.pid, 'SIGKILL');
  await exited;
}

export async function startRedisServer(binary: string, extraArgs: readonly string[] = []): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(binary, port, extraArgs);
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => child?.pid,
    async kill() {
      await killChild(child);
      child = undefined;
    },
    async restart() {
      await killChild(child);
      child = await launch(binary, port, extraArgs);
    },
    pause() {
      if (child?.pid !== undefined) process.kill(child.pid, 'SIGSTOP');
    },
    resume() {
      if (child?.pid !== undefined) process.kill(child.pid, 'SIGCONT');
    },
    async stop() {
      servers.delete(server);
      await killChild(child);
      child = undefined;
    },
  };
  servers.add(server);
  return server;
}

/** Stops every server still running (afterAll). */
export async function stopRedisServers(): Promise<void> {
  await Promise.all([...servers].map((server) => server.stop()));
}
