#include "min.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Min)
