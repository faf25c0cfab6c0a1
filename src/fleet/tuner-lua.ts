/**
 * The quota autopilot's scripts: the fleet's rate tuner (`learned-lease.ts`) — one hash per
 * learned budget, beside its shared bucket, holding the learned rate, its owner's lease and
 * the counters every member adds to — and the credit plans' monthly spend
 * (`parts/shared-spend.ts`). Atomic on the server and on its clock (`TIME`), like `lua.ts`.
 */
import { NOW } from './lua.js';

/**
 * One member's report. KEYS[1] the tuner; ARGV: tuner id, owner lease ms, key TTL ms,
 * admitted, refused, rate limited, rate limits that named no delay, an allowed rate (0:
 * none), then the start rate and step (when the fleet has none yet), then release (1/0: this
 * tuner leaves, and gives up the lease if it holds it). Adds the counters, takes or renews
 * the lease when it is free, expired or this tuner's, and — for the owner only — hands back
 * what every member added since the owner's last report, zeroing it. Returns { rate, step,
 * direction, rate last refused at ('' none), reason, owner (1/0), admitted, refused, rate
 * limited, undelayed, allowed rate ('' none) }.
 */
export const TUNE_SCRIPT = `${NOW}
local h = KEYS[1]
local me = ARGV[1]
redis.call('HINCRBY', h, 'admitted', ARGV[4])
redis.call('HINCRBY', h, 'refused', ARGV[5])
redis.call('HINCRBY', h, 'limited', ARGV[6])
redis.call('HINCRBY', h, 'undelayed', ARGV[7])
if tonumber(ARGV[8]) > 0 then redis.call('HSET', h, 'allowed', ARGV[8]) end
if not redis.call('HGET', h, 'rate') then
  redis.call('HSET', h, 'rate', ARGV[9], 'step', ARGV[10], 'dir', '0', 'refused_at', '', 'reason', 'demand')
end
local owner = redis.call('HGET', h, 'owner')
local ownerUntil = tonumber(redis.call('HGET', h, 'owner_until') or '0') or 0
local mine = 0
local drained = { 0, 0, 0, 0, '' }
if ARGV[11] == '1' then
  if owner == me then redis.call('HDEL', h, 'owner', 'owner_until') end
elseif owner == me or not owner or ownerUntil <= now then
  redis.call('HSET', h, 'owner', me, 'owner_until', tostring(now + tonumber(ARGV[2])))
  mine = 1
  local c = redis.call('HMGET', h, 'admitted', 'refused', 'limited', 'undelayed', 'allowed')
  drained = { tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0, tonumber(c[4]) or 0, c[5] or '' }
  redis.call('HSET', h, 'admitted', 0, 'refused', 0, 'limited', 0, 'undelayed', 0)
  redis.call('HDEL', h, 'allowed')
end
redis.call('PEXPIRE', h, ARGV[3])
local s = redis.call('HMGET', h, 'rate', 'step', 'dir', 'refused_at', 'reason')
return { s[1], s[2], s[3], s[4] or '', s[5] or '', mine, drained[1], drained[2], drained[3], drained[4], drained[5] }`;

/** The owner's decision. KEYS[1] the tuner; ARGV: tuner id, rate, step, direction, rate last refused at ('' none), reason. Written only while the lease is still this tuner's; returns 1 when written. */
export const PUBLISH_RATE_SCRIPT = `if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rate', ARGV[2], 'step', ARGV[3], 'dir', ARGV[4], 'refused_at', ARGV[5], 'reason', ARGV[6])
return 1`;

/**
 * A member's credits added to a month's spend. KEYS[1] the month's total; ARGV: credits (0:
 * only read), key TTL ms. Returns { total before, total after } as strings (Redis would
 * truncate numbers to integers).
 */
export const SPEND_SCRIPT = `
local before = redis.call('GET', KEYS[1]) or '0'
if tonumber(ARGV[1]) <= 0 then return { before, before } end
local after = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return { before, after }
`;
