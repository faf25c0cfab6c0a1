import { afterEach, describe, expect, it } from 'vitest';
import { projectFixtures, runCli, startCli, type CliProcess } from './run-cli.js';

const running: CliProcess[] = [];
afterEach(() => {
  for (const cli of running.splice(0)) cli.kill();
});

async function post(url: string, body: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5_000) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function serve(args: readonly string[]): Promise<{ cli: CliProcess; url: string }> {
  const cli = startCli(['serve-fixtures', ...args]);
  running.push(cli);
  const match = await cli.waitForOutput(/^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/m);
  return { cli, url: match[1]! };
}

describe('sturdy-rpc serve-fixtures', () => {
  it('answers from the fixtures directory with the request id, and exits 0 on SIGTERM after a clean close', async () => {
    const { cli, url } = await serve(['--dir', 'fixtures']);
    await cli.waitForOutput(/^serving \d+ fixtures for \d+ methods from fixtures$/m);

    const version = projectFixtures((n) => n === 'solana-getVersion')[0]!;
    const answer = await post(url, { jsonrpc: '2.0', id: 42, method: 'getVersion', params: [] });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ ...JSON.parse(version.response.body), id: 42 });

    const unknown = await post(url, { jsonrpc: '2.0', id: 'u', method: 'noSuchMethod', params: [] });
    expect(JSON.parse(unknown.text)).toMatchObject({ id: 'u', error: { code: -32601 } });

    cli.child.kill('SIGTERM');
    expect(await cli.exited()).toBe(0);
    expect(cli.stdout()).toMatch(/^stopped \(SIGTERM\); 2 requests: getVersion 1, noSuchMethod 1$/m);
    expect(cli.stderr()).toBe('');
    await expect(post(url, { jsonrpc: '2.0', id: 1, method: 'getVersion' })).rejects.toThrow();
  });

  it('applies --behaviour specs: a 429 with Retry-After on every 2nd call, only for the named method', async () => {
    const { cli, url } = await serve(['--dir', 'fixtures', '--behaviour', '429:every=2:retry-after=3:method=getVersion']);
    const call = (method: string) => post(url, { jsonrpc: '2.0', id: 1, method, params: [] });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await call('getVersion'));
    expect(answers.map((a) => a.status)).toEqual([200, 429, 200, 429, 200, 429]);
    expect(answers[1]?.headers.get('retry-after')).toBe('3');
    // Other methods are untouched.
    for (let i = 0; i < 3; i++) expect((await call('getGenesisHash')).status).toBe(200);
    cli.child.kill('SIGINT');
    expect(await cli.exited()).toBe(0);
    expect(cli.stdout()).toMatch(/stopped \(SIGINT\); 9 requests: getGenesisHash 3, getVersion 6/);
  });

  it.each([
    ['a missing --dir', [], /--dir is required/],
    ['a directory that does not exist', ['--dir', '/nonexistent/fixtures'], /--dir: .*cannot read fixture directory/],
    ['an unknown behaviour kind', ['--dir', 'fixtures', '--behaviour', 'explode'], /--behaviour 'explode': unknown kind 'explode'/],
    ['a bad behaviour value', ['--dir', 'fixtures', '--behaviour', '429:every=0'], /--behaviour '429:every=0': every must be an integer ≥ 1/],
    ['a bad port', ['--dir', 'fixtures', '--port', '70000'], /--port must be an integer from 0 to 65535/],
  ])('rejects %s with a one-line error, the usage and exit code 2', async (_name, args, message) => {
    const result = await runCli(['serve-fixtures', ...args]);
    expect(result.code, result.stderr).toBe(2);
    const [first, blank, usage] = result.stderr.split('\n');
    expect(first).toMatch(/^sturdy-rpc serve-fixtures: /);
    expect(first).toMatch(message);
    expect(blank).toBe('');
    expect(usage).toMatch(/^Usage: sturdy-rpc serve-fixtures /);
    expect(result.stdout).toBe('');
  });

  it('documents the behaviour syntax in --help', async () => {
    const result = await runCli(['serve-fixtures', '--help']);
    expect(result.code).toBe(0);
    for (const example of ['429:every=3:retry-after=2', 'latency:50-200', 'reset:p=0.2', 'html200', 'hang:method=sendTransaction']) {
      expect(result.stdout).toContain(example);
    }
  });
});
