#include "count.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Count)
