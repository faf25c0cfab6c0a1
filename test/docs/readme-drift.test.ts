import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';

/**
 * The README and the guides (docs/*.md) against the repository: what they link exists (files
 * and the headings a link points at), every file path they name exists, the README lists each
 * example once, no page repeats a bullet, the error fields they name are on a `TransportError`,
 * and the demo's node count they state is the demo's.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['README.md', ...readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const TEXT = new Map(PAGES.map((page) => [page, readFileSync(`${ROOT}${page}`, 'utf8')]));
const README = TEXT.get('README.md')!;
const ALL = [...TEXT.values()].join('\n');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-');
}

function anchorsOf(markdown: string): Set<string> {
  const outsideFences = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...outsideFences.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('README and guides drift', () => {
  it('every relative link (examples, src, test, docs, a heading) names a file, folder or heading that exists', () => {
    const broken: string[] = [];
    let count = 0;
    for (const [page, text] of TEXT) {
      for (const match of text.matchAll(/\]\((?!https?:)([^)\s]*)\)/g)) {
        const [path, anchor] = match[1]!.split('#') as [string, string | undefined];
        const target = path === '' ? page : join(dirname(page), path);
        count += 1;
        if (!existsSync(`${ROOT}${target}`)) broken.push(`${page}: ${match[1]}`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(`${ROOT}${target}`, 'utf8')).has(anchor)) broken.push(`${page}: ${match[1]} (no such heading)`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it('every repository file it names in code (`examples/…`, `src/…`, `test/…`, `bench/…`, `scripts/…`) exists', () => {
    const named = [...ALL.matchAll(/`((?:examples|src|test|bench|scripts|fixtures)\/[\w./-]+\.(?:ts|mjs|sh|json|md))`|\((test\/[\w./-]+\.test\.ts)\)/g)].map((match) => match[1] ?? match[2]!);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((path) => !existsSync(`${ROOT}${path}`))).toEqual([]);
  });

  it('the README links every guide in docs/', () => {
    const guides = PAGES.filter((page) => page.startsWith('docs/'));
    expect(guides.length).toBeGreaterThanOrEqual(12);
    expect(guides.filter((guide) => !README.includes(`](${guide})`))).toEqual([]);
  });

  it('lists each example once', () => {
    const listed = [...README.matchAll(/^- \[`[^`]+`\]\((examples\/[^)]+)\)/gm)].map((match) => match[1]!);
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.filter((target, index) => listed.indexOf(target) !== index)).toEqual([]);
  });

  it('repeats no bullet and leaves none cut off before the next one', () => {
    const bullets = ALL.split('\n').filter((line) => /^- \S/.test(line));
    const openings = bullets.map((line) => line.slice(0, 60));
    expect(openings.filter((opening, index) => openings.indexOf(opening) !== index)).toEqual([]);
    // A bullet whose last line ends mid-sentence with a capitalised word right before the next bullet.
    const cutOff = [...ALL.matchAll(/^ {2}.*\b[A-Z][a-z]+\n- /gm)].map((match) => match[0].trim());
    expect(cutOff).toEqual([]);
  });

  it('names only fields a TransportError has (error.signature, error.transactionHash, never error.context.transactionHash)', () => {
    const error = new TransportError('AMBIGUOUS_DISPATCH', 'probe', { context: { method: 'sendTransaction', endpointId: 'e0' } } as never);
    const named = new Set([...ALL.matchAll(/`error\.([a-zA-Z.]+)`/g)].map((match) => match[1]!));
    // `details` is viem's field and `type` an OpenTelemetry attribute; every other one is ours.
    const ours = [...named].filter((field) => field !== 'details' && field !== 'type');
    expect(ours.length).toBeGreaterThan(2);
    expect(ours.filter((field) => field.includes('.') || !(field in error))).toEqual([]);
    expect(ALL).not.toContain('error.context.transactionHash');
  });

  it('says which runtimes have a global WebSocket, and this Node agrees with it', () => {
    const subscriptions = TEXT.get('docs/subscriptions.md')!;
    const runtimes = subscriptions.slice(subscriptions.indexOf('- **Runtimes:**'), subscriptions.indexOf('- **See it:**'));
    expect(runtimes).toMatch(/Node ≥ 22 have a global `WebSocket`/);
    expect(runtimes).toMatch(/Node 20 .*has none: run `npm i ws` there/s);
    const major = Number(process.versions.node.split('.')[0]);
    expect(typeof (globalThis as { WebSocket?: unknown }).WebSocket).toBe(major >= 22 ? 'function' : major === 20 ? 'undefined' : typeof (globalThis as { WebSocket?: unknown }).WebSocket);
  });

  it("states the demo's node count as the demo runs it", () => {
    const demoSource = readFileSync(`${ROOT}src/cli/demo.ts`, 'utf8');
    const faults = demoSource.slice(demoSource.indexOf('const FAULTS'), demoSource.indexOf('];', demoSource.indexOf('const FAULTS')));
    const count = [...faults.matchAll(/^\s+\['[a-z-]+', \{ type:/gm)].length;
    expect(count).toBeGreaterThanOrEqual(5);
    const stated = [...ALL.matchAll(/\b([a-z]+) fake (?:Solana )?nodes\b/g)].map((match) => match[1]!);
    expect(stated.length).toBeGreaterThan(1);
    expect(stated.map((word) => WORDS.indexOf(word))).toEqual(stated.map(() => count));
  });
});
