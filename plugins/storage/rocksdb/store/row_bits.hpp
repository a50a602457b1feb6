// A set of a chunk's rows as a bitmap of 64-bit words: candidates are narrowed by whole words.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace eventsvc::plugins::rocksdb_storage {

// The number of bits set in `size` words. A chunk's candidates are counted on every question's
// path (row_bits.cpp: with the CPU's popcount instruction where it has one).
std::uint32_t count_set_bits(const std::uint64_t* words, std::size_t size);

class RowBits {
 public:
  // `rows` rows, every one set or none.
  void reset(std::uint32_t rows, bool all) {
    rows_ = rows;
    words_.assign((rows + 63) / 64, all ? ~std::uint64_t{0} : 0);
    if (all && rows % 64 != 0) words_.back() = (std::uint64_t{1} << (rows % 64)) - 1;
  }
  std::uint32_t rows() const { return rows_; }
  bool test(std::uint32_t row) const { return ((words_[row / 64] >> (row % 64)) & 1U) != 0; }
  void set(std::uint32_t row) { words_[row / 64] |= std::uint64_t{1} << (row % 64); }
  void clear(std::uint32_t row) { words_[row / 64] &= ~(std::uint64_t{1} << (row % 64)); }
  // Sets the rows of `bytes`, a bitmap in bytes (row r: bit r % 8 of byte r / 8); false when it
  // names a row past the end.
  bool set_bytes(const char* bytes, std::size_t size) {
    return each_word_of(bytes, size, [&](std::size_t w, std::uint64_t bits) { words_[w] |= bits; });
  }
  // Clears the rows of `bytes`, a bitmap as set_bytes() takes; false when it names a row past
  // the end.
  bool and_not_bytes(const char* bytes, std::size_t size) {
    return each_word_of(bytes, size,
                        [&](std::size_t w, std::uint64_t bits) { words_[w] &= ~bits; });
  }
  // Clears the rows set in `other`.
  void and_not(const RowBits& other) {
    for (std::size_t i = 0; i < words_.size(); ++i)
      words_[i] &= ~other.words_[i];
  }
  void and_with(const RowBits& other) {
    for (std::size_t i = 0; i < words_.size(); ++i)
      words_[i] &= other.words_[i];
  }
  void or_with(const RowBits& other) {
    for (std::size_t i = 0; i < words_.size(); ++i)
      words_[i] |= other.words_[i];
  }
  // The bytes its bitmap takes.
  std::size_t bitmap_bytes() const { return words_.size() * sizeof(std::uint64_t); }
  bool any() const {
    for (const auto word : words_) {
      if (word != 0) return true;
    }
    return false;
  }
  // The first set row at or after `from`; rows() when there is none.
  std::uint32_t next(std::uint32_t from) const {
    std::size_t word = from / 64;
    if (word >= words_.size()) return rows_;
    std::uint64_t bits = words_[word] & (~std::uint64_t{0} << (from % 64));
    while (bits == 0) {
      if (++word == words_.size()) return rows_;
      bits = words_[word];
    }
    return static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }
  std::uint32_t count() const { return count_set_bits(words_.data(), words_.size()); }
  // Calls each(first, count) for every run of consecutive set rows, in order: a word at a time,
  // not a next() per row (a word of set rows is one step).
  template <class Each>
  void for_each_run(Each each) const {
    std::uint32_t first = 0;
    std::uint32_t count = 0;  // of the run not yet given
    for (std::size_t word = 0; word < words_.size(); ++word) {
      std::uint64_t bits = words_[word];
      while (bits != 0) {
        const int start = std::countr_zero(bits);
        const int length = std::countr_one(bits >> start);
        const auto row = static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(start));
        if (count != 0 && first + count == row) {
          count += static_cast<std::uint32_t>(length);
        } else {
          if (count != 0) each(first, count);
          first = row;
          count = static_cast<std::uint32_t>(length);
        }
        bits = start + length >= 64 ? 0 : bits & (~std::uint64_t{0} << (start + length));
      }
    }
    if (count != 0) each(first, count);
  }

 private:
  // Calls apply(word, bits) with the bits of `bytes`, a bitmap in bytes, for each of this set's
  // words they reach; false when they name a row past the end.
  template <class Apply>
  bool each_word_of(const char* bytes, std::size_t size, Apply apply) {
    std::uint64_t last = 0;  // the bitmap's bits of the last word
    const auto give = [&](std::size_t w, std::uint64_t bits) {
      apply(w, bits);
      if (w + 1 == words_.size()) last |= bits;
    };
    // Eight bytes are one word (row r: bit r % 64 of word r / 64).
    const std::size_t whole = std::min(size / 8, words_.size());
    for (std::size_t w = 0; w < whole; ++w) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + w * 8, 8);
      if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
      give(w, word);
    }
    for (std::size_t i = whole * 8; i < size; ++i) {
      const auto byte = static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i]));
      if (byte == 0) continue;
      if (i / 8 >= words_.size()) return false;
      give(i / 8, byte << ((i % 8) * 8));
    }
    // Rows past the end are bits of the last word above rows() % 64.
    return rows_ % 64 == 0 || (last >> (rows_ % 64)) == 0;
  }

  std::uint32_t rows_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
