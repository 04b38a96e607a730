#include "actors/engine_core.hpp"

#include "engine/redact.hpp"

namespace stepwise {

operation engine_core::present(const operation& op) const {
  auto wf = workflows.find(op.workflow, op.workflow_version);
  if (!wf || wf->secrets().empty() || !op.input)
    return op;
  operation out = op;
  out.input = std::make_shared<const boost::json::object>(
    mask_paths(*op.input, wf->secrets()));
  return out;
}

void engine_core::stop() {
  if (step_pool)
    step_pool->stop();
  if (writer)
    writer->stop();
}

engine_core::~engine_core() {
  stop();
}

} // namespace stepwise
