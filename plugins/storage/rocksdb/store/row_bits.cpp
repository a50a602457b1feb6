#include "store/row_bits.hpp"

#include <bit>

// x86-64's baseline has no popcnt instruction, so std::popcount there is a library call that
// counts a byte at a time; every x86-64 CPU since 2008 has the instruction. The loader picks the
// version for the CPU it runs on (an ifunc), where the compiler can make both.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define EVENTSVC_FOR_EACH_CPU __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef EVENTSVC_FOR_EACH_CPU
#define EVENTSVC_FOR_EACH_CPU
#endif

namespace eventsvc::plugins::rocksdb_storage {

EVENTSVC_FOR_EACH_CPU std::uint32_t count_set_bits(const std::uint64_t* words, std::size_t size) {
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < size; ++i)
    total += static_cast<std::uint32_t>(std::popcount(words[i]));
  return total;
}

}  // namespace eventsvc::plugins::rocksdb_storage
