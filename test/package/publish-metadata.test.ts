import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * package.json is ready for `npm publish --provenance`: nothing for npm to "auto-correct"
 * (npm 11 rewrites a `./`-prefixed bin path and warns that it "was invalid and removed"),
 * public access and provenance asked for in `publishConfig`, and `npm run lint` checks the
 * packed `exports` with publint and @arethetypeswrong/cli (ESM-only profile).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
interface PackageJson {
  readonly bin: Readonly<Record<string, string>>;
  readonly files: readonly string[];
  readonly license: string;
  readonly engines: { readonly node: string };
  readonly scripts: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly publishConfig?: { readonly access?: string; readonly provenance?: boolean };
  readonly repository?: { readonly type?: string; readonly url?: string };
  readonly bugs?: { readonly url?: string };
  readonly homepage?: string;
}
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as PackageJson;

describe('package.json, ready to publish', () => {
  it('names its bin by a path npm publishes as written (no leading ./), inside the shipped files', () => {
    const targets = Object.values(pkg.bin);
    expect(targets).toEqual(['dist/cli/main.js']);
    for (const target of targets) {
      expect(target.startsWith('./')).toBe(false);
      expect(pkg.files.some((entry) => target === entry || target.startsWith(`${entry}/`))).toBe(true);
    }
  });

  it('asks for public access and provenance when published', () => {
    expect(pkg.publishConfig).toEqual({ access: 'public', provenance: true });
  });

  it('names its repository, issue tracker and homepage (provenance ties the package to the repository it was built from)', () => {
    // npm's provenance check compares the attested source repository with `repository.url`.
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/sturdy-rpc/sturdy-rpc.git' });
    expect(pkg.bugs).toEqual({ url: 'https://github.com/sturdy-rpc/sturdy-rpc/issues' });
    expect(pkg.homepage).toBe('https://github.com/sturdy-rpc/sturdy-rpc#readme');
  });

  it('ships a license, the guides, and states the Node it needs', () => {
    expect(pkg.license).toBe('MIT');
    expect(existsSync(`${ROOT}LICENSE`)).toBe(true);
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'LICENSE', 'docs/*.md']));
    expect(pkg.engines.node).toMatch(/^>=\d+/);
  });

  it('checks the packed exports in npm run lint with publint and arethetypeswrong, pinned as devDependencies', () => {
    expect(pkg.scripts['lint']).toContain('npm run lint:package');
    expect(pkg.scripts['lint:package']).toContain('publint --strict && attw --pack . --profile esm-only');
    expect(pkg.devDependencies['publint']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies['@arethetypeswrong/cli']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
