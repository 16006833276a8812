#pragma once
// The element of a list with a given key, or a failed test naming what is missing.
#include <catch2/catch.hpp>

#include <string>

namespace qf::testing {

/// The element of `items` whose member `key` is `wanted`; fails the test ("no <what> <wanted>")
/// when there is none.
template <class Items, class Key>
const auto& byKey(const Items& items, Key key, const std::string& wanted, const char* what) {
  for (const auto& item : items) {
    if (item.*key == wanted) return item;
  }
  FAIL("no " << what << " " << wanted);
  return items.front();
}

}  // namespace qf::testing
