// The JSON writer: the compact form answers carry (to_json), its size without writing it
// (json_size), and the RFC 8785 canonical form digests are taken of (canonical_json).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::sdk {

namespace {

// ECMAScript Number::toString for a finite double (ECMA-262 7.1.12.1), which RFC 8785 adopts.
void append_number(std::string& out, double x) {
  if (x == 0) {  // +0 and -0
    out.push_back('0');
    return;
  }
  if (x < 0) {
    out.push_back('-');
    x = -x;
  }
  // Shortest round-trip digits in scientific form: "d.ddde±XX".
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), x, std::chars_format::scientific);
  const std::string_view sci(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
  const std::size_t e_pos = sci.find('e');
  std::string digits;
  for (const char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + (sci[e_pos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exponent);
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // x = 0.digits × 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    out += std::to_string(std::abs(n - 1));
  }
}

// JSON must escape a quote, a backslash and the control characters.
bool needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

// The two-character escape of a character that has one; empty for the others (\u00XX). Both the
// writer and the size count read this one table.
std::string_view short_escape(unsigned char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return {};
  }
}

constexpr std::size_t kUnicodeEscapeSize = 6;  // backslash, u, four hex digits

void append_escape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (const auto escape = short_escape(c); !escape.empty()) {
    out += escape;
    return;
  }
  out += "\\u00";
  out.push_back(kHex[c >> 4U]);
  out.push_back(kHex[c & 0xFU]);
}

// Runs of characters that need no escape are appended whole: most strings are one run.
void append_string(std::string& out, std::string_view text) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!needs_escape(c)) continue;
    out.append(text.substr(run, i - run));
    append_escape(out, c);
    run = i + 1;
  }
  out.append(text.substr(run));
  out.push_back('"');
}

// UTF-16 code units of a valid UTF-8 string (RFC 8785 sorts member names by them).
std::u16string to_utf16(std::string_view text) {
  std::u16string units;
  units.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    char32_t cp = 0;
    std::size_t len = 1;
    if (c < 0x80) {
      cp = c;
    } else if ((c >> 5U) == 0x6) {
      cp = c & 0x1FU;
      len = 2;
    } else if ((c >> 4U) == 0xE) {
      cp = c & 0x0FU;
      len = 3;
    } else {
      cp = c & 0x07U;
      len = 4;
    }
    for (std::size_t j = 1; j < len && i + j < text.size(); ++j) {
      cp = (cp << 6U) | (static_cast<unsigned char>(text[i + j]) & 0x3FU);
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push_back(static_cast<char16_t>(0xD800 + (cp >> 10U)));
      units.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FFU)));
    } else {
      units.push_back(static_cast<char16_t>(cp));
    }
  }
  return units;
}

// canonical: RFC 8785 (members sorted, every number as an IEEE double). Otherwise members keep
// their order and integers print exactly.
void append_value(std::string& out, const json::value& value, bool canonical) {
  const bool sort_members = canonical;
  switch (value.kind()) {
    case json::kind::null:
      out += "null";
      break;
    case json::kind::bool_:
      out += value.get_bool() ? "true" : "false";
      break;
    case json::kind::int64:
      if (canonical) {
        append_number(out, static_cast<double>(value.get_int64()));
      } else {
        out += std::to_string(value.get_int64());
      }
      break;
    case json::kind::uint64:
      if (canonical) {
        append_number(out, static_cast<double>(value.get_uint64()));
      } else {
        out += std::to_string(value.get_uint64());
      }
      break;
    case json::kind::double_:
      append_number(out, value.get_double());
      break;
    case json::kind::string:
      append_string(out, value.get_string());
      break;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        append_value(out, element, canonical);
      }
      out.push_back(']');
      break;
    }
    case json::kind::object: {
      const auto& object = value.get_object();
      out.push_back('{');
      bool first = true;
      auto append_member = [&](const json::key_value_pair& member) {
        if (!first) out.push_back(',');
        first = false;
        append_string(out, member.key());
        out.push_back(':');
        append_value(out, member.value(), canonical);
      };
      if (sort_members) {
        std::vector<std::pair<std::u16string, const json::key_value_pair*>> members;
        members.reserve(object.size());
        for (const auto& member : object)
          members.emplace_back(to_utf16(member.key()), &member);
        std::sort(members.begin(), members.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& entry : members)
          append_member(*entry.second);
      } else {
        for (const auto& member : object)
          append_member(member);
      }
      out.push_back('}');
      break;
    }
  }
}

// Bytes append_string writes for `text`.
std::size_t string_size(std::string_view text) {
  std::size_t size = 2;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!needs_escape(c)) {
      size += 1;
    } else {
      const auto escape = short_escape(c);
      size += escape.empty() ? kUnicodeEscapeSize : escape.size();
    }
  }
  return size;
}

template <class Integer>
std::size_t integer_size(Integer value) {
  std::array<char, 24> buffer{};
  return static_cast<std::size_t>(
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr - buffer.data());
}

}  // namespace

std::size_t json_size(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      return 4;
    case json::kind::bool_:
      return value.get_bool() ? 4 : 5;
    case json::kind::int64:
      return integer_size(value.get_int64());
    case json::kind::uint64:
      return integer_size(value.get_uint64());
    case json::kind::double_: {
      std::string text;  // a number's text fits the string's own buffer: no allocation
      append_number(text, value.get_double());
      return text.size();
    }
    case json::kind::string:
      return string_size(value.get_string());
    case json::kind::array: {
      const auto& array = value.get_array();
      std::size_t size = 2 + (array.empty() ? 0 : array.size() - 1);
      for (const auto& element : array)
        size += json_size(element);
      return size;
    }
    case json::kind::object:
      return json_size(value.get_object());
  }
  return 0;
}

std::size_t json_size(const json::object& object) {
  std::size_t size = 2 + (object.empty() ? 0 : object.size() - 1);
  for (const auto& member : object)
    size += string_size(member.key()) + 1 + json_size(member.value());
  return size;
}

std::size_t json_size(std::string_view text) {
  return string_size(text);
}

std::string canonical_json(const json::value& value) {
  std::string out;
  append_value(out, value, true);
  return out;
}

std::string to_json(const json::value& value) {
  std::string out;
  out.reserve(256);
  append_value(out, value, false);
  return out;
}

void append_json(std::string& out, const json::value& value) {
  append_value(out, value, false);
}

void append_json(std::string& out, const json::object& object) {
  out.push_back('{');
  bool first = true;
  for (const auto& member : object) {
    if (!first) out.push_back(',');
    first = false;
    append_string(out, member.key());
    out.push_back(':');
    append_value(out, member.value(), false);
  }
  out.push_back('}');
}

void append_json(std::string& out, std::string_view text) {
  append_string(out, text);
}

}  // namespace eventsvc::sdk
