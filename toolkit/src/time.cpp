#include "eventsvc/toolkit/time.hpp"

#include <chrono>
#include <cstdio>
#include <limits>

namespace eventsvc::toolkit {

namespace {

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian calendar).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2 ? 1 : 0), m, d};
}

bool is_leap(std::int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Reads exactly `count` digits at `pos`.
bool read_digits(std::string_view text, std::size_t& pos, std::size_t count, unsigned& out) {
  if (pos + count > text.size()) return false;
  unsigned value = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  pos += count;
  out = value;
  return true;
}

bool expect(std::string_view text, std::size_t& pos, char a, char b = '\0') {
  if (pos >= text.size()) return false;
  if (text[pos] != a && (b == '\0' || text[pos] != b)) return false;
  ++pos;
  return true;
}

}  // namespace

Millis now_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<Millis> parse_rfc3339(std::string_view text) {
  std::size_t pos = 0;
  unsigned year = 0;
  unsigned month = 0;
  unsigned day = 0;
  unsigned hour = 0;
  unsigned minute = 0;
  unsigned second = 0;
  if (!read_digits(text, pos, 4, year) || !expect(text, pos, '-') ||
      !read_digits(text, pos, 2, month) || !expect(text, pos, '-') ||
      !read_digits(text, pos, 2, day) || !expect(text, pos, 'T', 't') ||
      !read_digits(text, pos, 2, hour) || !expect(text, pos, ':') ||
      !read_digits(text, pos, 2, minute) || !expect(text, pos, ':') ||
      !read_digits(text, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return std::nullopt;
  }
  unsigned millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 3) millis = millis * 10 + static_cast<unsigned>(text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (std::size_t i = digits; i < 3; ++i)
      millis *= 10;
  }
  std::int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const bool negative = text[pos] == '-';
    ++pos;
    unsigned oh = 0;
    unsigned om = 0;
    if (!read_digits(text, pos, 2, oh) || !expect(text, pos, ':') ||
        !read_digits(text, pos, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = static_cast<std::int64_t>(oh) * 60 + om;
    if (negative) offset_minutes = -offset_minutes;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, month, day);
  const std::int64_t seconds = days * 86400 + static_cast<std::int64_t>(hour) * 3600 +
                               static_cast<std::int64_t>(minute) * 60 + second -
                               offset_minutes * 60;
  // In UTC, too, the instant must lie in years 0000-9999: "0000-01-01T04:20:01+10:30" is an
  // instant of year -1, which no RFC 3339 text (and so no answer) can carry.
  constexpr std::int64_t kFirst = -62167219200;  // 0000-01-01T00:00:00Z
  constexpr std::int64_t kLast = 253402300799;   // 9999-12-31T23:59:59Z
  if (seconds < kFirst || seconds > kLast) return std::nullopt;
  return seconds * 1000 + millis;
}

void append_rfc3339(std::string& out, Millis instant) {
  std::int64_t days = instant / 86400000;
  std::int64_t rest = instant % 86400000;
  if (rest < 0) {
    rest += 86400000;
    --days;
  }
  const Civil civil = civil_from_days(days);
  const auto ms = static_cast<int>(rest % 1000);
  const auto s = static_cast<int>((rest / 1000) % 60);
  const auto m = static_cast<int>((rest / 60000) % 60);
  const auto h = static_cast<int>(rest / 3600000);
  if (civil.year < 0 || civil.year > 9999) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ",
                  static_cast<long long>(civil.year), civil.month, civil.day, h, m, s, ms);
    out += buffer;
    return;
  }
  // Digit by digit: answers format two instants per record, and printf is most of the cost.
  const std::size_t at = out.size();
  out += "0000-00-00T00:00:00.000Z";
  char* const text = out.data() + at;
  auto put = [text](std::size_t end, unsigned value, int digits) {
    for (int i = 1; i <= digits; ++i, value /= 10)
      text[end - static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
  };
  put(4, static_cast<unsigned>(civil.year), 4);
  put(7, civil.month, 2);
  put(10, civil.day, 2);
  put(13, static_cast<unsigned>(h), 2);
  put(16, static_cast<unsigned>(m), 2);
  put(19, static_cast<unsigned>(s), 2);
  put(23, static_cast<unsigned>(ms), 3);
}

std::string format_rfc3339(Millis instant) {
  std::string out;
  append_rfc3339(out, instant);
  return out;
}

std::optional<Millis> parse_duration(std::string_view text) {
  std::size_t pos = 0;
  std::int64_t value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  if (pos == 0) return std::nullopt;
  const std::string_view unit = text.substr(pos);
  std::int64_t scale = 0;
  if (unit == "ms") {
    scale = 1;
  } else if (unit == "s") {
    scale = 1000;
  } else if (unit == "m") {
    scale = 60000;
  } else if (unit == "h") {
    scale = 3600000;
  } else if (unit == "d") {
    scale = 86400000;
  } else if (unit == "w") {
    scale = 604800000;
  } else {
    return std::nullopt;
  }
  if (value > std::numeric_limits<std::int64_t>::max() / scale) return std::nullopt;
  return value * scale;
}

std::optional<Millis> parse_time_expression(std::string_view text, Millis now) {
  if (text == "now") return now;
  if (text.size() > 4 && text.substr(0, 3) == "now" && (text[3] == '-' || text[3] == '+')) {
    const auto duration = parse_duration(text.substr(4));
    // Keep results inside years 0000-9999 so they always format.
    constexpr Millis kLimit = 200LL * 365 * 86400000 * 50;
    if (!duration || *duration > kLimit) return std::nullopt;
    return text[3] == '-' ? now - *duration : now + *duration;
  }
  return parse_rfc3339(text);
}

}  // namespace eventsvc::toolkit
