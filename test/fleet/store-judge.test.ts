import { describe, expect, it } from 'vitest';
import { failureOf, LEAVE_AFTER_MISSES, PROVE_WRITABLE_MS, StoreJudge } from '../../src/fleet/store-judge.js';

describe('judging the store for shared mode', () => {
  it('names a refusal by what Redis said: auth for NOAUTH/WRONGPASS/NOPERM, refused for OOM/READONLY/MISCONF, error otherwise', () => {
    expect(failureOf(new Error('NOAUTH Authentication required.'))).toBe('auth');
    expect(failureOf(new Error('WRONGPASS invalid username-password pair or user is disabled.'))).toBe('auth');
    expect(failureOf(new Error("NOPERM User default has no permissions to run the 'evalsha' command"))).toBe('auth');
    expect(failureOf(new Error("OOM command not allowed when used memory > 'maxmemory'. script: 5a39…"))).toBe('refused');
    expect(failureOf(new Error("READONLY You can't write against a read only replica."))).toBe('refused');
    expect(failureOf(new Error('MISCONF Redis is configured to save RDB snapshots'))).toBe('refused');
    expect(failureOf(new Error('Connection is closed.'))).toBe('error');
    expect(failureOf(undefined)).toBe('error');
  });

  it('leaves shared mode after three failures with no write answered between, at once when the client is down; reads reset nothing', () => {
    const judge = new StoreJudge();
    expect(LEAVE_AFTER_MISSES).toBe(3);
    expect(judge.failed('shared', 'timeout')).toBe(false);
    expect(judge.answered('shared', false, 0)).toBe(false); // a read: a replica answers those too
    expect(judge.failed('shared', 'refused')).toBe(false);
    expect(judge.failed('shared', 'refused')).toBe(true);
    judge.reset();
    expect(judge.failed('shared', 'timeout')).toBe(false);
    judge.answered('shared', true, 0); // a write answered: the count starts over
    expect(judge.failed('shared', 'timeout')).toBe(false);
    expect(judge.failed('shared', 'timeout')).toBe(false);
    expect(new StoreJudge().failed('shared', 'unreachable')).toBe(true);
  });

  it('comes back only after writes kept being answered for PROVE_WRITABLE_MS; a failure or a read in between proves nothing', () => {
    const judge = new StoreJudge();
    expect(judge.answered('local', false, 0)).toBe(false);
    expect(judge.answered('local', true, 0)).toBe(false);
    expect(judge.answered('local', true, PROVE_WRITABLE_MS - 1)).toBe(false);
    expect(judge.failed('local', 'refused')).toBe(false); // stays local, and the proof starts over
    expect(judge.answered('local', true, PROVE_WRITABLE_MS)).toBe(false);
    expect(judge.answered('local', false, 3 * PROVE_WRITABLE_MS)).toBe(false);
    expect(judge.answered('local', true, 2 * PROVE_WRITABLE_MS)).toBe(true);
  });
});
