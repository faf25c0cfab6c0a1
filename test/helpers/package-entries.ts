import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './packed-package.js';

/**
 * The package's public entry points as a user imports them, each with its source file: read
 * from the `types` of package.json's `exports` (`./dist/X.d.ts` → `src/X.ts`), so a new entry
 * is picked up wherever this is used. Entries without types (`./fixtures/*`) are left out.
 */
export function publicEntrySources(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'object' && target !== null ? (target as { types?: string }).types : undefined;
    if (types === undefined) continue;
    entries[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
  }
  return entries;
}
