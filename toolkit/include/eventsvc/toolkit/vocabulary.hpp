// What every toolkit file names from the contract without `sdk::`: JSON, the error type and
// instants. (Each toolkit header names the other contract types it works on, such as
// `using sdk::Record;`, itself, so that it includes only the contract headers it needs.)
#pragma once

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::toolkit {

namespace json = boost::json;

using sdk::Error;
using sdk::Millis;

}  // namespace eventsvc::toolkit
