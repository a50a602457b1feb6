// JSON is Boost.JSON everywhere: host and plugins share libboost_json, so json::value crosses the
// plugin boundary as is.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace eventsvc::sdk {

namespace json = boost::json;

// Deepest nesting of arrays and objects accepted in a request body.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses one JSON text (RFC 8259; no comments, no trailing commas, valid UTF-8 only). Throws
// Error 400 whose message says what is wrong and `data` holds {line, column} of the fault.
json::value parse_json(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// Compact serialisation in member order, numbers formatted as ECMAScript does (1.5, 1e+21, 0.001;
// never 1.5E0), strings escaped minimally as RFC 8785 does. Every answer is written with this.
std::string to_json(const json::value& value);
// The same bytes appended to `out`, for writers of many values into one buffer: of a value, an
// object, and a string (quoted and escaped).
void append_json(std::string& out, const json::value& value);
void append_json(std::string& out, const json::object& object);
void append_json(std::string& out, std::string_view text);

// RFC 8785 canonical form: no whitespace, object members sorted by the UTF-16 code units of their
// names, strings with the minimal JSON escapes, numbers formatted as ECMAScript does for an IEEE
// double (so 1e21 -> "1e+21", 1e-7 -> "1e-7", -0 -> "0", and integers beyond 2^53 round).
std::string canonical_json(const json::value& value);

// The bytes to_json writes, counted without writing them (what a token estimate needs): of a
// value, an object, a string.
std::size_t json_size(const json::value& value);
std::size_t json_size(const json::object& object);
std::size_t json_size(std::string_view text);

// Appends a reference token to a JSON Pointer (RFC 6901): "/a" + "b/c" -> "/a/b~1c".
std::string pointer_append(std::string_view pointer, std::string_view token);
std::string pointer_append(std::string_view pointer, std::size_t index);

// Equality of two numbers or of any two values with numbers compared by value (1 == 1.0).
bool json_equal(const json::value& a, const json::value& b);

// Three-way comparison of two numbers; exact for integers, IEEE for doubles.
int compare_numbers(const json::value& a, const json::value& b);

// Number of Unicode code points of a UTF-8 string (what "length" means in the API limits).
std::size_t utf8_length(std::string_view text);

}  // namespace eventsvc::sdk
