#include "engine/async_call.hpp"

namespace stepwise {

async_call::async_call(step_context ctx, sink deliver)
  : st_(std::make_shared<state>(std::move(ctx), std::move(deliver))) {
  // nop
}

bool async_call::complete(outcome result) const {
  if (st_->done.exchange(true, std::memory_order_acq_rel))
    return false;
  st_->deliver(step_result::of(st_->ctx, std::move(result), st_->started));
  return true;
}

} // namespace stepwise
