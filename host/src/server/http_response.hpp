// Writing answers: JSON bodies, the API-SPEC 2.10 error body, and headers.
#pragma once

#include <Poco/Net/HTTPServerResponse.h>

#include <string>
#include <string_view>

#include "eventsvc/sdk/error.hpp"
#include "server/endpoint.hpp"

namespace eventsvc::host {

// {"statusCode": 400, "statusMessage": "Bad Request", "message": "...", "data": {...}}
std::string error_body(const sdk::Error& error);

// Sends status, headers and a JSON body. Never throws (a client that hung up is not an error).
void send_json(Poco::Net::HTTPServerResponse& response, int status, std::string_view body,
               const HeaderList& headers);

}  // namespace eventsvc::host
