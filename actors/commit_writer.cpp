#include "actors/commit_writer.hpp"

#include <algorithm>
#include <chrono>

#include <caf/send.hpp>
#include <pthread.h>

#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

commit_writer::commit_writer(store_ptr st, writer_outputs out, metrics& m,
                             std::shared_ptr<clock> clk, options opts,
                             std::shared_ptr<lease_keeper> keeper)
  : store_(std::move(st)),
    out_(std::move(out)),
    metrics_(m),
    opts_(std::move(opts)),
    health_(opts_.log),
    keeper_(std::move(keeper)),
    clock_(std::move(clk)),
    last_answer_(clock_->monotonic()) {
  opts_.max_batch = std::max<size_t>(1, opts_.max_batch);
  if (!opts_.threads)
    return;
  auto lanes = std::max<size_t>(1, store_->commit_lanes());
  lanes_running_ = lanes - 1;
  thread_ = std::thread{[this] {
    pthread_setname_np(pthread_self(), "sw-writer");
    run();
  }};
  for (size_t i = 1; i < lanes; ++i)
    lanes_.emplace_back([this, i] {
      auto name = "sw-writer-" + std::to_string(i);
      pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
      run_lane();
    });
}

commit_writer::~commit_writer() {
  stop();
}

bool commit_writer::submit(checkpoint cp, commit_ack_receiver reply_to, uint64_t tag) {
  // On the submitting actor's thread: the writer thread is the one that
  // every checkpoint waits for, so its work is kept to the store's calls.
  if (!cp.prepared)
    cp.prepared = store_->prepare(cp);
  bool wake;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_)
      return false;
    // Also when a lingering batch fills.
    wake = queue_.empty() || queue_.size() + 1 == opts_.linger_batch;
    queue_.emplace_back(std::move(cp));
    waiting_.push_back(item{std::move(reply_to), tag});
  }
  if (wake)
    cv_.notify_all(); // the first thread waits for other things too
  return true;
}

void commit_writer::enable_admission(admission_limits limits) {
  std::lock_guard<std::mutex> guard{mtx_};
  limits_ = std::make_shared<const admission_limits>(std::move(limits));
}

void commit_writer::request_admission() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (admission_wanted_)
      return;
    admission_wanted_ = true;
  }
  cv_.notify_all(); // the first thread runs rounds; lane threads wait on the same cv
}

bool commit_writer::admission_round() {
  std::shared_ptr<const admission_limits> limits;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    admission_wanted_ = false;
    limits = limits_;
  }
  auto res = store_->admit(*limits, clock_->now());
  if (!res) {
    metrics_.commit_errors.fetch_add(1, std::memory_order_relaxed);
    health_.failed("admission round", res.error(), "trying again", clock_->monotonic());
    std::lock_guard<std::mutex> guard{mtx_};
    admission_wanted_ = true;
    return false;
  }
  last_answer_ = clock_->monotonic();
  health_.answered(last_answer_);
  if (!res->events.empty())
    caf::anon_send(out_.events, event_batch{std::move(res->events)});
  caf::anon_send(out_.engine, std::move(*res));
  return true;
}

void commit_writer::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : lanes_)
    if (t.joinable())
      t.join();
  if (thread_.joinable())
    thread_.join();
}

std::string commit_writer::fault() const {
  return health_.fault();
}

size_t commit_writer::backlog() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return queue_.size();
}

caf::error commit_writer::refusal(size_t waiting) const {
  if (auto why = health_.fault(); !why.empty())
    return make_error(errc::store_failure,
                      "the store fails, nothing was written (try again later): " + why);
  if (opts_.max_backlog == 0)
    return caf::none;
  auto queued = backlog() + waiting;
  if (queued < opts_.max_backlog)
    return caf::none;
  return make_error(errc::overloaded, "the store is behind: " + std::to_string(queued)
                                        + " checkpoints and starts wait to be written (max backlog "
                                        + std::to_string(opts_.max_backlog)
                                        + "); nothing was written, try again later");
}

void commit_writer::probe() {
  auto err = store_->ping();
  auto now = clock_->monotonic();
  last_answer_ = now; // also after a failure: the next probe is a period later
  if (err)
    health_.failed("ping", err,
                   "asking again in " + std::to_string(opts_.probe_every.count()) + " ms", now);
  else
    health_.answered(now);
}

commit_writer::try_result commit_writer::write_try(std::vector<checkpoint>& batch,
                                                   std::vector<item>& replies, uint64_t began_under,
                                                   std::chrono::milliseconds retry_in) {
  auto t0 = clock_->monotonic();
  auto owner = keeper_ ? keeper_->owner() : std::string{};
  if (keeper_ && keeper_->epoch() != began_under) {
    // First tried under a lease found lost since: written then, if at all
    // (a retry would be told so, and taken for a write under the next
    // lease). Its actors are stopped; whoever claims the operations
    // resumes them.
    for (auto& x : replies)
      caf::anon_send(x.reply_to, commit_ack{x.tag, write_status::stale_revision, 0});
    return try_result::fenced;
  }
  // Answered in the store's order: the events of concurrent commits
  // reach the sink by their seqs.
  auto err = store_->commit_then(batch, [&](commit_result& res) {
    auto t1 = clock_->monotonic();
    if (keeper_ && res.renewed_lease)
      keeper_->renewed(t0);
    last_answer_ = t1;
    health_.answered(t1);
    metrics_.commits.fetch_add(1, std::memory_order_relaxed);
    metrics_.commit_latency_seconds.observe(std::chrono::duration<double>(t1 - t0).count());
    metrics_.commit_batch_size.observe(static_cast<double>(batch.size()));
    for (size_t i = 0; i < replies.size(); ++i)
      caf::anon_send(replies[i].reply_to, commit_ack{replies[i].tag, res.status[i], began_under});
    if (!res.events.empty())
      caf::anon_send(out_.events, event_batch{std::move(res.events)});
  });
  if (!err)
    return try_result::written;
  if (keeper_ && is_lease_lost(err)) {
    // Retrying cannot help: another process owns these operations now.
    lease_lost(replies, owner);
    return try_result::fenced;
  }
  // Nothing of the batch was written, or the store will tell on the
  // retry: keep it and try again. The senders wait; none of them is told
  // "done" or "failed".
  metrics_.commit_errors.fetch_add(1, std::memory_order_relaxed);
  health_.failed("commit of " + std::to_string(batch.size()) + " checkpoints", err,
                 "retrying in " + std::to_string(retry_in.count()) + " ms", clock_->monotonic());
  return try_result::failed;
}

bool commit_writer::write(std::vector<checkpoint>& batch, std::vector<item>& replies) {
  auto backoff = std::chrono::milliseconds(10);
  auto began_under = keeper_ ? keeper_->epoch() : 0;
  while (write_try(batch, replies, began_under, backoff) == try_result::failed) {
    // Shutting down with a store that does not answer: the batch was never
    // acknowledged, so dropping it loses nothing promised.
    if (!pause(backoff))
      return false;
    // Capped low: a store that is back should be used at once, and a
    // failed attempt against one that is not costs next to nothing.
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  return true;
}

bool commit_writer::write_once() {
  if (held_.empty()) {
    std::lock_guard<std::mutex> guard{mtx_};
    if (queue_.empty())
      return false;
    take(held_, held_replies_);
    held_epoch_ = keeper_ ? keeper_->epoch() : 0;
  }
  if (write_try(held_, held_replies_, held_epoch_, std::chrono::milliseconds(10))
      != try_result::failed) {
    held_.clear();
    held_replies_.clear();
  }
  return true;
}

bool commit_writer::has_work() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return !held_.empty() || !queue_.empty();
}

bool commit_writer::admission_due() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return admission_wanted_ && held_.empty();
}

bool commit_writer::admit_once() {
  if (!admission_due())
    return false;
  admission_round();
  return true;
}

void commit_writer::take(std::vector<checkpoint>& batch, std::vector<item>& replies) {
  if (queue_.size() <= opts_.max_batch) {
    batch.swap(queue_);
    replies.swap(waiting_);
    return;
  }
  auto n = static_cast<std::ptrdiff_t>(opts_.max_batch);
  batch.assign(std::make_move_iterator(queue_.begin()),
               std::make_move_iterator(queue_.begin() + n));
  queue_.erase(queue_.begin(), queue_.begin() + n);
  replies.assign(waiting_.begin(), waiting_.begin() + n);
  waiting_.erase(waiting_.begin(), waiting_.begin() + n);
}

void commit_writer::linger(std::unique_lock<std::mutex>& guard) {
  if (opts_.linger <= duration{0} || queue_.size() >= opts_.linger_batch)
    return;
  auto live = metrics_.operations_live.load(std::memory_order_relaxed);
  if (live < 4 * static_cast<int64_t>(queue_.size()))
    return;
  // In quarters: once a quarter brings nothing more, the trickle stopped
  // (the tail of a burst) and waiting longer only adds latency.
  auto quarter = opts_.linger / 4;
  for (int i = 0; i < 4; ++i) {
    auto before = queue_.size();
    auto done = [this] {
      return stopping_ || queue_.size() >= opts_.linger_batch || admission_wanted_
             || rejoin_wanted_.load();
    };
    if (cv_.wait_for(guard, quarter, done) || queue_.size() == before)
      return;
  }
}

void commit_writer::run_lane() {
  std::vector<checkpoint> batch;
  std::vector<item> replies;
  for (;;) {
    {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait(guard, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        break; // stopping, and nothing left
      take(batch, replies);
    }
    if (!write(batch, replies))
      break;
    batch.clear();
    replies.clear();
  }
  std::lock_guard<std::mutex> guard{mtx_};
  lanes_running_ -= 1;
  cv_.notify_all();
}

void commit_writer::run() {
  std::vector<checkpoint> batch;
  std::vector<item> replies;
  for (;;) {
    {
      std::unique_lock<std::mutex> guard{mtx_};
      auto ready = [this] {
        return stopping_ || !queue_.empty() || admission_wanted_ || rejoin_wanted_.load()
               || (claim_wanted_.load() && joined_.load());
      };
      duration until = last_answer_.load() + opts_.probe_every;
      if (keeper_)
        until = std::min(until, keeper_->next_claim());
      // A wait for a reading of the engine's clock: woken early by new
      // work, and looking again after the wait whatever the clock did.
      cv_.wait_for(guard, std::max(duration{0}, until - clock_->monotonic()), ready);
      if (queue_.empty()) {
        if (stopping_)
          break;
        auto admit = admission_wanted_;
        guard.unlock();
        if (admit && !admission_round()) {
          // The store did not answer: give it a moment, as for commits.
          if (!pause(std::chrono::milliseconds(100)))
            break;
          continue;
        }
        // Idle: join again when asked, claim when due (it renews the lease
        // too), else ask the store whether it answers once nothing did
        // for a while.
        auto now = clock_->monotonic();
        if (keeper_ && rejoin_wanted_.load())
          join_again();
        else if (keeper_ && joined_.load()
                 && (claim_wanted_.load() || now >= keeper_->next_claim()))
          lease_tick();
        else if (!admit && now >= last_answer_.load() + opts_.probe_every)
          probe();
        continue;
      }
      linger(guard);
      take(batch, replies);
    }
    if (!write(batch, replies))
      return;
    batch.clear();
    replies.clear();
    // Under constant load the queue never runs dry: admit between commits
    // (a failed round is tried again after the next commit).
    bool admit;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      admit = admission_wanted_;
    }
    if (admit)
      admission_round();
    // Under constant load the queue never runs dry: claim between commits.
    if (keeper_ && rejoin_wanted_.load())
      join_again();
    else if (keeper_ && joined_.load() && (claim_wanted_.load() || keeper_->claim_due()))
      lease_tick();
  }
  if (keeper_) {
    // After the last commit (of every lane): the others may take what is
    // left at once.
    {
      std::unique_lock<std::mutex> guard{mtx_};
      cv_.wait(guard, [this] { return lanes_running_ == 0; });
    }
    if (auto err = keeper_->leave())
      write_log(opts_.log, log_level::warn,
                "leaving the lease failed (it expires instead): " + message_of(err));
  }
}

} // namespace stepwise
