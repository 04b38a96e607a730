// The sink actor's work: its store calls run as jobs on the outbox's pool
// and answer with messages; batches go to the destination; the figures go
// to the shared stats. Every function runs on the actor.

#include <algorithm>

#include <caf/send.hpp>

#include "engine/errc.hpp"
#include "engine/redact.hpp"
#include "outbox/sink_runner.hpp"

namespace stepwise::outbox::detail {

namespace {

// Reads the next page after `after`. Looking up each event's workflow
// costs more than reading the event (2.4 against 1.6 µs an event on
// SQLite): only a sink that filters by workflow pays for it.
caf::expected<std::vector<routed_event>> read_log(const sink_context& ctx, int64_t after) {
  auto limit = ctx.timing.read_batch;
  if (!ctx.cfg.filter.workflows.empty())
    return ctx.sinks->routed_events_after(after, limit);
  auto plain = ctx.st->events_after(after, limit);
  if (!plain)
    return std::move(plain.error());
  std::vector<routed_event> out;
  out.reserve(plain->size());
  for (auto& e : *plain)
    out.push_back(routed_event{std::move(e), {}});
  return out;
}

} // namespace

void runner::on_stop() {
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
    auto err =
      ctx->sinks->update_sink(name, ctx->holder, ctx->timing.lease_ttl, {cursor, std::nullopt});
    if (!err)
      err = ctx->sinks->release_sink(name, ctx->holder);
    if (err)
      ctx->warn("sink '" + name
                + "': the last cursor write failed (its "
                  "events are delivered again): "
                + message_of(err));
    caf::anon_send(me, ob_done_atom::value);
  };
  ctx_->pool->post(std::move(job));
}

sink_runner_actor runner::me() const {
  return sink_runner_actor{self_};
}

time_point runner::now() const {
  return ctx_->clock->now();
}

bool runner::lease_safe() const {
  return ctx_->steal || now() < renewed_at_ + ctx_->timing.lease_ttl * 9 / 10;
}

void runner::acquire() {
  if (acquiring_ || held_ || stopping_)
    return;
  acquiring_ = true;
  auto job = [ctx = ctx_, me = me(), epoch = epoch_] {
    acquired a;
    a.epoch = epoch;
    a.asked_at = ctx->clock->now();
    auto res = ctx->sinks->acquire_sink(ctx->cfg.name, ctx->holder, ctx->timing.lease_ttl,
                                        ctx->cfg.start, ctx->steal);
    if (res)
      a.cursor = *res;
    else
      a.err = std::move(res.error());
    caf::anon_send(me, std::move(a));
  };
  ctx_->pool->post(std::move(job));
}

void runner::pump() {
  if (!held_ || stopping_)
    return;
  // Sending first empties the waiting queue into the destination's
  // window, so that the next page is read while those are in flight.
  send_more();
  read_more();
  save();
}

void runner::read_more() {
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
    auto res = read_log(*ctx, after);
    if (res)
      r.events = std::move(*res);
    else
      r.err = std::move(res.error());
    caf::anon_send(me, std::move(r));
  };
  ctx_->pool->post(std::move(job));
}

void runner::send_more() {
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

void runner::save() {
  if (saving_)
    return;
  auto& t = ctx_->timing;
  auto c = pipe_.confirmed();
  auto moved = c > durable_;
  auto due = (moved && (pipe_.idle() || now() >= saved_at_ + t.cursor_interval))
             || error_to_store_.has_value() || now() >= renewed_at_ + t.lease_ttl / 3;
  if (!due)
    return;
  saving_ = true;
  auto job = [ctx = ctx_, me = me(), epoch = epoch_, c, err = error_to_store_] {
    saved s{epoch, caf::error{}, c, err, ctx->clock->now()};
    s.err = ctx->sinks->update_sink(ctx->cfg.name, ctx->holder, ctx->timing.lease_ttl, {c, err});
    caf::anon_send(me, std::move(s));
  };
  ctx_->pool->post(std::move(job));
}

void runner::record_delivery(const std::vector<event>& events) {
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
  stats.note_delivery(t);
}

void runner::publish() {
  auto& stats = *ctx_->stats;
  stats.held.store(held_, std::memory_order_relaxed);
  stats.confirmed.store(held_ ? pipe_.confirmed() : durable_, std::memory_order_relaxed);
}

} // namespace stepwise::outbox::detail
