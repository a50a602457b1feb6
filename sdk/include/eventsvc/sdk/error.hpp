// The one error type of the SDK. Every failure a client can see is an Error: it carries the HTTP
// status, a human message and free-form detail that becomes the `data` member of the error body
// (API-SPEC 2.10).
//
// Plugins report failures by throwing Error. Host and plugin are built with the same toolchain
// (checked by the ABI handshake, see abi.hpp), so the exception crosses the library boundary
// safely; the host catches everything a plugin throws and turns any other exception into a 500
// naming the module.
#pragma once

#include <boost/json/object.hpp>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace eventsvc::sdk {

class Error : public std::exception {
 public:
  Error(int status, std::string message, boost::json::object data = {});
  Error(const Error&);
  Error(Error&&) noexcept;
  Error& operator=(const Error&);
  Error& operator=(Error&&) noexcept;
  ~Error() override;

  const char* what() const noexcept override;
  int status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }
  const boost::json::object& data() const noexcept { return data_; }
  boost::json::object& data() noexcept { return data_; }
  // Seconds a client should wait before retrying; rendered as the Retry-After header.
  std::optional<int> retry_after() const noexcept { return retry_after_; }
  Error& with_retry_after(int seconds);

  static Error bad_request(std::string message, boost::json::object data = {});
  static Error unauthorized(std::string message);
  static Error forbidden(std::string message, boost::json::object data = {});
  static Error not_found(std::string message);
  static Error conflict(std::string message, int retry_after_seconds);
  static Error payload_too_large(std::string message, boost::json::object data = {});
  static Error too_many_requests(std::string message, int retry_after_seconds,
                                 boost::json::object data = {});
  static Error internal(std::string message);
  static Error unavailable(std::string message, int retry_after_seconds);

 private:
  int status_;
  std::string message_;
  boost::json::object data_;
  std::optional<int> retry_after_;
};

// The standard reason phrase of an HTTP status ("Bad Request"); "Error" for unknown codes.
std::string_view status_message(int status);

}  // namespace eventsvc::sdk
