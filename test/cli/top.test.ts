import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { renderTop, shareBar } from '../../src/cli/top-view.js';
import type { PoolSnapshot } from '../../src/pool/snapshot.js';
import type { StatusDocument } from '../../src/status/status-server.js';
import { closePools, createPool } from '../helpers/pools.js';
import { createScriptedExecutor } from '../helpers/scripted-executor.js';
import { describeWithBinary } from '../helpers/system-binary.js';
import { REPO_ROOT, runCli } from './run-cli.js';

afterEach(closePools);

function documentOf(snapshot: PoolSnapshot, recent: StatusDocument['recent']): StatusDocument {
  return { version: 1, atWallMs: 0, windowMs: 10_000, snapshot, recent };
}

const endpoint = (endpointId: string, extra: Partial<PoolSnapshot['endpoints'][number]> = {}): PoolSnapshot['endpoints'][number] => ({
  endpointId,
  operator: `${endpointId}-op`,
  maxConcurrentRequests: undefined,
  inFlight: 0,
  reputation: { score: 80, band: 'good', cooldownRemainingMs: 0, strikes: 0, criticalRate: 0, invalidRate: 0 },
  breakerOpenRemainingMs: 0,
  chain: 'verified',
  head: undefined,
  health: 'fresh',
  archival: 'unknown',
  ...extra,
});
const role = (endpointId: string, extra: Partial<PoolSnapshot['roles'][number]> = {}): PoolSnapshot['roles'][number] => ({
  endpointId,
  kind: 'read',
  tier: 0,
  availability: 'available',
  requestsPerSecond: 50,
  burstCapacity: 100,
  tokens: 42.7,
  maxConcurrentRequests: undefined,
  inFlight: 0,
  cooldownRemainingMs: 0,
  successes: 0,
  failures: 0,
  rateLimits: 0,
  ...extra,
});

describe('the top view', () => {
  it('draws one row per endpoint with its share of the window as a bar, quantiles, tokens, cooldown and state', () => {
    const snapshot: PoolSnapshot = {
      closed: false,
      kinds: [],
      subscriptions: [],
      endpoints: [endpoint('alpha', { inFlight: 3 }), endpoint('beta', { breakerOpenRemainingMs: 12_000 }), endpoint('gamma', { chain: 'wrong-chain' })],
      roles: [role('alpha'), role('beta', { tier: 1, availability: 'rate-limited', cooldownRemainingMs: 2_500, tokens: undefined }), role('gamma')],
    };
    const lines = renderTop(
      documentOf(snapshot, [
        { endpointId: 'alpha', attempts: 75, share: 0.75, p50Ms: 3.25, p99Ms: 41 },
        { endpointId: 'beta', attempts: 25, share: 0.25, p50Ms: 120, p99Ms: 900 },
        { endpointId: 'gamma', attempts: 0, share: 0, p50Ms: undefined, p99Ms: undefined },
      ]),
      { barWidth: 8 },
    );
    expect(lines[0]).toBe('sturdy-rpc top — 3 endpoints, 100 attempts in the last 10 s');
    expect(lines.slice(2)).toEqual([
      'endpoint  tier  operator  state      score  share 10s       p50    p99    in flight  tokens  cooldown',
      'alpha        0  alpha-op  available     80  ██████··   75%  3.3ms  41ms           3  42/100  -',
      'beta         1  beta-op   broken        80  ██······   25%  120ms  900ms          0  -       12.0s',
      'gamma        0  gamma-op  excluded      80  ········   0%   -      -              0  42/100  -',
    ]);
  });

  it('adds a lag column when the snapshot carries heads', () => {
    // In-process the lag is a bigint; through the status server's JSON it is a number.
    const withHead = endpoint('alpha', { head: { value: 1_000n, lag: 7n, observedAgoMs: 20 } });
    const lines = renderTop(documentOf({ closed: false, kinds: [], subscriptions: [], endpoints: [withHead, endpoint('beta')], roles: [role('alpha'), role('beta')] }, []));
    expect(lines[2]).toMatch(/cooldown {2}lag$/);
    expect(lines[3]).toMatch(/ 7$/);
    expect(lines[4]).toMatch(/ -$/);
  });

  it("a lagging endpoint reads 'lagging' (admission skips it), not its role's 'available'", () => {
    const lagging = endpoint('slow', { head: { value: 700n, lag: 300n, observedAgoMs: 10 }, health: 'lagging' });
    const lines = renderTop(documentOf({ closed: false, kinds: [], subscriptions: [], endpoints: [endpoint('alpha'), lagging], roles: [role('alpha'), role('slow')] }, []));
    expect(lines[3]).toMatch(/^alpha .* available /);
    expect(lines[4]).toMatch(/^slow .* lagging /);
    expect(lines[4]).not.toContain('available');
  });

  it('bars round to the nearest cell and stay inside the width', () => {
    expect([shareBar(0, 4, 'ascii'), shareBar(0.5, 4, 'ascii'), shareBar(0.9, 4, 'ascii'), shareBar(1.2, 4, 'ascii'), shareBar(0.12, 4, 'unicode')]).toEqual(['....', '##..', '####', '####', '····']);
  });
});

describe('sturdy-rpc top (plain output)', () => {
  it('attaches to a pool serving its status and prints one frame with every endpoint', async () => {
    const executor = createScriptedExecutor();
    const pool = createPool({
      endpoints: [
        { id: 'main', url: 'https://sk-live-123.example.com/', requestsPerSecond: 20 },
        { id: 'backup', url: 'https://example.org/v2/sk-live-123', tier: 1 },
      ],
      executor,
    });
    const status = await pool.serveStatus();
    for (let i = 0; i < 10; i++) await pool.request('getSlot', []);
    const result = await runCli(['top', '--port', String(status.port), '--once', '--ascii']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.split('\n');
    expect(rows[0]).toBe('sturdy-rpc top — 2 endpoints, 10 attempts in the last 10 s');
    expect(rows.find((r) => r.startsWith('main '))).toMatch(/^main +0 +example\.com +available +\d+ +############ +100% /);
    expect(rows.find((r) => r.startsWith('backup '))).toMatch(/^backup +1 +example\.org +available +\d+ +\.{12} +0% /);
    expect(result.stdout).not.toContain('sk-live');
  });

  it('--json prints status documents, one per line', async () => {
    const pool = createPool({ endpoints: [{ id: 'only', url: 'http://127.0.0.1:9/' }], executor: createScriptedExecutor() });
    const status = await pool.serveStatus();
    const result = await runCli(['top', '--port', String(status.port), '--json', '--duration', '0.3', '--interval', '100']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect((JSON.parse(line) as StatusDocument).snapshot.endpoints.map((e) => e.endpointId)).toEqual(['only']);
  });

  it('--demo --once prints a frame of the running demo: attempts counted, its six endpoints, not an empty first sample', async () => {
    const result = await runCli(['top', '--demo', '--once', '--ascii', '--interval', '500'], 20_000);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.split('\n');
    const attempts = Number(/^sturdy-rpc top — 6 endpoints, (\d+) attempts in the last 10 s$/.exec(rows[0] ?? '')?.[1]);
    expect(attempts).toBeGreaterThan(0);
    expect(rows.find((r) => r.startsWith('wrong-chain '))).toMatch(/ excluded /);
    expect(result.stdout).not.toMatch(/127\.0\.0\.1|http:\/\//);
  }, 25_000);

  it('says so and exits 1 with --once when nothing serves the port; exits 2 without a target', async () => {
    const pool = createPool({ endpoints: [{ id: 'x', url: 'http://127.0.0.1:9/' }], executor: createScriptedExecutor() });
    const status = await pool.serveStatus();
    await status.close();
    const refused = await runCli(['top', '--port', String(status.port), '--once']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('sturdy-rpc top: cannot reach the status server (ECONNREFUSED)\n');
    const usage = await runCli(['top']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^sturdy-rpc top: give exactly one of --port, --url or --demo\n\nUsage: sturdy-rpc top /);
  });
});

describeWithBinary('tmux', 'apt-get install -y tmux', 'sturdy-rpc top in a terminal (tmux)', (tmux) => {
  it('redraws the demo in place with a row and a bar per endpoint, and quits on q', async () => {
    const socket = `sturdy-top-${process.pid}`;
    const run = (...args: string[]) => execFileSync(tmux, ['-L', socket, ...args], { encoding: 'utf8', timeout: 5_000 });
    const pids: number[] = [];
    try {
      const command = `cd ${JSON.stringify(REPO_ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts top --demo --duration 40 --interval 300`;
      execFileSync(tmux, ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'top', '-x', '150', '-y', '30', command], {
        env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' },
        timeout: 5_000,
      });
      pids.push(Number(run('display-message', '-p', '-t', 'top', '#{pid}').trim()));
      pids.push(Number(run('display-message', '-p', '-t', 'top', '#{pane_pid}').trim()));

      // Bounded: poll the pane until the demo's traffic shows as bars (at most 25 s).
      let pane = '';
      const frames = new Set<string>();
      for (let i = 0; i < 100; i++) {
        pane = run('capture-pane', '-p', '-t', 'top');
        const title = pane.split('\n').find((line) => line.startsWith('sturdy-rpc top'));
        if (title !== undefined) frames.add(title);
        if (/^healthy .*█/m.test(pane) && frames.size >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const lines = pane.split('\n');
      // Redrawn in place: the title stays on the first line while its numbers change.
      expect(lines[0]).toMatch(/^sturdy-rpc top — 6 endpoints, \d+ attempts in the last 10 s$/);
      expect(frames.size).toBeGreaterThanOrEqual(2);
      expect(lines.filter((line) => line.startsWith('sturdy-rpc top'))).toHaveLength(1);
      for (const name of ['healthy', 'rate-limited', 'resetting', 'slow', 'wrong-chain', 'lagging']) {
        expect(lines.filter((line) => line.startsWith(`${name} `)), name).toHaveLength(1);
      }
      expect(lines.find((line) => line.startsWith('healthy '))).toMatch(/█+·* +\d+%/);
      expect(lines.find((line) => line.startsWith('wrong-chain '))).toMatch(/ excluded /);

      run('send-keys', '-t', 'top', 'q');
      let alive = true;
      for (let i = 0; i < 40 && alive; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        try {
          process.kill(pids[1]!, 0);
        } catch {
          alive = false;
        }
      }
      expect(alive, 'top exits on q').toBe(false);
    } finally {
      for (const pid of pids.reverse()) {
        try {
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }, 40_000);
});

