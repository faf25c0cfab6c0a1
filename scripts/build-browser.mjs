// Builds the browser/edge variant of the package into dist/browser/ from the same sources as
// the Node build (tsc → dist/). One rule makes the difference: a module `X.ts` that has a
// sibling `X.browser.ts` is replaced by it (today: the default executor becomes the fetch
// executor, and `createUndiciExecutor` a stub that says it is Node-only). Dependencies stay
// external so the user's bundler dedupes them; shared code is split into chunks so the pool
// and its errors exist once however many sub-paths a page imports. The build fails if any
// `node:` built-in or undici is reachable from a browser entry.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Public sub-paths a browser or edge user imports (`sturdy-rpc/testing` is Node-only). */
export const BROWSER_ENTRIES = {
  index: 'src/index.ts',
  solana: 'src/solana/index.ts',
  evm: 'src/evm/index.ts',
  fetch: 'src/adapters/fetch.ts',
  viem: 'src/adapters/viem.ts',
  kit: 'src/adapters/kit.ts',
  ethers: 'src/adapters/ethers.ts',
  'testing-msw': 'src/testing/msw.ts',
};

/** The esbuild plugin: `X.browser.ts` replaces `X.ts`; `node:*` and undici are build errors. */
export const browserVariants = {
  name: 'sturdy-rpc-browser-variants',
  setup(build) {
    build.onResolve({ filter: /^(node:|undici(\/|$))/ }, (args) => ({
      errors: [{ text: `'${args.path}' is not allowed in the browser/edge build (imported by ${args.importer})` }],
    }));
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.importer === '' || args.importer.endsWith('.browser.ts')) return undefined;
      const candidate = join(args.resolveDir, args.path.replace(/\.js$/, '.browser.ts'));
      return existsSync(candidate) ? { path: candidate } : undefined;
    });
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--outdir <dir>` builds elsewhere (the browser tests stage a package without touching dist/).
  const at = process.argv.indexOf('--outdir');
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: BROWSER_ENTRIES,
    outdir: at === -1 ? 'dist/browser' : resolve(process.argv[at + 1]),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [browserVariants],
    logLevel: 'warning',
  });
}
