import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';

/**
 * The README against the repository: what it links exists and is listed once, it repeats no
 * bullet, the error fields it names are on a `TransportError`, and the demo's node count it
 * states is the demo's.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('README drift', () => {
  it('every relative link it gives (examples, src, test, docs) names a file or folder that exists', () => {
    const targets = [...README.matchAll(/\]\((?!https?:|#)([^)#\s]+)\)/g)].map((match) => match[1]!);
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((target) => !existsSync(`${ROOT}${target}`))).toEqual([]);
  });

  it('lists each example once', () => {
    const listed = [...README.matchAll(/^- \[`[^`]+`\]\((examples\/[^)]+)\)/gm)].map((match) => match[1]!);
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.filter((target, index) => listed.indexOf(target) !== index)).toEqual([]);
  });

  it('repeats no bullet and leaves none cut off before the next one', () => {
    const bullets = README.split('\n').filter((line) => /^- \S/.test(line));
    const openings = bullets.map((line) => line.slice(0, 60));
    expect(openings.filter((opening, index) => openings.indexOf(opening) !== index)).toEqual([]);
    // A bullet whose last line ends mid-sentence with a capitalised word right before the next bullet.
    const cutOff = [...README.matchAll(/^ {2}.*\b[A-Z][a-z]+\n- /gm)].map((match) => match[0].trim());
    expect(cutOff).toEqual([]);
  });

  it('names only fields a TransportError has (error.signature, error.transactionHash, never error.context.transactionHash)', () => {
    const error = new TransportError('AMBIGUOUS_DISPATCH', 'probe', { context: { method: 'sendTransaction', endpointId: 'e0' } } as never);
    const named = new Set([...README.matchAll(/`error\.([a-zA-Z.]+)`/g)].map((match) => match[1]!));
    // `details` is viem's field and `type` an OpenTelemetry attribute; every other one is ours.
    const ours = [...named].filter((field) => field !== 'details' && field !== 'type');
    expect(ours.length).toBeGreaterThan(2);
    expect(ours.filter((field) => field.includes('.') || !(field in error))).toEqual([]);
    expect(README).not.toContain('error.context.transactionHash');
  });

  it('says which runtimes have a global WebSocket, and this Node agrees with it', () => {
    const runtimes = README.slice(README.indexOf('- **Runtimes:**'), README.indexOf('- **See it:**'));
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
    const stated = [...README.matchAll(/\b([a-z]+) fake (?:Solana )?nodes\b/g)].map((match) => match[1]!);
    expect(stated.length).toBeGreaterThan(0);
    expect(stated.map((word) => WORDS.indexOf(word))).toEqual(stated.map(() => count));
  });
});
