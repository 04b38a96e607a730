#include "actors/commit_writer.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include <caf/send.hpp>
#include <pthread.h>

#include "actors/messages.hpp"
#include "engine/errc.hpp"

namespace stepwise {

commit_writer::commit_writer(store_ptr st, caf::actor events_sink, metrics& m,
                             size_t max_batch,
                             std::shared_ptr<lease_keeper> keeper)
  : store_(std::move(st)),
    events_sink_(std::move(events_sink)),
    metrics_(m),
    max_batch_(std::max<size_t>(1, max_batch)),
    keeper_(std::move(keeper)) {
  thread_ = std::thread{[this] {
    pthread_setname_np(pthread_self(), "sw-writer");
    run();
  }};
}

commit_writer::~commit_writer() {
  stop();
}

bool commit_writer::submit(checkpoint cp, caf::actor reply_to, uint64_t tag) {
  bool wake;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_)
      return false;
    wake = queue_.empty();
    queue_.emplace_back(std::move(cp));
    waiting_.push_back(item{std::move(reply_to), tag});
  }
  if (wake)
    cv_.notify_one();
  return true;
}

void commit_writer::enable_admission(admission_limits limits, std::shared_ptr<clock> clk) {
  std::lock_guard<std::mutex> guard{mtx_};
  limits_ = std::move(limits);
  clock_ = std::move(clk);
}

void commit_writer::request_admission() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (admission_wanted_)
      return;
    admission_wanted_ = true;
  }
  cv_.notify_one();
}

bool commit_writer::admission_round() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    admission_wanted_ = false;
  }
  auto res = store_->admit(limits_, clock_->now());
  if (!res) {
    metrics_.commit_errors.fetch_add(1, std::memory_order_relaxed);
    std::cerr << "stepwise: admission round failed, trying again: "
              << message_of(res.error()) << '\n';
    std::lock_guard<std::mutex> guard{mtx_};
    admission_wanted_ = true;
    return false;
  }
  if (!res->events.empty())
    caf::anon_send(events_sink_, event_batch{std::move(res->events)});
  caf::anon_send(events_sink_, std::move(*res));
  return true;
}

void commit_writer::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

bool commit_writer::healthy() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return healthy_;
}

void commit_writer::run() {
  std::vector<checkpoint> batch;
  std::vector<item> replies;
  auto backoff = std::chrono::milliseconds(10);
  for (;;) {
    {
      std::unique_lock<std::mutex> guard{mtx_};
      auto ready = [this] { return stopping_ || !queue_.empty() || admission_wanted_; };
      if (keeper_)
        cv_.wait_until(guard, keeper_->next_claim(), ready);
      else
        cv_.wait(guard, ready);
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
        if (keeper_ && (!admit || std::chrono::steady_clock::now() >= keeper_->next_claim()))
          lease_tick(); // idle: the claim renews the lease as well
        continue;
      }
      if (queue_.size() <= max_batch_) {
        batch.swap(queue_);
        replies.swap(waiting_);
      } else {
        auto n = static_cast<std::ptrdiff_t>(max_batch_);
        batch.assign(std::make_move_iterator(queue_.begin()),
                     std::make_move_iterator(queue_.begin() + n));
        queue_.erase(queue_.begin(), queue_.begin() + n);
        replies.assign(waiting_.begin(), waiting_.begin() + n);
        waiting_.erase(waiting_.begin(), waiting_.begin() + n);
      }
    }
    for (;;) {
      auto t0 = std::chrono::steady_clock::now();
      auto res = store_->commit(batch);
      auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (res) {
        if (keeper_)
          keeper_->renewed(t0); // every commit renews the lease
        metrics_.commits.fetch_add(1, std::memory_order_relaxed);
        metrics_.commit_latency_seconds.observe(secs);
        metrics_.commit_batch_size.observe(static_cast<double>(batch.size()));
        {
          std::lock_guard<std::mutex> guard{mtx_};
          healthy_ = true;
        }
        for (size_t i = 0; i < replies.size(); ++i)
          caf::anon_send(replies[i].reply_to,
                         commit_ack{replies[i].tag, res->status[i]});
        if (!res->events.empty())
          caf::anon_send(events_sink_, event_batch{std::move(res->events)});
        backoff = std::chrono::milliseconds(10);
        break;
      }
      if (keeper_ && is_lease_lost(res.error())) {
        // Retrying cannot help: another process owns these operations now.
        lease_lost(replies);
        break;
      }
      // Nothing of the batch was written: keep it and try again. The
      // senders wait; none of them is told "done" or "failed".
      metrics_.commit_errors.fetch_add(1, std::memory_order_relaxed);
      std::cerr << "stepwise: commit of " << batch.size()
                << " checkpoints failed, retrying in " << backoff.count()
                << " ms: " << message_of(res.error()) << '\n';
      {
        std::unique_lock<std::mutex> guard{mtx_};
        healthy_ = false;
        if (cv_.wait_for(guard, backoff, [this] { return stopping_; })) {
          // Shutting down with a store that does not answer: the batch
          // was never acknowledged, so dropping it loses nothing promised.
          return;
        }
      }
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
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
    if (keeper_ && std::chrono::steady_clock::now() >= keeper_->next_claim())
      lease_tick();
  }
  if (keeper_) {
    // After the last commit: the others may take what is left at once.
    if (auto err = keeper_->leave())
      std::cerr << "stepwise: leaving the lease failed (it expires instead): "
                << message_of(err) << '\n';
  }
}

} // namespace stepwise
