#include "redis_limits.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::limits::RedisLimits)
