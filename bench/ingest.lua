-- wrk script: POST /v1/events with 10 events per request and a unique Idempotency-Key.
local counter = 0
local thread_id = 0

function setup(thread)
  thread:set("thread_id", tostring(math.random(1, 1000000000)))
end

function request()
  counter = counter + 1
  local prefix = thread_id .. "-" .. counter
  local events = {}
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  for i = 1, 10 do
    events[i] = string.format(
      '{"id":"w%s-%d","type":"reading","occurred_at":"%s","data":{"temp":%d,"message":"disk latency spike on node %d"}}',
      prefix, i, now, (counter * 7 + i) % 40, i)
  end
  local body = '{"stream":"bench","events":[' .. table.concat(events, ",") .. ']}'
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer " .. os.getenv("KEY"),
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = "bench-" .. prefix,
  }, body)
end
