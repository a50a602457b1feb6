#include "integral.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::aggregation::Integral)
