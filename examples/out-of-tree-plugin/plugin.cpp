#include "range.hpp"

EVENTSVC_PLUGIN(example::Range)
