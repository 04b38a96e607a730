#include "actors/step_runner.hpp"

#include <chrono>
#include <exception>

#include <caf/send.hpp>

#include "actors/messages.hpp"
#include "engine/actor_step.hpp"
#include "engine/async_call.hpp"

namespace stepwise {

namespace {

/// Runs `fn`, turning an exception into a failed outcome.
template <class F>
outcome guarded(F fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return fail(std::string{"step threw: "} + e.what());
  } catch (...) {
    return fail("step threw a non-standard exception");
  }
}

/// Returns whether the step's condition says to skip it; a condition that
/// throws does not skip (the body runs and reports).
bool skipped(const step_def& def, const step_context& ctx) {
  if (!def.condition)
    return false;
  try {
    return !(*def.condition)(ctx);
  } catch (...) {
    return false;
  }
}

void reply(const attempt_result_receiver& to, uint64_t gen, int32_t attempt, step_result res) {
  caf::anon_send(to, step_done{gen, attempt, std::make_shared<step_result>(std::move(res))});
}

/// Runs a blocking body (or compensation) on the calling thread.
step_result run_body(const step_def& def, step_context& c, bool compensate) {
  auto t0 = c.monotonic();
  bool skip = !compensate && skipped(def, c);
  auto out = skip ? done() : guarded([&] { return compensate ? def.compensate(c) : def.run(c); });
  auto res = step_result::of(c, std::move(out), t0);
  res.skipped = skip;
  return res;
}

/// How often a job whose lease does not hold looks again.
constexpr auto lease_look = std::chrono::milliseconds(100);

/// What a job checks before its body runs (attempt_target::lease).
struct lease_gate {
  std::shared_ptr<lease_keeper> lease;
  uint64_t epoch = 0;
  std::weak_ptr<stepwise::clock> clk;
  std::weak_ptr<worker_pool> pool;
};

/// Submits `j` to the gate's pool, to run once the gate's lease holds.
void submit_gated(const lease_gate& gate, worker_pool::job j, int64_t rank, bool timed) {
  auto pool = gate.pool.lock();
  if (!pool)
    return;
  if (!gate.lease) {
    pool->submit(std::move(j), rank, timed);
    return;
  }
  pool->submit(
    [gate, j = std::move(j), rank, timed]() mutable {
      // Lost since it began: the attempt is no longer this process's.
      if (gate.lease->epoch() != gate.epoch)
        return;
      if (gate.lease->holds()) {
        j();
        return;
      }
      if (auto clk = gate.clk.lock())
        clk->call_at(clk->now() + std::chrono::duration_cast<duration>(lease_look),
                     [gate, j = std::move(j), rank, timed]() mutable {
                       submit_gated(gate, std::move(j), rank, timed);
                     });
    },
    rank, timed);
}

lease_gate gate_of(const attempt_target& to) {
  return lease_gate{to.lease, to.lease_epoch, to.engine_clock, to.pool};
}

void run_blocking(const attempt_target& to, workflow_ptr wf, size_t idx, step_context ctx,
                  bool compensate) {
  // std::function needs a copyable callable: keep the context behind a
  // shared_ptr rather than copying its data.
  auto shared_ctx = std::make_shared<step_context>(std::move(ctx));
  // Held weakly: a job dropped on the clock's thread (the engine stopped
  // meanwhile) must not end the actor, and with it the engine, there.
  auto me = caf::actor_cast<caf::weak_actor_ptr>(to.self);
  worker_pool::job j = [wf = std::move(wf), idx, compensate, shared_ctx, me, gen = to.generation] {
    auto& c = *shared_ctx;
    auto res = run_body(wf->steps()[idx], c, compensate);
    if (auto strong = me.lock())
      reply(caf::actor_cast<attempt_result_receiver>(strong), gen, c.attempt(), std::move(res));
  };
  auto rank = to_micros(to.due);
  auto gate = gate_of(to);
  if (to.clk == nullptr) {
    submit_gated(gate, std::move(j), rank, to.timed);
    return;
  }
  // Like a job queued behind others, it runs even if the attempt is
  // abandoned meanwhile (its result is then dropped). The pool may be gone
  // by then: the engine stopped, the attempt is run again on recovery.
  to.clk->call_at(to.due, [gate, j = std::move(j), rank, timed = to.timed]() mutable {
    submit_gated(gate, std::move(j), rank, timed);
  });
}

void start_async(const async_step_fn& fn, async_call call) {
  try {
    fn(call);
  } catch (const std::exception& e) {
    call.complete(fail(std::string{"step threw: "} + e.what()));
  } catch (...) {
    call.complete(fail("step threw a non-standard exception"));
  }
}

void run_async(const attempt_target& to, workflow_ptr wf, size_t idx, step_context ctx,
               bool compensate) {
  // A call may be completed after its process stopped (the host keeps it):
  // hold the operation weakly so that a late completion finds no actor.
  auto me = caf::actor_cast<caf::weak_actor_ptr>(to.self);
  auto gen = to.generation;
  auto attempt = ctx.attempt();
  async_call call{std::move(ctx), [me, gen, attempt](step_result res) {
                    if (auto strong = me.lock())
                      reply(caf::actor_cast<attempt_result_receiver>(strong), gen, attempt,
                            std::move(res));
                  }};
  auto& def = wf->steps()[idx];
  if (compensate) {
    start_async(def.compensate_async, std::move(call));
    return;
  }
  if (!def.start_on_worker) {
    start_async(def.start, std::move(call));
    return;
  }
  submit_gated(
    gate_of(to),
    [wf = std::move(wf), idx, call]() mutable {
      start_async(wf->steps()[idx].start, std::move(call));
    },
    to_micros(to.due), to.timed);
}

void run_actor(const attempt_target& to, const step_def& def, step_context ctx) {
  auto me = attempt_result_receiver{to.self};
  auto gen = to.generation;
  auto t0 = ctx.monotonic();
  auto shared_ctx = std::make_shared<step_context>(std::move(ctx));
  auto& c = *shared_ctx;
  step_attempt att{c.operation_id(), c.step_name(), c.attempt(), c.idempotency_key(),
                   c.input_ptr(),    c.data(),      c.stop()};
  // The step's timeout bounds the wait (the operation actor's timer), so
  // the request itself does not time out.
  to.self->request(def.actor, caf::infinite, std::move(att))
    .then(
      [me, gen, t0, shared_ctx](step_reply& r) {
        auto& c = *shared_ctx;
        if (r.data)
          c.data() = std::move(*r.data);
        for (auto& e : r.emitted)
          c.emit(e.type, std::move(e.extra));
        reply(me, gen, c.attempt(), step_result::of(c, std::move(r.result), t0));
      },
      [me, gen, t0, shared_ctx](caf::error& err) {
        auto& c = *shared_ctx;
        // A step actor that is gone may come back (the host restarts it):
        // try again per the policy. An error it answered fails the attempt.
        auto down = err == caf::sec::request_receiver_down;
        auto why = std::string{"step actor "} + (down ? "is down" : "answered an error: ")
                   + (down ? std::string{} : caf::to_string(err));
        reply(me, gen, c.attempt(),
              step_result::of(c, down ? retry_after(duration{0}, why) : fail(why), t0));
      });
}

} // namespace

std::optional<step_result> run_step(const attempt_target& to, workflow_ptr wf, size_t idx,
                                    step_context ctx, bool compensate) {
  auto& def = wf->steps()[idx];
  if (compensate ? bool{def.compensate} : bool{def.run}) {
    // Handed over ahead of its due time (`clk`), an inline body waits for
    // it on the pool like any other.
    if (def.runs_inline && to.clk == nullptr)
      return run_body(def, ctx, compensate);
    run_blocking(to, std::move(wf), idx, std::move(ctx), compensate);
    return std::nullopt;
  }
  if (compensate) {
    run_async(to, std::move(wf), idx, std::move(ctx), true);
    return std::nullopt;
  }
  // Conditions of asynchronous and actor steps run here, on the operation's
  // actor: like the body's start, they must not block.
  if (skipped(def, ctx)) {
    auto res = step_result::of(ctx, done(), ctx.monotonic());
    res.skipped = true;
    return res;
  }
  if (def.start)
    run_async(to, std::move(wf), idx, std::move(ctx), false);
  else
    run_actor(to, def, std::move(ctx));
  return std::nullopt;
}

step_result failed_attempt(step_context ctx, std::string why) {
  return step_result::of(ctx, fail(std::move(why)), ctx.monotonic());
}

} // namespace stepwise
