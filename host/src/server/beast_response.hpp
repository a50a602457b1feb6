// An Answer as Beast writes it: status, the server's own headers (Server, Date), the answer's
// headers, Content-Type (JSON unless the answer names another), keep-alive and the body.
#pragma once

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "server/http_message.hpp"

namespace eventsvc::host {

using BeastResponse = boost::beast::http::response<boost::beast::http::string_body>;
using StreamedResponse = boost::beast::http::response<boost::beast::http::empty_body>;

// Moves the body out of `answer`. `head_only`: the answer to HEAD, its length without the body.
BeastResponse beast_response(Answer& answer, bool keep_alive, bool head_only);
// The head of an answer whose body is its stream, sent in chunks.
StreamedResponse streamed_response(const Answer& answer, bool keep_alive);

}  // namespace eventsvc::host
