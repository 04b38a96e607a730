#pragma once

#include <chrono>
#include <thread>

namespace stepwise::test {

/// Polls `pred` until it holds or `limit` of real time has passed, yielding
/// between polls; returns whether it held. For what no event tells (a
/// counter, another process's progress); never to wait for a race.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= until)
      return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

} // namespace stepwise::test
