#include "local_limits.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::limits::LocalLimits)
