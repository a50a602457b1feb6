// The Lua scripts that keep buckets and leases in Redis. Each runs atomically on the server and
// reads the time from Redis itself, so every eventsvc server charges against one clock.
#pragma once

#include <string_view>

namespace eventsvc::plugins::limits {

// KEYS[1] the bucket (a hash: t = tokens, at = ms of the last charge); ARGV[1] its capacity, which
// is also its refill per minute. Returns {allowed 0|1, tokens left, now in ms}; the numbers as
// strings (Lua's numbers would come back truncated to integers).
inline constexpr std::string_view kChargeScript = R"lua(
local capacity = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rate = capacity / 60000
local state = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'at', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return {allowed, string.format('%.17g', tokens), string.format('%d', now)}
)lua";

// KEYS[1] the key's leases (a sorted set: member = lease token, score = ms it expires at); ARGV[1]
// the limit, ARGV[2] the new lease's token, ARGV[3] its time to live in ms. Expired leases (their
// server stopped renewing them) are dropped first. Returns {granted 0|1, leases held}.
inline constexpr std::string_view kAcquireScript = R"lua(
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then
  return {0, held}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, held + 1}
)lua";

// KEYS: lease sets; ARGV[1] the time to live in ms, ARGV[1 + i] the token held in KEYS[i]. Pushes
// the expiry of each lease still there (one that expired meanwhile is not brought back). Returns
// {leases renewed}.
inline constexpr std::string_view kRenewScript = R"lua(
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[1])
local renewed = 0
for i, key in ipairs(KEYS) do
  if redis.call('ZADD', KEYS[i], 'XX', 'CH', now + ttl, ARGV[i + 1]) == 1 then
    renewed = renewed + 1
  end
  redis.call('PEXPIRE', key, ttl)
end
return {renewed}
)lua";

}  // namespace eventsvc::plugins::limits
