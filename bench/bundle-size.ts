/**
 * Browser bundle sizes: what a page pays for the same calls with sturdy-rpc, @solana/kit and
 * viem. Each entry is bundled by esbuild as a user's build would (`--platform=browser`,
 * minified, ESM) and gzipped (level 9). sturdy-rpc is resolved from an installed tarball,
 * through its `browser` export condition.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

export interface BundleMeasure {
  readonly name: string;
  readonly minifiedBytes: number;
  readonly gzippedBytes: number;
  /** Minified bytes per npm package in the bundle (`(own code)` for the entry itself). */
  readonly bytesByPackage: Readonly<Record<string, number>>;
  /** Every input file with bytes in the bundle (tree-shaken files are left out). */
  readonly inputs: readonly string[];
}

export interface BundleEntry {
  readonly name: string;
  /** The entry module's source (ESM, plain JS). */
  readonly source: string;
}

/** The same calls for each library: a pool/transport of two endpoints, then one balance read. */
export const COMPARED_ENTRIES: readonly BundleEntry[] = [
  {
    name: 'sturdy-rpc: pool + Solana client (getBalance)',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { createSolanaClient } from 'sturdy-rpc/solana';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = createSolanaClient(pool).getBalance('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');`,
  },
  {
    name: 'sturdy-rpc: pool + EVM client (getBalance)',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { createEvmClient } from 'sturdy-rpc/evm';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = createEvmClient(pool).getBalance('0x000000000000000000000000000000000000dEaD');`,
  },
  {
    name: '@solana/kit: createSolanaRpc + getBalance (one endpoint, no failover)',
    source: `import { address, createSolanaRpc } from '@solana/kit';
const rpc = createSolanaRpc('http://127.0.0.1:1');
export const balance = rpc.getBalance(address('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')).send();`,
  },
  {
    name: 'viem: createPublicClient + fallback([http, http]) + getBalance',
    source: `import { createPublicClient, fallback, http } from 'viem';
const client = createPublicClient({ transport: fallback([http('http://127.0.0.1:1'), http('http://127.0.0.1:2')]) });
export const balance = client.getBalance({ address: '0x000000000000000000000000000000000000dEaD' });`,
  },
];

/** Bundles `entry` for the browser from `resolveDir` (whose node_modules holds the packages). */
export async function measureBundle(entry: BundleEntry, resolveDir: string): Promise<BundleMeasure> {
  const result = await esbuild.build({
    stdin: { contents: entry.source, resolveDir, loader: 'js', sourcefile: 'entry.js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`no output for ${entry.name}`);
  const bytesByPackage: Record<string, number> = {};
  const outputMeta = Object.values(result.metafile.outputs)[0];
  for (const [path, input] of Object.entries(outputMeta?.inputs ?? {})) {
    const key = packageOf(path);
    bytesByPackage[key] = (bytesByPackage[key] ?? 0) + input.bytesInOutput;
  }
  return {
    name: entry.name,
    minifiedBytes: output.contents.byteLength,
    gzippedBytes: gzipSync(output.contents, { level: 9 }).byteLength,
    bytesByPackage,
    inputs: Object.entries(outputMeta?.inputs ?? {}).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path),
  };
}

function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(path);
  return match?.[1] ?? '(own code)';
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** `npm run bench -- --only bundle`: the table of the compared entries. */
export async function benchBundleSize(): Promise<{ results: BundleMeasure[]; markdown: string }> {
  const { packAndInstall, REPO_ROOT } = await import('../test/helpers/packed-package.js');
  const packed = await packAndInstall();
  try {
    const results: BundleMeasure[] = [];
    for (const entry of COMPARED_ENTRIES) {
      // sturdy-rpc from the installed tarball; the peers from the repository's devDependencies.
      const dir = entry.source.includes("'sturdy-rpc") ? packed.appDir : REPO_ROOT;
      results.push(await measureBundle(entry, dir));
    }
    const base = results[0]?.gzippedBytes ?? 1;
    const rows = results.map((r) => `| ${r.name} | ${kib(r.minifiedBytes)} | ${kib(r.gzippedBytes)} | ${(r.gzippedBytes / base).toFixed(2)}× |`);
    const parts = results.map(
      (r) => `- ${r.name}: ${Object.entries(r.bytesByPackage).sort((a, b) => b[1] - a[1]).map(([p, b]) => `${p} ${kib(b)}`).join(', ')}`,
    );
    writeFileSync(join(packed.dir, 'bundle-size.json'), JSON.stringify(results.map(({ inputs: _inputs, ...r }) => r)));
    const markdown = [
      '| bundle (esbuild --platform=browser --minify) | minified | gzip -9 | vs sturdy Solana |',
      '|---|---:|---:|---:|',
      ...rows,
      '',
      'Minified bytes by package:',
      ...parts,
    ].join('\n');
    return { results, markdown };
  } finally {
    packed.dispose();
  }
}
