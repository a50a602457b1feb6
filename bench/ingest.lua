-- wrk script: POST /v1/events with 10 events per request and a unique Idempotency-Key.
-- `thread_id` is set per thread by setup() (each wrk thread has its own Lua state).
local counter = 0
local next_thread = 0

function setup(thread)
  next_thread = next_thread + 1
  thread:set("thread_id", tostring(next_thread) .. "-" .. tostring(os.time()))
end

function request()
  counter = counter + 1
  local prefix = thread_id .. "-" .. counter
  local events = {}
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  for i = 1, 10 do
    -- one event in 5000 mentions a rare word, for a selective search afterwards
    local message = (counter % 500 == 0 and i == 1) and "fan overheat on node" or "disk latency spike on node"
    events[i] = string.format(
      '{"id":"w%s-%d","type":"reading","occurred_at":"%s","data":{"temp":%d,"message":"%s %d"}}',
      prefix, i, now, (counter * 7 + i) % 40, message, i)
  end
  local body = '{"stream":"bench","events":[' .. table.concat(events, ",") .. ']}'
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer " .. os.getenv("KEY"),
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = "bench-" .. prefix,
  }, body)
end
