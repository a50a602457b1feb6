#include "eventsvc/sdk/error.hpp"

#include <utility>

namespace eventsvc::sdk {

Error::Error(int status, std::string message, boost::json::object data)
    : status_(status), message_(std::move(message)), data_(std::move(data)) {}
Error::Error(const Error&) = default;
Error::Error(Error&&) noexcept = default;
Error& Error::operator=(const Error&) = default;
Error& Error::operator=(Error&&) noexcept = default;
Error::~Error() = default;

const char* Error::what() const noexcept {
  return message_.c_str();
}

Error& Error::with_retry_after(int seconds) {
  retry_after_ = seconds;
  return *this;
}

Error Error::bad_request(std::string message, boost::json::object data) {
  return {400, std::move(message), std::move(data)};
}
Error Error::unauthorized(std::string message) {
  return {401, std::move(message)};
}
Error Error::forbidden(std::string message, boost::json::object data) {
  return {403, std::move(message), std::move(data)};
}
Error Error::not_found(std::string message) {
  return {404, std::move(message)};
}
Error Error::conflict(std::string message, int retry_after_seconds) {
  Error error(409, std::move(message));
  error.with_retry_after(retry_after_seconds);
  return error;
}
Error Error::payload_too_large(std::string message, boost::json::object data) {
  return {413, std::move(message), std::move(data)};
}
Error Error::too_many_requests(std::string message, int retry_after_seconds,
                               boost::json::object data) {
  Error error(429, std::move(message), std::move(data));
  error.with_retry_after(retry_after_seconds);
  return error;
}
Error Error::internal(std::string message) {
  return {500, std::move(message)};
}
Error Error::unavailable(std::string message, int retry_after_seconds) {
  Error error(503, std::move(message));
  error.with_retry_after(retry_after_seconds);
  return error;
}

std::string_view status_message(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

}  // namespace eventsvc::sdk
