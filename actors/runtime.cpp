#include "actors/runtime.hpp"

#include "engine/redact.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise {

namespace {

operation masked(const operation& op, const std::vector<std::string>& secrets) {
  // Secret paths of the definition, and any sealed value (in data: kept
  // with `keep_secret`).
  bool mask_input = op.input && (!secrets.empty() || holds_sealed(*op.input));
  bool mask_data = holds_sealed(op.data);
  if (!mask_input && !mask_data)
    return op;
  operation out = op;
  if (mask_input) {
    auto input = mask_paths(*op.input, secrets);
    mask_sealed(input);
    out.input = std::make_shared<const boost::json::object>(std::move(input));
  }
  if (mask_data)
    mask_sealed(out.data);
  return out;
}

} // namespace

operation runtime::present(const operation& op) const {
  if (auto wf = workflows.find(op.workflow, op.workflow_version))
    return masked(op, wf->secrets());
  // A version no longer registered: the secret paths of every registered
  // version of its name (the input's shape rarely changes between versions,
  // and a value is better masked once too often than shown).
  std::vector<std::string> secrets;
  for (auto v : workflows.versions(op.workflow))
    for (auto& p : workflows.find(op.workflow, v)->secrets())
      secrets.push_back(p);
  return masked(op, secrets);
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
