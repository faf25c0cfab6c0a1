import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import { loadFixtures } from '../../src/testing/fixtures.js';
import { packAndInstall, REPO_ROOT, type PackedPackage } from '../helpers/packed-package.js';
import { describeWithBinary } from '../helpers/system-binary.js';

/**
 * The browser/edge build, as a user meets it: the package is built, packed and installed from
 * the tarball once for this file; pages and bundles are built from that installation with
 * esbuild for `--platform=browser` (so the `browser` export condition picks the build).
 */


/** Every public sub-path a browser or edge user imports (`sturdy-rpc/testing` is Node-only: it starts servers). */
const BROWSER_SUBPATHS = ['sturdy-rpc', 'sturdy-rpc/solana', 'sturdy-rpc/evm', 'sturdy-rpc/fetch', 'sturdy-rpc/viem', 'sturdy-rpc/kit', 'sturdy-rpc/ethers', 'sturdy-rpc/testing/msw'];

const HOOK_TIMEOUT_MS = 240_000;
const run = promisify(execFile);
let packed: PackedPackage | undefined;
let packing: Promise<PackedPackage> | undefined;
/** Built once per file, whichever suite asks first. */
const installed = () => (packing ??= packAndInstall().then((p) => (packed = p)));
/** Kept (and named on stdout) when a test failed or STURDY_KEEP_ARTIFACTS is set: the screenshot, bundle sizes. */
let failed = false;
afterEach((context) => {
  if (context.task.result?.state === 'fail') failed = true;
});
afterAll(() => {
  if (packed === undefined) return;
  if (failed || process.env.STURDY_KEEP_ARTIFACTS !== undefined) console.log(`browser-build artifacts kept in ${packed.dir}`);
  else packed.dispose();
});

/** Bundles `source` for the browser from the installed app; returns the code and every input file. */
async function bundleForBrowser(source: string, appDir: string, external: readonly string[] = []): Promise<{ code: string; inputs: string[] }> {
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: appDir, loader: 'js', sourcefile: 'page.js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    external: [...external],
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]?.text ?? '', inputs: Object.keys(result.metafile.inputs) };
}

describe('the browser/edge build of the installed package', () => {
  let appDir = '';
  beforeAll(async () => {
    appDir = (await installed()).appDir;
  }, HOOK_TIMEOUT_MS);

  it('bundles every browser sub-path for --platform=browser with no undici and no node: module in the graph', async () => {
    for (const subpath of BROWSER_SUBPATHS) {
      // ethers and msw are optional peers, not installed here: the user's bundle brings them.
      const { inputs } = await bundleForBrowser(`export * from '${subpath}';`, appDir, ['ethers', 'msw']);
      // The undici package (its Node-only stub, lib/http/undici-executor.browser.js, is a module of the build).
      expect(inputs.filter((input) => /node_modules\/undici\/|^node:|\/node_modules\/sturdy-rpc\/dist\/(?!browser\/)/.test(input)), subpath).toEqual([]);
      expect(inputs.some((input) => input.includes('node_modules/sturdy-rpc/dist/browser/')), subpath).toBe(true);
    }
  });

  it('ships no reference to a file it does not ship: no "DESIGN §…" in any .d.ts, .js or README of the tarball', () => {
    const root = join(appDir, 'node_modules/sturdy-rpc');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((name) => /\.(d\.ts|js|md)$/.test(name));
    expect(files.filter((name) => name.endsWith('.d.ts')).length).toBeGreaterThan(50);
    expect(files.filter((name) => /DESIGN/.test(readFileSync(join(root, name), 'utf8')))).toEqual([]);
  });

  it('installs nothing that depends on commander (whose Node ≥ 22.12 warning comes from @solana/kit, a devDependency)', async () => {
    // `npm ls <name>` exits 1 when the name is not in the tree: its JSON is the answer either way.
    const stdout = await run('npm', ['ls', 'commander', '--all', '--json'], { cwd: appDir }).then(
      (result) => result.stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    // The installed tree holds sturdy-rpc and its dependencies; commander is not among them.
    expect(JSON.parse(stdout)).toEqual({ name: 'app', version: '1.0.0' });
    const { stdout: tree } = await run('npm', ['ls', '--all', '--parseable'], { cwd: appDir });
    expect(tree).toMatch(/node_modules\/sturdy-rpc$/m);
    expect(tree).toMatch(/node_modules\/undici$/m);
    expect(tree).not.toMatch(/commander/);
  });

  it('resolves the Node build (with undici) for --platform=node and the browser build for worker and edge-light conditions', async () => {
    const node = await esbuild.build({
      stdin: { contents: `export * from 'sturdy-rpc';`, resolveDir: appDir, loader: 'js' },
      bundle: true, format: 'esm', platform: 'node', write: false, metafile: true, logLevel: 'silent',
    });
    const nodeInputs = Object.keys(node.metafile.inputs);
    expect(nodeInputs.some((input) => input.includes('node_modules/undici/'))).toBe(true);
    expect(nodeInputs.some((input) => input.includes('sturdy-rpc/dist/browser/'))).toBe(false);
    for (const condition of ['worker', 'edge-light']) {
      const edge = await esbuild.build({
        stdin: { contents: `export * from 'sturdy-rpc';`, resolveDir: appDir, loader: 'js' },
        bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], conditions: [condition],
        write: false, metafile: true, logLevel: 'silent',
      });
      const inputs = Object.keys(edge.metafile.inputs);
      expect(inputs.filter((input) => /node_modules\/undici\/|^node:/.test(input)), condition).toEqual([]);
      expect(inputs.some((input) => input.includes('sturdy-rpc/dist/browser/index.js')), condition).toBe(true);
    }
  });

});

describeWithBinary('chromium', 'apt-get install -y chromium', 'a pool in real Chromium, bundled from the packed tarball', (chromiumPath) => {
  let browser: Browser | undefined;
  let failing: FixtureServer | undefined;
  let answering: FixtureServer | undefined;
  let limiting: FixtureServer | undefined;
  let pageServer: Server | undefined;
  let pageUrl = '';

  beforeAll(async () => {
    const { appDir } = await installed();
    // The page calls the pool with no `executor`: the browser build's default must be fetch.
    const page = await bundleForBrowser(
      `import { HttpTransportPool, createUndiciExecutor } from 'sturdy-rpc';
import { createSolanaClient } from 'sturdy-rpc/solana';
window.runScenario = async (failingUrl, answeringUrl) => {
  const pool = new HttpTransportPool({
    endpoints: [{ id: 'primary', url: failingUrl, tier: 0 }, { id: 'backup', url: answeringUrl, tier: 1 }],
    retry: { maxRetries: 2, initialBackoffMs: 1, maxBackoffMs: 5 },
  });
  const attempts = [];
  pool.on('attempt', (e) => attempts.push(e.endpointId));
  const failures = [];
  pool.on('failure', (e) => failures.push({ endpointId: e.endpointId, cause: e.cause }));
  const { value, slot } = await createSolanaClient(pool).getBalance('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');
  const snapshot = pool.snapshot();
  let undici = 'no error';
  try { createUndiciExecutor(); } catch (e) { undici = e.code; }
  await pool.close();
  const report = {
    balance: value.toString(), balanceType: typeof value, slot: slot.toString(), attempts, failures, undici,
    roles: snapshot.roles.filter((r) => r.kind === 'read').map((r) => ({ endpointId: r.endpointId, successes: r.successes, failures: r.failures, availability: r.availability })),
  };
  document.body.textContent = JSON.stringify(report, null, 2);
  return report;
};
// A 429 with Retry-After: 30 from the first node: the pool must read the header through CORS
// (exposed by the server) and pause that node for 30 s, not for the 1 s fallback.
window.runRateLimit = async (limitingUrl, answeringUrl) => {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'limited', url: limitingUrl, tier: 0 }, { id: 'backup', url: answeringUrl, tier: 1 }] });
  const { value } = await createSolanaClient(pool).getBalance('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');
  const limited = pool.snapshot().roles.find((r) => r.endpointId === 'limited' && r.kind === 'read');
  await pool.close();
  return { balance: value.toString(), availability: limited.availability, rateLimits: limited.rateLimits, cooldownRemainingMs: limited.cooldownRemainingMs };
};`,
      appDir,
    );
    const html = '<!doctype html><meta charset="utf-8"><title>sturdy-rpc in Chromium</title><pre id="out"></pre><script type="module" src="/page.js"></script>';
    pageServer = createServer((req, res) => {
      if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(page.code);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => pageServer!.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;

    const fixtures = loadFixtures([join(REPO_ROOT, 'fixtures/solana-getBalance-u64-max.json')]);
    failing = await createFixtureServer({ fixtures, cors: true, behaviours: [{ type: 'http-error', status: 503 }] });
    answering = await createFixtureServer({ fixtures, cors: true });
    limiting = await createFixtureServer({ fixtures, cors: true, behaviours: [{ type: 'rate-limit', retryAfterSeconds: 30 }] });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await failing?.close();
    await answering?.close();
    await limiting?.close();
    await new Promise((resolve) => (pageServer === undefined ? resolve(undefined) : pageServer.close(resolve)));
    pageServer?.closeAllConnections();
  });

  it('fails over from the failing node to the answering one and reports the u64 balance exactly', async () => {
    const page = await browser!.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(pageUrl);
    await page.waitForFunction(() => typeof (window as unknown as { runScenario?: unknown }).runScenario === 'function', undefined, { timeout: 10_000 });
    const report = await page.evaluate(
      ([a, b]) => (window as unknown as { runScenario: (a: string, b: string) => Promise<unknown> }).runScenario(a!, b!),
      [failing!.url, answering!.url],
    );
    const screenshot = join(packed!.dir, 'chromium-failover.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.close();

    expect(report).toEqual({
      balance: '18446744073709551615', // u64::MAX, > 2^53: a JSON.parse-based client shows 18446744073709552000
      balanceType: 'bigint',
      slot: '341197053',
      attempts: ['primary', 'backup'],
      failures: [{ endpointId: 'primary', cause: 'temporary-http' }],
      undici: 'INVALID_CONFIG',
      roles: [
        { endpointId: 'primary', successes: 0, failures: 1, availability: 'degraded' },
        { endpointId: 'backup', successes: 1, failures: 0, availability: 'available' },
      ],
    });
    expect(pageErrors).toEqual([]);
    // What the servers saw: one call each, through CORS (the preflights are not calls).
    expect(failing!.count('getBalance')).toBe(1);
    expect(answering!.count('getBalance')).toBe(1);
    expect(readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
    expect(statSync(screenshot).size).toBeGreaterThan(1_000);
    expect(readdirSync(packed!.dir)).toContain('chromium-failover.png');
  });

  it("reads a node's Retry-After through CORS: a 429 asking for 30 s pauses that node for 30 s, and the read fails over", async () => {
    const page = await browser!.newPage();
    await page.goto(pageUrl);
    await page.waitForFunction(() => typeof (window as unknown as { runRateLimit?: unknown }).runRateLimit === 'function', undefined, { timeout: 10_000 });
    const before = answering!.count('getBalance');
    const report = (await page.evaluate(
      ([a, b]) => (window as unknown as { runRateLimit: (a: string, b: string) => Promise<unknown> }).runRateLimit(a!, b!),
      [limiting!.url, answering!.url],
    )) as { balance: string; availability: string; rateLimits: number; cooldownRemainingMs: number };
    await page.close();
    expect(report).toMatchObject({ balance: '18446744073709551615', availability: 'rate-limited', rateLimits: 1 });
    // 30 s minus the little time the failover took; without the exposed header it would be ≤ 1 s.
    expect(report.cooldownRemainingMs).toBeGreaterThan(20_000);
    expect(report.cooldownRemainingMs).toBeLessThanOrEqual(30_000);
    expect(limiting!.count('getBalance')).toBe(1);
    expect(answering!.count('getBalance')).toBe(before + 1);
  });
});
