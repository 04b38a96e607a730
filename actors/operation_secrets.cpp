// Secret values in the operation actor. The operation's input holds them
// sealed, as stored; a step gets the input opened, once per actor, when it
// first needs it. A value that cannot be opened (its key is not in the key
// ring) fails the attempt with an error naming the key id.
#include "actors/operation_parts.hpp"

#include "engine/errc.hpp"
#include "engine/merge_patch.hpp"
#include "engine/redact.hpp"
#include "engine/sealed_json.hpp"

namespace stepwise::op {

caf::expected<std::shared_ptr<const boost::json::object>> opened_input(operation_state& st) {
  if (st.opened_input)
    return st.opened_input;
  // Only the paths a workflow declares secret are sealed at creation.
  if (st.wf->secrets().empty())
    return st.op.input;
  auto opened = open_all(st.op.input, st.rt->cfg.secret_keys.get(), st.op.id);
  if (!opened)
    return make_error(errc::secret_key, "the secret input of operation " + st.op.id + ": "
                                          + message_of(opened.error()));
  st.opened_input = std::move(*opened);
  return st.opened_input;
}

std::vector<std::string> secrets_of(const operation_state& st,
                                    const std::vector<std::string>& revealed) {
  auto& input = st.opened_input ? *st.opened_input : *st.op.input;
  auto out = secret_strings(input, st.wf->secrets(), st.transient);
  out.insert(out.end(), revealed.begin(), revealed.end());
  return out;
}

caf::expected<std::vector<std::string>> patch_input(operation_state& st,
                                                    const boost::json::object& patch) {
  auto input = st.op.input ? *st.op.input : boost::json::object{};
  auto paths = merge_patch(input, patch);
  // Values the patch set at secret paths are plain now: sealed like those
  // of a new operation. Sealed values it left are skipped.
  if (auto err = seal_paths(input, st.wf->secrets(), st.rt->cfg.secret_keys.get(), st.op.id))
    return make_error(errc::secret_key,
                      "the patched secret input of operation " + st.op.id + ": " + message_of(err));
  st.op.input = std::make_shared<const boost::json::object>(std::move(input));
  st.opened_input.reset();
  return paths;
}

void reseal_data(operation_state& st) {
  auto& keys = st.rt->cfg.secret_keys;
  if (!keys || st.op.data.empty() || !holds_sealed(st.op.data))
    return;
  // After a key rotation: this actor writes the data back with every
  // checkpoint, and must not write values under the old key again. A value
  // it cannot open stays as it is: the step that reads it reports that.
  static_cast<void>(reseal_all(st.op.data, *keys, st.op.id));
}

step_context context_for(operation_state& st, const std::string& step, int32_t attempt,
                         std::shared_ptr<const boost::json::object> input, boost::json::object data,
                         transient_map transient, stop_token stop) {
  return step_context{st.op.id,
                      step,
                      attempt,
                      std::move(input),
                      std::move(data),
                      std::move(transient),
                      st.rt->clk,
                      std::move(stop),
                      st.rt->cfg.secret_keys};
}

} // namespace stepwise::op
