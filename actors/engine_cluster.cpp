// The embedding API's view of a store shared with other processes.
#include "actors/engine_shared.hpp"
#include "actors/lease_keeper.hpp"
#include "actors/notice_pump.hpp"

namespace stepwise {

std::string engine::owner() const {
  auto& lease = shared_->rt->lease;
  return lease ? lease->owner() : std::string{};
}

bool engine::shares_store() const {
  return shared_->rt->lease != nullptr;
}

void engine::on_shared_events(std::function<void(int64_t first, int64_t last)> fn) {
  // Only with a listening thread: without one no notification comes.
  if (shared_->rt->notices)
    shared_->rt->router->on_events(std::move(fn));
}

} // namespace stepwise
