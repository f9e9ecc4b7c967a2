/**
 * Fair turns of one account across nodes, kept in Redis: start-time fair queueing with
 * equal weights, one turn (one request to the account gate) at a time.
 *
 * - `waiting` (sorted set): member `node|user`, score the instant its lease runs out. Each
 *   node says, at every call, exactly which of its users have calls waiting; a node that
 *   dies stops renewing, and its users stop counting once their leases run out.
 * - `tags` (hash): user -> the tag that user's next turn carries (turns served, in
 *   virtual time).
 * - `turn` (hash): `holder` (the node whose call is at the account gate), `until` (that
 *   lease's end) and `v` (virtual time: the tag of the last turn given).
 *
 * A user's next turn carries max(tag, v): a user who was idle starts at the current
 * virtual time instead of banking turns while away. The turn goes to a user with the
 * least tag among the users waiting on any node, and only when no other node holds the
 * turn: so a member's burst waits behind every other busy member's next call, and a
 * member's single call waits at most for the call already at the gate.
 *
 * Users are named by a hash of their subject, nodes by a random id: no name, token or key
 * reaches Redis.
 */
import type { AccountKeys } from './keys.js';

export interface TurnKeys {
  readonly waiting: string;
  readonly tags: string;
  readonly turn: string;
  /** Pub/sub channel: a turn ended or a node's waiting users left; ask again. */
  readonly wake: string;
}

/** Beside the account's gate keys, under the same hash tag (one Redis Cluster slot). */
export function turnKeys(keys: AccountKeys): TurnKeys {
  return {
    waiting: `${keys.state}:fair-waiting`,
    tags: `${keys.state}:fair-tags`,
    turn: `${keys.state}:fair-turn`,
    wake: `${keys.wake}:fair`,
  };
}

/**
 * KEYS: waiting, tags, turn. ARGV: mode ('ask' | 'keep' | 'done'), node, lease ms, key ttl
 * ms, wake channel, now ('' for Redis TIME; tests pass their clock), then the users with
 * calls waiting on this node.
 * - ask: {1, user} the turn is this node's, for that user; {0, ms} ask again within ms.
 * - keep: renews this node's leases (its waiting users, its turn); {0, 0}.
 * - done: this node's turn ends; {0, 0}.
 */
export const TURN_SCRIPT = `local now
if ARGV[6] ~= '' then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local mode = ARGV[1]
local node = ARGV[2]
local lease = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local prefix = node .. '|'
local mine = {}
for i = 7, #ARGV do mine[ARGV[i]] = true end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local left = false
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(m, 1, #prefix) == prefix and not mine[string.sub(m, #prefix + 1)] then
    redis.call('ZREM', KEYS[1], m)
    left = true
  end
end
for u in pairs(mine) do redis.call('ZADD', KEYS[1], now + lease, prefix .. u) end
local t = redis.call('HMGET', KEYS[3], 'holder', 'until', 'v')
local holder = t[1]
local untilAt = tonumber(t[2]) or 0
local v = tonumber(t[3]) or 0
if holder and untilAt <= now then holder = false end
local reply = {0, 0}
if mode == 'done' then
  if holder == node then
    redis.call('HDEL', KEYS[3], 'holder', 'until')
    left = true
  end
elseif mode == 'keep' then
  if holder == node then redis.call('HSET', KEYS[3], 'until', now + lease) end
elseif holder and holder ~= node then
  reply = {0, untilAt - now}
else
  local least = nil
  local pick = nil
  local pickTag = nil
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local sep = string.find(m, '|', 1, true)
    local u = string.sub(m, sep + 1)
    local tag = math.max(tonumber(redis.call('HGET', KEYS[2], u)) or 0, v)
    if least == nil or tag < least then least = tag end
    if string.sub(m, 1, sep - 1) == node and (pickTag == nil or tag < pickTag) then
      pick = u
      pickTag = tag
    end
  end
  if pick ~= nil and pickTag <= least then
    redis.call('HSET', KEYS[3], 'holder', node, 'until', now + lease, 'v', pickTag)
    redis.call('HSET', KEYS[2], pick, pickTag + 1)
    reply = {1, pick}
  else
    reply = {0, lease}
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
if left then redis.call('PUBLISH', ARGV[5], '1') end
return reply`;
