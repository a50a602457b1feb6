// The parameters of a read that takes no body (GET /v1/tail, GET /v1/fields): each named once and
// each one the read knows, and the filter they write as a query's `where` object.
//
//   where      a `where` object as URL-encoded JSON (the conditions of query)
//   stream     events of this stream only (where.stream)
//   namespace  events of this namespace only (where.namespace)
#pragma once

#include <map>
#include <set>
#include <string>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

using UrlParameters = std::map<std::string, std::string, std::less<>>;

// A 400 whose message and errors[].path name the parameter.
sdk::Error bad_parameter(const std::string& name, const std::string& message);

// The URL's parameters; a 400 for one that is not in `known` (whose names the message lists, as
// `read`'s) or that is given twice.
UrlParameters url_parameters(const RequestHead& head,
                             const std::set<std::string, std::less<>>& known,
                             std::string_view read);

// `where` (parsed) with `stream` and `namespace` in it; a 400 for a where that is not a JSON object
// or a field given both ways.
sdk::json::object url_where(const UrlParameters& parameters);

}  // namespace eventsvc::host
