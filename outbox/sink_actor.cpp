#include "outbox/sink_actor.hpp"

#include <algorithm>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "outbox/sink_runner.hpp"

namespace stepwise::outbox {

namespace detail {

runner::runner(sink_runner_actor::pointer self, std::shared_ptr<const sink_context> ctx)
  : self_(self),
    ctx_(std::move(ctx)),
    pipe_(ctx_->cfg.filter),
    backoff_(ctx_->timing.backoff_initial),
    rng_(std::hash<std::string>{}(ctx_->holder + ctx_->cfg.name)) {
  // nop
}

void runner::start() {
  acquire();
  on_tick(++tick_gen_);
}

void runner::on_wake(int64_t seq) {
  known_last_ = std::max(known_last_, seq);
  ctx_->stats->known_last.store(known_last_, std::memory_order_relaxed);
  pump();
}

void runner::on_tick(uint64_t gen) {
  if (gen != tick_gen_ || stopping_)
    return;
  auto t = ctx_->timing;
  auto every = std::min(t.poll, t.lease_ttl / 3);
  ctx_->clock->send_at(now() + every, self_, ob_tick_atom::value, gen);
  if (!held_) {
    acquire();
    return;
  }
  poll_due_ = true;
  pump();
}

void runner::on_acquired(acquired& a) {
  acquiring_ = false;
  if (a.epoch != epoch_ || stopping_)
    return;
  if (a.err) {
    warn_once("cannot take the sink: " + message_of(a.err));
    return;
  }
  if (!a.cursor)
    return; // another process delivers it; the tick asks again
  held_ = true;
  ++epoch_;
  renewed_at_ = a.asked_at;
  durable_ = *a.cursor;
  pipe_.reset(*a.cursor);
  poll_due_ = true;
  publish();
  pump();
}

void runner::on_poll(uint64_t epoch) {
  poll_armed_ = false;
  if (epoch != epoch_)
    return;
  poll_due_ = true;
  pump();
}

void runner::on_read(read_done& r) {
  reading_ = false;
  if (r.epoch != epoch_ || !held_)
    return;
  if (r.err) {
    warn_once("reading the log failed (retried): " + message_of(r.err));
    return; // the next tick reads again
  }
  // While reads find events, read on without waiting for a wake-up: the
  // engine's wake-ups queue behind its busiest work (a burst of requests
  // ahead of them in its mailbox). Shortly after, poll at `busy_poll`.
  if (!r.events.empty()) {
    known_last_ = std::max(known_last_, r.events.back().ev.seq);
    ctx_->stats->known_last.store(known_last_, std::memory_order_relaxed);
    found_at_ = now();
    poll_due_ = true;
  } else if (now() < found_at_ + ctx_->timing.busy_for && !poll_armed_) {
    poll_armed_ = true;
    ctx_->clock->send_at(now() + ctx_->timing.busy_poll, self_, ob_poll_atom::value, epoch_);
  }
  pipe_.add(r.events);
  publish();
  pump();
}

void runner::on_sent(sent& s) {
  if (s.epoch != epoch_)
    return;
  auto& stats = *ctx_->stats;
  if (!s.err) {
    auto events = pipe_.acked(s.batch);
    if (events)
      record_delivery(*events);
    if (failures_ > 0) {
      if (failure_logged_)
        ctx_->warn("sink '" + ctx_->cfg.name + "' delivers again after " + std::to_string(failures_)
                   + " failed attempts");
      failure_logged_ = false;
      failures_ = 0;
      backoff_ = ctx_->timing.backoff_initial;
      error_to_store_ = std::string{};
    }
  } else {
    pipe_.failed(s.batch);
    auto msg = scrub(message_of(s.err), ctx_->secrets);
    stats.failed.fetch_add(1, std::memory_order_relaxed);
    stats.note_failure(msg);
    error_to_store_ = msg;
    if (!backing_off_)
      back_off(msg);
  }
  if (backing_off_ && retry_due_ && pipe_.in_flight() == 0)
    resume();
  publish();
  pump();
}

void runner::on_retry(uint64_t gen) {
  if (gen != retry_gen_ || !backing_off_)
    return;
  retry_due_ = true;
  if (pipe_.in_flight() == 0)
    resume();
  pump();
}

void runner::on_saved(saved& s) {
  saving_ = false;
  if (s.epoch != epoch_)
    return;
  if (!s.err) {
    durable_ = std::max(durable_, s.cursor);
    renewed_at_ = s.asked_at;
    saved_at_ = now();
    if (s.error && error_to_store_ == *s.error)
      error_to_store_.reset();
  } else if (code_of(s.err) == errc::stale_revision) {
    lose_lease();
  } else {
    warn_once("writing the cursor failed (retried): " + message_of(s.err));
  }
  pump();
}

void runner::back_off(const std::string& msg) {
  backing_off_ = true;
  retry_due_ = false;
  ++failures_;
  auto& t = ctx_->timing;
  std::uniform_real_distribution<double> jitter{0.8, 1.0};
  auto wait = std::chrono::duration_cast<duration>(backoff_ * jitter(rng_));
  backoff_ = std::min(backoff_ * 2, t.backoff_max);
  // A receiver that fails now and then would fill the log: one line per
  // streak of failures, at most one every minute.
  if (failures_ == 1
      && (!failure_logged_at_ || now() >= *failure_logged_at_ + std::chrono::minutes(1))) {
    ctx_->warn("sink '" + ctx_->cfg.name
               + "': delivery failed, retrying with "
                 "backoff: "
               + msg);
    failure_logged_ = true;
    failure_logged_at_ = now();
  }
  ctx_->clock->send_at(now() + wait, self_, ob_retry_atom::value, ++retry_gen_);
}

void runner::resume() {
  pipe_.requeue();
  backing_off_ = false;
  retry_due_ = false;
}

void runner::lose_lease() {
  ctx_->warn("sink '" + ctx_->cfg.name
             + "': lease lost, another process "
               "delivers it now");
  held_ = false;
  ++epoch_;
  backing_off_ = false;
  pipe_.reset(durable_);
  publish();
}

void runner::warn_once(const std::string& msg) {
  auto text = "sink '" + ctx_->cfg.name + "': " + scrub(msg, ctx_->secrets);
  if (text != last_warning_)
    ctx_->warn(text);
  last_warning_ = text;
}

} // namespace detail

namespace {

sink_runner_actor::behavior_type deliver_sink(sink_runner_actor::pointer self,
                                              std::shared_ptr<const sink_context> ctx) {
  auto r = std::make_shared<detail::runner>(self, std::move(ctx));
  auto stop = std::make_shared<caf::typed_response_promise<bool>>();
  r->start();
  return {
    [r](ob_wake_atom, int64_t seq) { r->on_wake(seq); },
    [r](ob_tick_atom, uint64_t gen) { r->on_tick(gen); },
    [r](ob_retry_atom, uint64_t gen) { r->on_retry(gen); },
    [r](ob_poll_atom, uint64_t epoch) { r->on_poll(epoch); },
    [r](acquired& a) { r->on_acquired(a); },
    [r](read_done& x) { r->on_read(x); },
    [r](sent& s) { r->on_sent(s); },
    [r](saved& s) { r->on_saved(s); },
    [self, r, stop](ob_stop_atom) -> caf::result<bool> {
      *stop = self->make_response_promise<bool>();
      r->on_stop();
      return *stop;
    },
    [self, stop](ob_done_atom) {
      if (stop->pending())
        stop->deliver(true);
      self->quit();
    },
  };
}

} // namespace

sink_actor spawn_sink(caf::actor_system& sys, std::shared_ptr<const sink_context> ctx) {
  return sys.spawn<caf::detached>(deliver_sink, std::move(ctx));
}

} // namespace stepwise::outbox
