// The lease duties of the commit writer's thread (see commit_writer.hpp):
// claiming orphans, and joining again after the lease was lost. Both block
// on the store, which is why they live on this thread.
#include <caf/send.hpp>

#include "actors/commit_writer.hpp"
#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

void commit_writer::lease_tick() {
  claim_wanted_ = false;
  // Actors of operations ended meanwhile count until they quit: a share
  // decided on a count a moment old is corrected at the next tick.
  auto mine = metrics_.operations_live.load(std::memory_order_relaxed)
              + metrics_.operations_sleeping.load(std::memory_order_relaxed);
  auto got = keeper_->claim_share(mine);
  if (got) {
    last_answer_ = clock_->monotonic();
    health_.answered(last_answer_);
    metrics_.leader.store(keeper_->leads() ? 1 : 0, std::memory_order_relaxed);
    if (!got->ops.empty()) {
      metrics_.operations_claimed.fetch_add(got->ops.size(), std::memory_order_relaxed);
      caf::anon_send(out_.engine, recover_atom::value, recovered_ops{std::move(got->ops)});
    }
    if (got->shed > 0)
      caf::anon_send(out_.engine, shed_atom::value, static_cast<uint64_t>(got->shed));
    // The safety net under the store's notifications: commands other
    // processes stored for this one (those of operations just claimed too).
    caf::anon_send(out_.engine, commands_poll_atom::value);
    return;
  }
  if (is_lease_lost(got.error())) {
    std::vector<item> none;
    lease_lost(none, keeper_->owner());
    return;
  }
  // The store did not answer: the next period tries again, and commits
  // keep renewing the lease meanwhile.
  health_.failed("claiming orphaned operations", got.error(), "trying again next period",
                 clock_->monotonic());
}

void commit_writer::lease_lost(std::vector<item>& fenced, const std::string& owner) {
  std::lock_guard<std::mutex> once{lease_mtx_};
  if (!joined_.load() || keeper_->owner() != owner) {
    // Found lost already (another lane, or a commit before the rejoin), or
    // a batch begun under the owner before the rejoin: only this batch,
    // written under the lost lease, is left to answer.
    for (auto& x : fenced)
      caf::anon_send(x.reply_to, commit_ack{x.tag, write_status::stale_revision, 0});
    return;
  }
  {
    // Everything queued was prepared under the lost lease: an update would
    // be refused per item anyway, a create is refused here so that its
    // caller hears "not written" rather than waiting.
    std::lock_guard<std::mutex> guard{mtx_};
    fenced.insert(fenced.end(), waiting_.begin(), waiting_.end());
    waiting_.clear();
    queue_.clear();
  }
  joined_ = false;
  keeper_->lost(); // no step begins from here until joined again
  metrics_.leases_lost.fetch_add(1, std::memory_order_relaxed);
  metrics_.leader.store(0, std::memory_order_relaxed);
  write_log(opts_.log, log_level::error,
            "lease of owner '" + keeper_->owner()
              + "' lost (it expired and another process took its operations over): "
              + std::to_string(fenced.size())
              + " checkpoints not written; stopping its operations and joining again");
  for (auto& x : fenced)
    caf::anon_send(x.reply_to, commit_ack{x.tag, write_status::stale_revision, 0});
  // The dispatcher drops its actors, then asks for `rejoin`.
  caf::anon_send(out_.engine, lease_lost_atom::value);
}

void commit_writer::claim_soon() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    claim_wanted_ = true;
  }
  cv_.notify_all();
}

void commit_writer::rejoin() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    rejoin_wanted_ = true;
  }
  cv_.notify_all();
}

void commit_writer::claim_once() {
  if (!keeper_)
    return;
  if (rejoin_wanted_.load())
    join_again();
  else if (joined_.load())
    lease_tick();
}

void commit_writer::join_again() {
  std::unique_lock<std::mutex> once{lease_mtx_};
  auto backoff = std::chrono::milliseconds(100);
  for (;;) {
    auto err = keeper_->join();
    if (!err)
      break;
    health_.failed("joining again", err, "retrying in " + std::to_string(backoff.count()) + " ms",
                   clock_->monotonic());
    // By hand, the next claim tries again.
    if (!opts_.threads || !pause(backoff))
      return;
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
  rejoin_wanted_ = false;
  joined_ = true;
  once.unlock(); // a claim that finds the lease lost again takes it
  lease_tick();
}

bool commit_writer::pause(std::chrono::milliseconds d) {
  std::unique_lock<std::mutex> guard{mtx_};
  return !cv_.wait_for(guard, d, [this] { return stopping_; });
}

} // namespace stepwise
