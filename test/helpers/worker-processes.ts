import { fork, type ChildProcess } from 'node:child_process';

/** A TypeScript worker process (`fork` with tsx), talking over IPC; its stderr is piped (not inherited). */
export function forkWorker(file: string, args: readonly string[]): ChildProcess {
  return fork(file, [...args], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
}

/** Kills (SIGKILL) every worker still running: a multi-process test's teardown. */
export function killWorkers(children: readonly ChildProcess[]): void {
  for (const child of children) if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
}
