#include "eventsvc/sdk/json.hpp"

#include <algorithm>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {

namespace {

// Line and column (1-based) of a byte offset, for error messages.
json::object position_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {{"line", line}, {"column", column}};
}

// Builds values like Boost.JSON's own parser, except that every floating-point number is converted
// from its text with a correctly rounded conversion (Boost.JSON 1.81 may be one unit in the last
// place off, which would make our event digests differ from a client's), and that an object
// repeating a key is refused (Boost.JSON keeps the last; RFC 8785 and I-JSON allow none).
struct ValueBuilder {
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  json::value_stack stack;
  std::string number;
  // Per object being read (depth 1 is the outermost), its keys so far: their text one after the
  // other, and where each ends. Kept and cleared, not freed, so that a document's objects reuse
  // them: reading a key allocates nothing.
  struct Keys {
    std::string text;
    std::vector<std::size_t> ends;
    std::string_view at(std::size_t i) const {
      const std::size_t begin = i == 0 ? 0 : ends[i - 1];
      return std::string_view(text).substr(begin, ends[i] - begin);
    }
  };
  std::vector<Keys> keys;
  std::vector<std::string_view> sorted_keys;
  std::size_t depth = 0;
  std::string duplicate;  // a key an object repeated

  using error_code = boost::system::error_code;
  using string_view = json::string_view;

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_array_begin(error_code&) { return true; }
  bool on_array_end(std::size_t n, error_code&) {
    stack.push_array(n);
    return true;
  }
  bool on_object_begin(error_code&) {
    if (keys.size() <= depth) keys.emplace_back();
    keys[depth].text.clear();
    keys[depth++].ends.clear();
    return true;
  }
  // The first key `seen` holds twice, if any: compared pairwise when there are few (most
  // objects), sorted when there are many.
  std::optional<std::string_view> repeated(const Keys& seen) {
    const std::size_t count = seen.ends.size();
    constexpr std::size_t kFew = 16;
    if (count <= kFew) {
      for (std::size_t i = 1; i < count; ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (seen.at(i) == seen.at(j)) return seen.at(i);
        }
      }
      return std::nullopt;
    }
    sorted_keys.clear();
    for (std::size_t i = 0; i < count; ++i)
      sorted_keys.push_back(seen.at(i));
    std::sort(sorted_keys.begin(), sorted_keys.end());
    const auto twice = std::adjacent_find(sorted_keys.begin(), sorted_keys.end());
    if (twice == sorted_keys.end()) return std::nullopt;
    return *twice;
  }
  bool on_object_end(std::size_t n, error_code& ec) {
    if (const auto twice = repeated(keys[--depth])) {
      duplicate = *twice;
      ec = json::error::syntax;
      return false;
    }
    stack.push_object(n);
    return true;
  }
  bool on_string_part(string_view s, std::size_t, error_code&) {
    stack.push_chars(s);
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code&) {
    stack.push_string(s);
    return true;
  }
  bool on_key_part(string_view s, std::size_t, error_code&) {
    stack.push_chars(s);
    keys[depth - 1].text.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code&) {
    stack.push_key(s);
    Keys& seen = keys[depth - 1];
    seen.text.append(s.data(), s.size());
    seen.ends.push_back(seen.text.size());
    return true;
  }
  bool on_number_part(string_view s, error_code&) {
    number.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, string_view, error_code&) {
    number.clear();
    stack.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, string_view, error_code&) {
    number.clear();
    stack.push_uint64(u);
    return true;
  }
  bool on_double(double d, string_view s, error_code& ec) {
    number.append(s.data(), s.size());
    double exact = d;
    const auto result = std::from_chars(number.data(), number.data() + number.size(), exact);
    if (result.ec == std::errc::result_out_of_range) {
      exact = std::strtod(number.c_str(), nullptr);  // underflow rounds to 0 / a subnormal
    }
    number.clear();
    if (!std::isfinite(exact)) {
      ec = json::error::exponent_overflow;
      return false;
    }
    stack.push_double(exact);
    return true;
  }
  bool on_bool(bool b, error_code&) {
    stack.push_bool(b);
    return true;
  }
  bool on_null(error_code&) {
    stack.push_null();
    return true;
  }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }
};

}  // namespace

json::value parse_json(std::string_view text, std::size_t max_depth) {
  json::parse_options options;
  options.max_depth = max_depth;
  json::basic_parser<ValueBuilder> parser(options);
  parser.handler().stack.reset();
  boost::system::error_code ec;
  const std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && consumed < text.size()) ec = json::error::extra_data;
  if (ec) {
    std::string reason = ec.message();
    if (const auto& duplicate = parser.handler().duplicate; !duplicate.empty()) {
      reason = "an object repeats the key \"" + duplicate + "\"";
    } else if (ec == json::error::too_deep) {
      reason = "nested deeper than " + std::to_string(max_depth) + " levels";
    } else if (ec == json::error::extra_data) {
      reason = "unexpected data after the value";
    } else if (ec == json::error::incomplete) {
      reason = "the text ends before the value does";
    } else if (ec == json::error::exponent_overflow) {
      reason = "a number is too large";
    }
    throw Error::bad_request("request body is not valid JSON: " + reason,
                             position_of(text, consumed));
  }
  return parser.handler().stack.release();
}

std::string pointer_append(std::string_view pointer, std::string_view token) {
  std::string out(pointer);
  out.reserve(out.size() + token.size() + 1);
  out.push_back('/');
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string pointer_append(std::string_view pointer, std::size_t index) {
  return pointer_append(pointer, std::to_string(index));
}

int compare_numbers(const json::value& a, const json::value& b) {
  // Exact integer comparison where both are integers; IEEE otherwise.
  if (a.is_int64() && b.is_int64()) {
    const auto x = a.get_int64();
    const auto y = b.get_int64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_uint64() && b.is_uint64()) {
    const auto x = a.get_uint64();
    const auto y = b.get_uint64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_int64() && b.is_uint64()) {
    if (a.get_int64() < 0) return -1;
    const auto x = static_cast<std::uint64_t>(a.get_int64());
    const auto y = b.get_uint64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_uint64() && b.is_int64()) return -compare_numbers(b, a);
  const double x = a.to_number<double>();
  const double y = b.to_number<double>();
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool json_equal(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!json_equal(x[i], y[i])) return false;
      }
      return true;
    }
    case json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        const auto* other = y.if_contains(member.key());
        if (other == nullptr || !json_equal(member.value(), *other)) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

std::size_t utf8_length(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) {
    // Count every byte that is not a continuation byte.
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++count;
  }
  return count;
}

}  // namespace eventsvc::sdk
