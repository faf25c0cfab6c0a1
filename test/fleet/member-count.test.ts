import { describe, expect, it } from 'vitest';
import { MemberCount } from '../../src/fleet/member-count.js';

describe('members assumed for the local share', () => {
  it('is expectedMembers before any heartbeat, and at least that until a full heartbeat period is answered', () => {
    const count = new MemberCount(4, 1_000);
    expect(count.assumed()).toBe(4);
    count.record(1, 0); // the first member to start reads 1
    expect(count.assumed()).toBe(4);
    count.record(6, 500);
    expect(count.assumed()).toBe(6);
    count.record(2, 1_000); // a full period answered: the count is known
    expect(count.assumed()).toBe(6); // …and the 6 read half a period ago still holds
    count.record(2, 2_600);
    expect(count.assumed()).toBe(2);
  });

  it('after a FLUSHALL the rebuilt set (1, 2, 3 …) never lowers the count read a period before', () => {
    const count = new MemberCount(1, 1_000);
    for (let t = 0; t <= 3_000; t += 1_000) count.record(4, t);
    count.record(1, 4_000); // the set was flushed: this member is the first to heartbeat again
    expect(count.assumed()).toBe(4);
    count.record(4, 5_000);
    count.record(3, 6_000);
    count.record(3, 7_000);
    expect(count.assumed()).toBe(4); // 4 was read within the last two periods
    count.record(3, 7_100);
    expect(count.assumed()).toBe(3);
  });

  it('keeps the last count while no heartbeat is answered (Redis away): the window follows the newest answer, not the clock', () => {
    const count = new MemberCount(1, 1_000);
    count.record(3, 0);
    count.record(3, 1_000);
    // Nothing answered for a long time: still 3.
    expect(count.assumed()).toBe(3);
  });
});
