#include "outbox/sink_actor.hpp"

#include <algorithm>
#include <random>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "outbox/messages.hpp"
#include "outbox/pipeline.hpp"

namespace stepwise::outbox {

namespace {

/// The state and steps of one sink; its handlers run on the actor.
class runner {
public:
  runner(caf::event_based_actor* self, std::shared_ptr<const sink_context> ctx)
    : self_(self),
      ctx_(std::move(ctx)),
      pipe_(ctx_->cfg.filter),
      backoff_(ctx_->timing.backoff_initial),
      rng_(std::hash<std::string>{}(ctx_->holder + ctx_->cfg.name)) {
    // nop
  }

  // -- events ------------------------------------------------------------------

  void start() {
    acquire();
    on_tick(++tick_gen_);
  }

  void on_wake(int64_t seq) {
    known_last_ = std::max(known_last_, seq);
    ctx_->stats->known_last.store(known_last_, std::memory_order_relaxed);
    pump();
  }

  void on_tick(uint64_t gen) {
    if (gen != tick_gen_ || stopping_)
      return;
    auto t = ctx_->timing;
    auto every = std::min(t.poll, t.lease_ttl / 3);
    ctx_->clock->schedule(now() + every, me(),
                          caf::make_message(ob_tick_atom::value, gen));
    if (!held_) {
      acquire();
      return;
    }
    poll_due_ = true;
    pump();
  }

  void on_acquired(acquired& a) {
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

  void on_read(read_done& r) {
    reading_ = false;
    if (r.epoch != epoch_ || !held_)
      return;
    if (r.err) {
      warn_once("reading the log failed (retried): " + message_of(r.err));
      return; // the next tick reads again
    }
    if (!r.events.empty()) {
      known_last_ = std::max(known_last_, r.events.back().ev.seq);
      ctx_->stats->known_last.store(known_last_, std::memory_order_relaxed);
    }
    // A full page: more may follow even without a wake-up.
    poll_due_ = r.events.size() >= ctx_->timing.read_batch;
    pipe_.add(r.events);
    publish();
    pump();
  }

  void on_sent(sent& s) {
    if (s.epoch != epoch_)
      return;
    auto& stats = *ctx_->stats;
    if (!s.err) {
      auto events = pipe_.acked(s.batch);
      if (events)
        record_delivery(*events);
      if (failures_ > 0) {
        ctx_->warn("sink '" + ctx_->cfg.name + "' delivers again after "
                   + std::to_string(failures_) + " failed attempts");
        failures_ = 0;
        backoff_ = ctx_->timing.backoff_initial;
        error_to_store_ = std::string{};
      }
    } else {
      pipe_.failed(s.batch);
      auto msg = scrub(message_of(s.err), ctx_->secrets);
      stats.failed.fetch_add(1, std::memory_order_relaxed);
      stats.failed_with(msg);
      error_to_store_ = msg;
      if (!backing_off_)
        back_off(msg);
    }
    if (backing_off_ && retry_due_ && pipe_.in_flight() == 0)
      resume();
    publish();
    pump();
  }

  void on_retry(uint64_t gen) {
    if (gen != retry_gen_ || !backing_off_)
      return;
    retry_due_ = true;
    if (pipe_.in_flight() == 0)
      resume();
    pump();
  }

  void on_saved(saved& s) {
    saving_ = false;
    if (s.epoch != epoch_)
      return;
    if (!s.err) {
      durable_ = std::max(durable_, s.cursor);
      renewed_at_ = s.asked_at;
      saved_at_ = now();
      if (s.error && error_to_store_ == *s.error)
        error_to_store_.reset();
    } else if (code_of(s.err) == static_cast<uint8_t>(errc::stale_revision)) {
      lose_lease();
    } else {
      warn_once("writing the cursor failed (retried): " + message_of(s.err));
    }
    pump();
  }

  /// Stops sending; once the cursor is written and the lease released (at
  /// once without a lease) the actor gets `ob_done_atom` and quits.
  void on_stop() {
    stopping_ = true;
    ++tick_gen_;
    ++retry_gen_;
    if (!held_) {
      caf::anon_send(me(), ob_done_atom::value);
      return;
    }
    held_ = false;
    publish();
    auto job = [ctx = ctx_, me = me(), cursor = pipe_.confirmed()] {
      auto& name = ctx->cfg.name;
      auto err = ctx->sinks->update_sink(name, ctx->holder, ctx->timing.lease_ttl,
                                         {cursor, std::nullopt});
      if (!err)
        err = ctx->sinks->release_sink(name, ctx->holder);
      if (err)
        ctx->warn("sink '" + name + "': the last cursor write failed (its "
                  "events are delivered again): " + message_of(err));
      caf::anon_send(me, ob_done_atom::value);
    };
    ctx_->pool->post(std::move(job));
  }

private:
  // -- the work ------------------------------------------------------------------

  caf::actor me() const {
    return caf::actor_cast<caf::actor>(self_);
  }

  time_point now() const {
    return ctx_->clock->now();
  }

  /// Whether the lease surely still holds: in a shared store, no new batch
  /// goes out once no renewal succeeded for 0.9 ttl.
  bool lease_safe() const {
    return ctx_->steal || now() < renewed_at_ + ctx_->timing.lease_ttl * 9 / 10;
  }

  void acquire() {
    if (acquiring_ || held_ || stopping_)
      return;
    acquiring_ = true;
    auto job = [ctx = ctx_, me = me(), epoch = epoch_] {
      acquired a;
      a.epoch = epoch;
      a.asked_at = ctx->clock->now();
      auto res = ctx->sinks->acquire_sink(ctx->cfg.name, ctx->holder,
                                          ctx->timing.lease_ttl, ctx->cfg.start,
                                          ctx->steal);
      if (res)
        a.cursor = *res;
      else
        a.err = std::move(res.error());
      caf::anon_send(me, std::move(a));
    };
    ctx_->pool->post(std::move(job));
  }

  void pump() {
    if (!held_ || stopping_)
      return;
    read_more();
    send_more();
    save();
  }

  void read_more() {
    auto& t = ctx_->timing;
    if (reading_ || pipe_.waiting() >= t.read_batch)
      return;
    if (pipe_.read_pos() >= known_last_ && !poll_due_)
      return;
    reading_ = true;
    poll_due_ = false;
    auto job = [ctx = ctx_, me = me(), epoch = epoch_, after = pipe_.read_pos()] {
      read_done r;
      r.epoch = epoch;
      auto res = ctx->sinks->routed_events_after(after, ctx->timing.read_batch);
      if (res)
        r.events = std::move(*res);
      else
        r.err = std::move(res.error());
      caf::anon_send(me, std::move(r));
    };
    ctx_->pool->post(std::move(job));
  }

  void send_more() {
    if (backing_off_ || !lease_safe())
      return;
    auto& dest = *ctx_->dest;
    while (pipe_.in_flight() < dest.window()) {
      auto out = pipe_.take(dest.max_batch());
      if (!out)
        return;
      dest.send(out->events, [me = me(), epoch = epoch_, id = out->id](caf::error err) {
        caf::anon_send(me, sent{epoch, id, std::move(err)});
      });
    }
  }

  /// Writes the cursor (which also renews the lease) when it moved and
  /// either the sink is idle or `cursor_interval` passed, when an error
  /// is to be recorded, or when the lease is due for renewal.
  void save() {
    if (saving_)
      return;
    auto& t = ctx_->timing;
    auto c = pipe_.confirmed();
    auto moved = c > durable_;
    auto due = (moved && (pipe_.idle() || now() >= saved_at_ + t.cursor_interval))
               || error_to_store_.has_value()
               || now() >= renewed_at_ + t.lease_ttl / 3;
    if (!due)
      return;
    saving_ = true;
    auto job = [ctx = ctx_, me = me(), epoch = epoch_, c, err = error_to_store_] {
      saved s;
      s.epoch = epoch;
      s.cursor = c;
      s.error = err;
      s.asked_at = ctx->clock->now();
      s.err = ctx->sinks->update_sink(ctx->cfg.name, ctx->holder,
                                      ctx->timing.lease_ttl, {c, err});
      caf::anon_send(me, std::move(s));
    };
    ctx_->pool->post(std::move(job));
  }

  void record_delivery(const std::vector<event>& events) {
    auto& stats = *ctx_->stats;
    auto t = now();
    std::vector<double> lags;
    lags.reserve(events.size());
    for (auto& e : events) {
      auto secs = std::chrono::duration<double>(t - e.time).count();
      stats.lag_seconds.observe(std::max(0.0, secs));
      lags.push_back(secs * 1000.0);
    }
    stats.add_lags(lags);
    stats.delivered.fetch_add(events.size(), std::memory_order_relaxed);
    stats.delivered_at(t);
  }

  void back_off(const std::string& msg) {
    backing_off_ = true;
    retry_due_ = false;
    ++failures_;
    auto& t = ctx_->timing;
    std::uniform_real_distribution<double> jitter{0.8, 1.0};
    auto wait = std::chrono::duration_cast<duration>(backoff_ * jitter(rng_));
    backoff_ = std::min(backoff_ * 2, t.backoff_max);
    if (failures_ == 1)
      ctx_->warn("sink '" + ctx_->cfg.name + "': delivery failed, retrying with "
                 "backoff: " + msg);
    ctx_->clock->schedule(now() + wait, me(),
                          caf::make_message(ob_retry_atom::value, ++retry_gen_));
  }

  /// Sends the failed batches again, oldest first.
  void resume() {
    pipe_.requeue();
    backing_off_ = false;
    retry_due_ = false;
  }

  void lose_lease() {
    ctx_->warn("sink '" + ctx_->cfg.name + "': lease lost, another process "
               "delivers it now");
    held_ = false;
    ++epoch_;
    backing_off_ = false;
    pipe_.reset(durable_);
    publish();
  }

  void warn_once(const std::string& msg) {
    auto text = "sink '" + ctx_->cfg.name + "': " + scrub(msg, ctx_->secrets);
    if (text != last_warning_)
      ctx_->warn(text);
    last_warning_ = text;
  }

  void publish() {
    auto& stats = *ctx_->stats;
    stats.held.store(held_, std::memory_order_relaxed);
    stats.confirmed.store(held_ ? pipe_.confirmed() : durable_,
                          std::memory_order_relaxed);
  }

  caf::event_based_actor* self_;
  std::shared_ptr<const sink_context> ctx_;
  pipeline pipe_;
  /// Bumped when the lease is taken or lost: answers of an older epoch
  /// belong to work of a lease since lost, and are dropped.
  uint64_t epoch_ = 0;
  uint64_t tick_gen_ = 0;
  uint64_t retry_gen_ = 0;
  bool held_ = false;
  bool acquiring_ = false;
  bool reading_ = false;
  bool saving_ = false;
  bool poll_due_ = false;
  bool backing_off_ = false;
  bool retry_due_ = false;
  bool stopping_ = false;
  int64_t known_last_ = 0;
  /// The cursor as stored.
  int64_t durable_ = 0;
  time_point renewed_at_;
  time_point saved_at_;
  /// An error (or its clearing, "") not yet written to the store.
  std::optional<std::string> error_to_store_;
  duration backoff_;
  size_t failures_ = 0;
  std::string last_warning_;
  std::minstd_rand rng_;
};

caf::behavior sink_behavior(caf::event_based_actor* self,
                            std::shared_ptr<const sink_context> ctx) {
  auto r = std::make_shared<runner>(self, std::move(ctx));
  auto stop = std::make_shared<caf::response_promise>();
  r->start();
  return {
    [r](ob_wake_atom, int64_t seq) { r->on_wake(seq); },
    [r](ob_tick_atom, uint64_t gen) { r->on_tick(gen); },
    [r](ob_retry_atom, uint64_t gen) { r->on_retry(gen); },
    [r](acquired& a) { r->on_acquired(a); },
    [r](read_done& x) { r->on_read(x); },
    [r](sent& s) { r->on_sent(s); },
    [r](saved& s) { r->on_saved(s); },
    [self, r, stop](ob_stop_atom) {
      *stop = self->make_response_promise();
      r->on_stop();
    },
    [self, stop](ob_done_atom) {
      if (stop->pending())
        stop->deliver(true);
      self->quit();
    },
  };
}

} // namespace

caf::actor spawn_sink(caf::actor_system& sys,
                      std::shared_ptr<const sink_context> ctx) {
  return sys.spawn(sink_behavior, std::move(ctx));
}

} // namespace stepwise::outbox
