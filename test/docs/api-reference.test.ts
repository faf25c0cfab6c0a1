import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { publicEntrySources } from '../helpers/package-entries.js';

/**
 * The API reference (`npm run docs`, TypeDoc) covers every public entry point, fails on any
 * warning (an unresolved `{@link}`, a public type left out of the reference) and runs in CI.
 * TypeDoc itself runs in `.ci/run`, not here: it takes a full compile.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
const typedoc = JSON.parse(readFileSync(`${ROOT}typedoc.json`, 'utf8')) as {
  entryPoints: string[];
  treatWarningsAsErrors?: boolean;
  validation?: Record<string, boolean>;
};

describe('the API reference', () => {
  it('documents exactly the entry points package.json exports (their sources)', () => {
    const exported = Object.values(publicEntrySources());
    expect(exported.length).toBeGreaterThan(10);
    expect([...typedoc.entryPoints].sort()).toEqual([...exported].sort());
  });

  it('treats every warning as an error and validates links and exports, and CI builds it after lint', () => {
    expect(pkg.scripts['docs']).toBe('typedoc');
    expect(typedoc.treatWarningsAsErrors).toBe(true);
    expect(typedoc.validation).toMatchObject({ invalidLink: true, notExported: true });
    const ci = readFileSync(`${ROOT}.ci/run`, 'utf8');
    expect(ci.indexOf('npm run docs')).toBeGreaterThan(ci.indexOf('npm run lint'));
  });
});
