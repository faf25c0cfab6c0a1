import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:import|export)\s[^'"]*?from\s+'([^']+)'/g;

/** Every module specifier reachable from `entry` under `src/` (relative imports followed, `import type` skipped). */
export function reachableSpecifiers(entry: string): Set<string> {
  const seen = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const statement = match[0];
      const specifier = match[1] ?? '';
      if (/^(?:import|export)\s+type\s/.test(statement)) continue;
      specifiers.add(specifier);
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  visit(resolve(SRC, entry));
  return specifiers;
}
