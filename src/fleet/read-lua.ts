/**
 * The Redis scripts of the shared read cache (`fleet/shared-reads.ts`). A read's text lives
 * under its value key; while one member fetches it from a node, its claim key holds that
 * member's id, so the other members wait for the text instead of asking a node too. A claim
 * released without a text (the answer was not final) becomes a short pass marker (`''`):
 * readers then ask their nodes at once rather than queueing on each other.
 */

/**
 * KEYS[1] value, KEYS[2] claim; ARGV: member id, claim TTL ms (0: only look, claim nothing).
 * Returns { 'value', text }, or { 'claimed' } (this member now fetches it), { 'busy' }
 * (another member does) or { 'pass' } (just fetched and not kept, or only looking: ask a node).
 */
export const READ_OR_CLAIM_SCRIPT = `local value = redis.call('GET', KEYS[1])
if value then return { 'value', value } end
if ARGV[2] == '0' then return { 'pass' } end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return { 'claimed' } end
if redis.call('GET', KEYS[2]) == '' then return { 'pass' } end
return { 'busy' }`;

/** KEYS[1] value, KEYS[2] claim; ARGV: text, TTL ms, member id. Stores the text and frees this member's claim. */
export const PUBLISH_READ_SCRIPT = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1`;

/** KEYS[1] claim; ARGV: member id, pass TTL ms. This member's claim becomes the pass marker. */
export const RELEASE_READ_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], '', 'PX', ARGV[2]) end
return 1`;
