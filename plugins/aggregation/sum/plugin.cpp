#include "sum.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Sum)
