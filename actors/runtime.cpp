#include "actors/runtime.hpp"

#include "engine/redact.hpp"

namespace stepwise {

operation runtime::present(const operation& op) const {
  auto wf = workflows.find(op.workflow, op.workflow_version);
  if (!wf || wf->secrets().empty() || !op.input)
    return op;
  operation out = op;
  out.input = std::make_shared<const boost::json::object>(
    mask_paths(*op.input, wf->secrets()));
  return out;
}

void runtime::stop() {
  if (step_pool)
    step_pool->stop();
  if (writer)
    writer->stop();
}

runtime::~runtime() {
  stop();
}

} // namespace stepwise
