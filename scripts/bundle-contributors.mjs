// The top contributors to a page's bundle, from the sources (no pack): the two balance pages of
// issue 26 §3 bundled as the bundle bench does (esbuild, browser, minified, ESM), with the
// browser variants of scripts/build-browser.mjs, each input's minified bytes in the initial
// load (`--splitting`, static imports only) summed per file and per folder. Run:
//   node scripts/bundle-contributors.mjs [--top N] [--page solana|evm]
// A quick loop while working on the size; bench/bundle-size.ts measures the packed package.
import { gzipSync } from 'node:zlib';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { browserVariants } from './build-browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGES = {
  solana: `import { HttpTransportPool } from './src/index.ts';
import { getBalance } from './src/solana/index.ts';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = getBalance(pool, '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');`,
  evm: `import { HttpTransportPool } from './src/index.ts';
import { getBalance } from './src/evm/index.ts';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = getBalance(pool, '0x000000000000000000000000000000000000dEaD');`,
};

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const top = Number(arg('--top', '25'));
const only = arg('--page', undefined);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

async function measure(name, contents) {
  const build = (splitting) => esbuild.build({
    absWorkingDir: root,
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true, minify: true, splitting, outdir: resolve(root, '.bundle-contributors'), format: 'esm',
    platform: 'browser', target: 'es2022', write: false, metafile: true, logLevel: 'silent', plugins: [browserVariants],
  });
  const whole = await build(false);
  const wholeGz = whole.outputFiles.reduce((sum, f) => sum + gzipSync(f.contents, { level: 9 }).byteLength, 0);
  const split = await build(true);
  const outputs = split.metafile.outputs;
  const entry = Object.keys(outputs).find((p) => outputs[p].entryPoint !== undefined);
  const initial = new Set([entry]);
  for (const p of initial) for (const i of outputs[p].imports) if (i.kind === 'import-statement' && outputs[i.path]) initial.add(i.path);
  const files = new Map(split.outputFiles.map((f) => [relative(root, f.path), f.contents]));
  let initialGz = 0;
  const byFile = new Map();
  for (const p of initial) {
    initialGz += gzipSync(files.get(p) ?? new Uint8Array(), { level: 9 }).byteLength;
    for (const [input, meta] of Object.entries(outputs[p].inputs)) byFile.set(input, (byFile.get(input) ?? 0) + meta.bytesInOutput);
  }
  const byFolder = new Map();
  for (const [input, bytes] of byFile) {
    const folder = input.replace(/^.*node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, '$1').replace(/^(src\/[^/]+)\/.*$/, '$1');
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + bytes);
  }
  const list = (map) => [...map].filter(([, b]) => b > 0).sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, b]) => `  ${(b / 1000).toFixed(1).padStart(6)} KB  ${k}`).join('\n');
  console.log(`## ${name}: whole ${kib(wholeGz)}, initial ${kib(initialGz)} (gzip -9)\nby folder (minified):\n${list(byFolder)}\nby file (minified):\n${list(byFile)}\n`);
}

for (const [name, contents] of Object.entries(PAGES)) if (only === undefined || only === name) await measure(name, contents);
