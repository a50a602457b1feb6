// The contract's types the toolkit works on, named once so that toolkit code reads `Record`, not
// `sdk::Record`. Nothing here is the toolkit's own: these are the SDK contract's types.
#pragma once

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::toolkit {

namespace json = boost::json;

using sdk::Error;
using sdk::Millis;

}  // namespace eventsvc::toolkit
