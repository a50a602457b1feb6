#include "budget_fit.hpp"

#include <algorithm>

namespace eventsvc::plugins::context {

std::size_t BudgetChoice::dropped_count() const {
  return static_cast<std::size_t>(std::count(dropped.begin(), dropped.end(), true));
}

namespace {

std::vector<bool> first_dropped(std::size_t candidates, std::size_t count) {
  std::vector<bool> dropped(candidates, false);
  std::fill_n(dropped.begin(), count, true);
  return dropped;
}

}  // namespace

BudgetChoice fit_to_budget(std::size_t candidates, std::size_t budget, std::size_t put_back_from,
                           const PacketMeasure& measure) {
  BudgetChoice choice;
  choice.dropped.assign(candidates, false);
  choice.tokens = measure(choice.dropped);
  if (choice.tokens <= budget) return choice;

  // The fewest candidates, dropped in order, that bring the packet within the budget (the size
  // never grows with more dropped, so a binary search finds it).
  std::size_t low = 0;
  std::size_t high = candidates;
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (measure(first_dropped(candidates, middle)) <= budget) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  choice.dropped = first_dropped(candidates, low);
  choice.tokens = measure(choice.dropped);

  // Most important first: whatever fits again goes back. The packet only grows, so an item that
  // does not fit now would not fit later either.
  for (std::size_t i = low; i-- > put_back_from;) {
    choice.dropped[i] = false;
    const std::size_t tokens = measure(choice.dropped);
    if (tokens <= budget) {
      choice.tokens = tokens;
    } else {
      choice.dropped[i] = true;
    }
  }
  return choice;
}

}  // namespace eventsvc::plugins::context
