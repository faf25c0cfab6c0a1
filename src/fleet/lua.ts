/**
 * The fleet's Redis scripts. Each runs atomically on the server and reads the server's own
 * clock (`TIME`), so no process's clock enters a bucket or a fact's age. All keys of one
 * namespace share a hash tag (`{namespace}`), so the scripts also run on Redis Cluster.
 */

/** Server time in ms (fractional). */
export const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000`;

/**
 * Continuous-refill token bucket. KEYS[1] bucket; ARGV: tokens per ms, capacity, tokens
 * wanted, start empty (1/0), key TTL ms, restart (1/0: the stored state is stale — the
 * fleet spent local shares meanwhile — so start over, empty with `start empty`). Returns { granted, ms until the tokens wanted are
 * there (when none was granted) }. KEYS[2], for a learned rate: the fleet's tuner
 * (`tuner-lua.ts`), whose rate (and one second of it as the capacity) overrides ARGV's, so
 * the bucket follows the tuner without a process passing on a rate it learned late.
 * Grants only whole tokens that are there now: the bucket never goes below zero, so the
 * fleet never takes more than the quota.
 */
export const TAKE_SCRIPT = `${NOW}
local rate = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
if KEYS[2] then
  local learned = tonumber(redis.call('HGET', KEYS[2], 'rate') or '')
  if learned then
    rate = learned / 1000
    cap = math.max(1, learned)
  end
end
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil or ARGV[6] == '1' then
  if ARGV[4] == '1' then tokens = 0 else tokens = cap end
  ts = now
end
if now > ts then
  tokens = math.min(cap, tokens + (now - ts) * rate)
  ts = now
end
local granted = math.floor(tokens + 1e-9)
if granted > want then granted = want end
if granted < 0 then granted = 0 end
tokens = math.max(0, tokens - granted)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
-- Nothing granted: the time until the whole request is there, so a contended bucket is
-- leased in batches (one round trip per lease, not per token).
local wait = 0
if granted == 0 then wait = math.ceil((math.min(want, cap) - tokens) / rate) end
return { granted, wait }`;

/** KEYS[1] members (sorted set of expiry instants); ARGV: member id, TTL ms. Returns the live member count. */
export const HEARTBEAT_SCRIPT = `${NOW}
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZCARD', KEYS[1])`;

/**
 * KEYS[1] the fact's key, KEYS[2] the log (a stream); ARGV: fact JSON, TTL ms, member id,
 * log length. The stored fact is replaced only by one that holds longer (the later end
 * wins); every fact is appended to the log, where live processes read it.
 */
export const SHARE_SCRIPT = `local ttl = tonumber(ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'm', ARGV[3], 'f', ARGV[1])
redis.call('PEXPIRE', KEYS[2], 3600000)
return 1`;

/**
 * KEYS[1] the log; ARGV: cursor ('' = from now), max entries. Returns { server ms, new
 * cursor, entries } where each entry is { id, member, fact JSON }.
 */
export const POLL_SCRIPT = `${NOW}
if ARGV[1] == '' then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last == 0 then return { math.floor(now), '0-0', {} } end
  return { math.floor(now), last[1][1], {} }
end
local read = redis.call('XREAD', 'COUNT', tonumber(ARGV[2]), 'STREAMS', KEYS[1], ARGV[1])
if not read then return { math.floor(now), ARGV[1], {} } end
local out = {}
local cursor = ARGV[1]
for _, entry in ipairs(read[1][2]) do
  local fields = entry[2]
  local member, fact = '', ''
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then member = fields[i + 1] elseif fields[i] == 'f' then fact = fields[i + 1] end
  end
  out[#out + 1] = { entry[1], member, fact }
  cursor = entry[1]
end
return { math.floor(now), cursor, out }`;

/** KEYS: fact keys. Returns { fact JSON, remaining ms } for each key that still holds. */
export const RECALL_SCRIPT = `local out = {}
for _, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value then
    local ttl = redis.call('PTTL', key)
    if ttl > 0 then out[#out + 1] = { value, ttl } end
  end
end
return out`;
