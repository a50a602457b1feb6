// The bytes of a partial aggregation state (AggregationOperator::serialize): numbers as fixed-width
// little-endian words and strings with their length first, so that a state written on one machine
// reads the same on another. A reader checks every read against the end: damaged or truncated
// bytes throw Error 500 instead of reading past them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace eventsvc::toolkit {

class StateWriter {
 public:
  void u64(std::uint64_t value);
  void i64(std::int64_t value);
  void f64(double value);  // the IEEE bits: the value reads back exactly
  void boolean(bool value);
  void text(std::string_view value);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t u64();
  std::int64_t i64();
  double f64();
  bool boolean();
  std::string text();
  // Throws unless every byte was read.
  void expect_end() const;

 private:
  std::string_view take(std::size_t size);
  std::string_view bytes_;
  std::size_t position_ = 0;
};

}  // namespace eventsvc::toolkit
