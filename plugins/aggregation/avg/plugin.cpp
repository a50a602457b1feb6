#include "avg.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Avg)
