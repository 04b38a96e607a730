#include "actors/step_runner.hpp"

#include <chrono>
#include <exception>

#include <caf/send.hpp>

#include "actors/messages.hpp"

namespace stepwise {

namespace {

void attempt(const step_def& def, bool compensate, step_context& ctx,
             step_result& out) {
  try {
    if (compensate) {
      out.result = def.compensate(ctx);
      return;
    }
    if (def.condition && !(*def.condition)(ctx)) {
      out.skipped = true;
      return;
    }
    out.result = def.run(ctx);
  } catch (const std::exception& e) {
    out.result = fail(std::string{"step threw: "} + e.what());
  } catch (...) {
    out.result = fail("step threw a non-standard exception");
  }
}

} // namespace

void run_step(worker_pool& pool, workflow_ptr wf, size_t idx,
              step_context ctx, caf::actor reply_to, uint64_t generation,
              time_point due, bool compensate) {
  // std::function needs a copyable callable: keep the context behind a
  // shared_ptr rather than copying its data.
  auto shared_ctx = std::make_shared<step_context>(std::move(ctx));
  pool.submit([wf = std::move(wf), idx, compensate, shared_ctx,
               reply_to = std::move(reply_to), generation] {
    auto res = std::make_shared<step_result>();
    auto t0 = std::chrono::steady_clock::now();
    attempt(wf->steps()[idx], compensate, *shared_ctx, *res);
    res->took = std::chrono::duration_cast<duration>(std::chrono::steady_clock::now() - t0);
    res->finished_at = shared_ctx->now();
    res->data = shared_ctx->take_data();
    res->transient = shared_ctx->take_transient();
    res->emitted = shared_ctx->take_emitted();
    caf::anon_send(reply_to, step_done{generation, std::move(res)});
  }, to_micros(due));
}

} // namespace stepwise
