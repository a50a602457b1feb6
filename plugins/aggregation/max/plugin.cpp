#include "max.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Max)
