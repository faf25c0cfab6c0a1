/**
 * Browser bundle sizes: what a page pays for the same balance read with sturdy-rpc, @solana/kit
 * and viem. Each entry is bundled by esbuild as the issue words it (`--bundle --minify
 * --platform=browser`, ESM) and gzipped (level 9). Two numbers per page:
 *
 * - the whole page: one file, no splitting, so everything the page can ever run counts (code
 *   behind a dynamic `import()`, such as the subscription manager, included);
 * - the initial load: the same with `splitting: true`, as Vite, Rollup and webpack bundle a page,
 *   counting the entry chunk and every chunk it imports statically; chunks reached only through
 *   `import()` (fetched on the first `subscribe()`) are reported apart.
 *
 * sturdy-rpc is resolved from an installed tarball, through its `browser` export condition; kit
 * and viem from the repository's devDependencies. The peers are the calls the issue names
 * (kit's `createSolanaRpc`, viem's `fallback` + `getBalance`), apart from the adapter pages
 * (sturdy-rpc under kit or viem), which add our pool to the peer's client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

export interface BundleMeasure {
  readonly name: string;
  /** The whole page as one file (no splitting), gzipped (level 9). */
  readonly wholeGzippedBytes: number;
  /** The initial load (entry chunk and its static imports), minified. */
  readonly minifiedBytes: number;
  /** The same, each chunk gzipped (level 9) and summed. */
  readonly gzippedBytes: number;
  /** Chunks loaded only on demand (dynamic `import()`), gzipped and summed. */
  readonly lazyGzippedBytes: number;
  /** Minified bytes per npm package in the bundle (`(own code)` for the entry itself). */
  readonly bytesByPackage: Readonly<Record<string, number>>;
  /** Every input file with bytes in the initial load (tree-shaken and on-demand files are left out). */
  readonly inputs: readonly string[];
  /** The largest input files of the initial load, minified bytes, largest first (the "top contributors"). */
  readonly topInputs: readonly { readonly input: string; readonly bytes: number }[];
}

/** The page's file name for esbuild (in `resolveDir`): its output is the one with this `entryPoint`. */
const ENTRY_SOURCEFILE = 'entry.js';

/** How many input files `topInputs` lists. */
const TOP_INPUTS = 12;

export interface BundleEntry {
  readonly name: string;
  /** The entry module's source (ESM, plain JS). */
  readonly source: string;
}

/** The same calls for each library: a pool/transport of two endpoints, then one balance read. */
export const COMPARED_ENTRIES: readonly BundleEntry[] = [
  {
    name: 'sturdy-rpc: pool + Solana getBalance',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { getBalance } from 'sturdy-rpc/solana';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = getBalance(pool, '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');`,
  },
  {
    name: 'sturdy-rpc: pool + EVM getBalance',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { getBalance } from 'sturdy-rpc/evm';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = getBalance(pool, '0x000000000000000000000000000000000000dEaD');`,
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
  {
    name: 'sturdy-rpc/kit: kit RPC over kitTransport(pool) + getBalance',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { kitTransport } from 'sturdy-rpc/kit';
import { address, createSolanaRpcFromTransport } from '@solana/kit';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = createSolanaRpcFromTransport(kitTransport(pool)).getBalance(address('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')).send();`,
  },
  {
    name: 'sturdy-rpc/viem: viem client over sturdyTransport(pool) + getBalance',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { sturdyTransport } from 'sturdy-rpc/viem';
import { createPublicClient, custom } from 'viem';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
const client = createPublicClient({ transport: sturdyTransport(pool, { custom }) });
export const balance = client.getBalance({ address: '0x000000000000000000000000000000000000dEaD' });`,
  },
  {
    name: 'viem: createPublicClient + custom(provider) + getBalance (what the viem adapter page adds to)',
    source: `import { createPublicClient, custom } from 'viem';
const client = createPublicClient({ transport: custom({ request: async () => '0x0' }) });
export const balance = client.getBalance({ address: '0x000000000000000000000000000000000000dEaD' });`,
  },
  {
    name: '@solana/kit: createSolanaRpcFromTransport + getBalance (what the kit adapter page adds to)',
    source: `import { address, createSolanaRpcFromTransport } from '@solana/kit';
export const balance = createSolanaRpcFromTransport(async () => ({ jsonrpc: '2.0', id: 0, result: { context: { slot: 0 }, value: 0 } })).getBalance(address('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')).send();`,
  },
  {
    name: 'sturdy-rpc: the pool alone (what the adapter pages add to their host)',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
export const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });`,
  },
  {
    name: 'sturdy-rpc: pool + Solana client (createSolanaClient, every typed method)',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { createSolanaClient } from 'sturdy-rpc/solana';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = createSolanaClient(pool).getBalance('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a');`,
  },
  {
    name: 'sturdy-rpc: pool + EVM client (createEvmClient, every typed method)',
    source: `import { HttpTransportPool } from 'sturdy-rpc';
import { createEvmClient } from 'sturdy-rpc/evm';
const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:1', tier: 0 }, { url: 'http://127.0.0.1:2', tier: 1 }] });
export const balance = createEvmClient(pool).getBalance('0x000000000000000000000000000000000000dEaD');`,
  },
];

/**
 * Bundles `entry` for the browser from `resolveDir` (whose node_modules holds sturdy-rpc);
 * packages not found there are looked up in `fallbackNodeModules` (the peers: kit, viem).
 */
export async function measureBundle(entry: BundleEntry, resolveDir: string, fallbackNodeModules?: string): Promise<BundleMeasure> {
  const outdir = mkdtempSync(join(tmpdir(), 'sturdy-rpc-bundle-'));
  try {
    const build = (splitting: boolean) => esbuild.build({
      stdin: { contents: entry.source, resolveDir, loader: 'js', sourcefile: ENTRY_SOURCEFILE },
      bundle: true,
      minify: true,
      splitting,
      outdir,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      ...(fallbackNodeModules === undefined ? {} : { nodePaths: [fallbackNodeModules] }),
    });
    const whole = await build(false);
    const wholeGzippedBytes = whole.outputFiles.reduce((sum, file) => sum + gzipSync(file.contents, { level: 9 }).byteLength, 0);
    const result = await build(true);
    const files = new Map(result.outputFiles.map((file) => [file.path, file.contents]));
    const outputs = result.metafile.outputs;
    // Metafile paths are relative to the working directory; output files carry absolute paths.
    const absolute = (path: string) => resolve(path);
    // The page's own entry: chunks behind an `import()` (a peer's, viem's isows say) are entry points too.
    const entryPoint = join(resolveDir, ENTRY_SOURCEFILE);
    const entryPath = Object.keys(outputs).find((path) => {
      const point = outputs[path]?.entryPoint;
      return point !== undefined && absolute(point) === entryPoint;
    });
    if (entryPath === undefined) throw new Error(`no output for ${entry.name}`);
    // The initial load: the entry chunk and, transitively, every chunk it imports statically.
    const initial = new Set<string>([entryPath]);
    for (const path of initial) {
      for (const imported of outputs[path]?.imports ?? []) if (imported.kind === 'import-statement' && outputs[imported.path] !== undefined) initial.add(imported.path);
    }
    const gzipped = (path: string) => gzipSync(files.get(absolute(path)) ?? new Uint8Array(), { level: 9 }).byteLength;
    const bytesByPackage: Record<string, number> = {};
    const inputs = new Set<string>();
    const bytesByInput = new Map<string, number>();
    let minifiedBytes = 0;
    let gzippedBytes = 0;
    let lazyGzippedBytes = 0;
    for (const [path, output] of Object.entries(outputs)) {
      if (!path.endsWith('.js')) continue;
      if (!initial.has(path)) {
        lazyGzippedBytes += gzipped(path);
        continue;
      }
      minifiedBytes += output.bytes;
      gzippedBytes += gzipped(path);
      for (const [input, meta] of Object.entries(output.inputs)) {
        const key = packageOf(input);
        bytesByPackage[key] = (bytesByPackage[key] ?? 0) + meta.bytesInOutput;
        if (meta.bytesInOutput > 0) inputs.add(input);
        bytesByInput.set(input, (bytesByInput.get(input) ?? 0) + meta.bytesInOutput);
      }
    }
    const topInputs = [...bytesByInput]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_INPUTS)
      .map(([input, bytes]) => ({ input: input.replace(/^.*node_modules\//, ''), bytes }));
    return { name: entry.name, wholeGzippedBytes, minifiedBytes, gzippedBytes, lazyGzippedBytes, bytesByPackage, inputs: [...inputs], topInputs };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
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
      results.push(await measureBundle(entry, dir, join(REPO_ROOT, 'node_modules')));
    }
    const rows = results.map((r) => `| ${r.name} | ${kib(r.wholeGzippedBytes)} | ${kib(r.minifiedBytes)} | ${kib(r.gzippedBytes)} | ${r.lazyGzippedBytes === 0 ? '–' : kib(r.lazyGzippedBytes)} |`);
    const parts = results.map(
      (r) => `- ${r.name}: ${Object.entries(r.bytesByPackage).sort((a, b) => b[1] - a[1]).map(([p, b]) => `${p} ${kib(b)}`).join(', ')}`,
    );
    // The top contributors of the two balance pages (issue 26 §3): where the next KiB are.
    const top = results.slice(0, 2).map((r) => `- ${r.name}: ${r.topInputs.map((t) => `${t.input} ${(t.bytes / 1000).toFixed(1)} KB`).join(', ')}`);
    writeFileSync(join(packed.dir, 'bundle-size.json'), JSON.stringify(results.map(({ inputs: _inputs, ...r }) => r)));
    const markdown = [
      '| page (esbuild --bundle --minify --platform=browser) | whole page, gzip -9 | initial load (--splitting), minified | initial load, gzip -9 | on demand, gzip -9 |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      'Minified bytes by package (initial load):',
      ...parts,
      '',
      `Top contributors (initial load, minified, the ${TOP_INPUTS} largest files):`,
      ...top,
    ].join('\n');
    return { results, markdown };
  } finally {
    packed.dispose();
  }
}
