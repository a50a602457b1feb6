#include "distinct.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Distinct)
