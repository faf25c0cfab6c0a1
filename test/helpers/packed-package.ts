import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

/**
 * The package as a user gets it: built (tsc + the browser build) into a staging folder —
 * never the checkout's `dist/`, which other suites and commands may be reading — packed with
 * `npm pack` (so `files` decides what ships) and installed from the tarball into an empty
 * project, as `scripts/pack-smoke.sh` does. Offline: npm serves the dependencies from its cache.
 */

const run = promisify(execFile);
/** The checkout's root: the first folder up with a tsconfig.build.json (also from the compiled bench, `.bench-build/`). */
export const REPO_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'tsconfig.build.json'))) return dir;
  }
  throw new Error(`no checkout root above ${from}`);
}

export interface PackedPackage {
  /** Temp root holding everything (removed by `dispose`). */
  readonly dir: string;
  /** The empty project with the tarball installed (`node_modules/sturdy-rpc`). */
  readonly appDir: string;
  /** Removes the temp root. */
  dispose(): void;
}

export async function packAndInstall(): Promise<PackedPackage> {
  const dir = mkdtempSync(join(tmpdir(), 'sturdy-rpc-packed-'));
  const stage = join(dir, 'stage');
  const appDir = join(dir, 'app');
  mkdirSync(stage);
  mkdirSync(appDir);
  try {
    const tsc = join(REPO_ROOT, 'node_modules/.bin/tsc');
    await run(tsc, ['-p', join(REPO_ROOT, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], { cwd: REPO_ROOT });
    await run(process.execPath, [join(REPO_ROOT, 'scripts/build-browser.mjs'), '--outdir', join(stage, 'dist/browser')], { cwd: REPO_ROOT });
    for (const name of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'fixtures', 'docs']) {
      // docs/api/ is the generated API reference (`npm run docs`), not shipped.
      cpSync(join(REPO_ROOT, name), join(stage, name), { recursive: true, filter: (path) => !path.startsWith(join(REPO_ROOT, 'docs/api')) });
    }
    await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], { cwd: stage });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack produced no tarball');
    writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', join(dir, tarball)], { cwd: appDir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, appDir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
