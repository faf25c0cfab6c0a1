// Builds the browser/edge variant of the package into dist/browser/ from the same sources as
// the Node build (tsc → dist/). One rule makes the difference: a module `X.ts` that has a
// sibling `X.browser.ts` is replaced by it (today: the default executor becomes the fetch
// executor, and `createUndiciExecutor` a stub that says it is Node-only). Dependencies stay
// external so the user's bundler dedupes them. The build fails if any `node:` built-in or
// undici is reachable from a browser entry.
//
// Module by module, not pre-bundled: every source file a browser entry reaches becomes its own
// file under dist/browser/lib/ (TypeScript stripped, imports of a replaced module pointed at
// its variant), and each entry (dist/browser/solana.js, …) re-exports its module. A pre-bundled
// file merges modules, so the user's bundler can no longer drop a module the page does not use
// (`"sideEffects": false` works per module): top-level schemas of the Solana client, and the
// libraries they import, stayed in a page that reads one balance.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** A relative import of a `.js` module, in `from '…'`, `import('…')` and `import '…'`. */
const RELATIVE_IMPORT = /((?:\bfrom|\bimport)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.js\2/g;

/** Writes the browser build into `outdir`: one file per reached source module, and the entries. */
export async function buildBrowser(outdir) {
  // The graph as a bundler sees it (variants applied, node: and undici refused), not written.
  const graph = await esbuild.build({
    absWorkingDir: root,
    entryPoints: BROWSER_ENTRIES,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    packages: 'external',
    plugins: [browserVariants],
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  const modules = Object.keys(graph.metafile.inputs).filter((input) => input.startsWith('src/') && input.endsWith('.ts'));
  for (const input of modules) {
    const { code } = await esbuild.transform(readFileSync(join(root, input), 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: input });
    const importerDir = dirname(join(root, input));
    const isVariant = input.endsWith('.browser.ts');
    const rewritten = code.replace(RELATIVE_IMPORT, (match, head, quote, path) => {
      const variant = join(importerDir, `${path}.browser.ts`);
      return !isVariant && existsSync(variant) ? `${head}${quote}${path}.browser.js${quote}` : match;
    });
    const target = join(outdir, 'lib', input.slice('src/'.length).replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, rewritten);
  }
  for (const [name, source] of Object.entries(BROWSER_ENTRIES)) {
    const module = `./lib/${source.slice('src/'.length).replace(/\.ts$/, '.js')}`;
    writeFileSync(join(outdir, `${name}.js`), `export * from '${module}';\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--outdir <dir>` builds elsewhere (the browser tests stage a package without touching dist/).
  const at = process.argv.indexOf('--outdir');
  await buildBrowser(at === -1 ? join(root, 'dist/browser') : resolve(process.argv[at + 1]));
}
