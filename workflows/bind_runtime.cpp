#include "workflows/bind_runtime.hpp"

#include "engine/errc.hpp"
#include "engine/random_hex.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

// Reads the operation at `field` of the input; a store failure is retried.
outcome read_input_op(const read_operation_fn& read, const step_context& ctx, const char* field,
                      const char* workflow, std::optional<operation>& out) {
  auto id = string_at(ctx.input(), field);
  if (id.empty())
    return fail(std::string("invalid input: \"") + field + "\" must be a non-empty string");
  auto res = read(id);
  if (!res)
    return retry_after(duration{0}, "cannot read operation " + id + ": " + message_of(res.error()));
  if (!*res || (*res)->workflow.rfind(workflow, 0) != 0)
    return fail("no " + std::string(workflow) + " operation " + id);
  out = std::move(*res);
  return done();
}

outcome read_runtime(const read_operation_fn& read, step_context& ctx) {
  std::optional<operation> op;
  // provision_runtime or update_runtime: both record `runtime`.
  auto got = read_input_op(read, ctx, "runtime_operation_id", "", op);
  if (!op)
    return got;
  auto rt = op->data.if_contains("runtime");
  if (rt == nullptr || !rt->is_object())
    return fail("operation " + op->id + " recorded no runtime");
  auto outputs = rt->get_object().if_contains("outputs");
  if (outputs != nullptr && outputs->is_object())
    if (auto url = outputs->get_object().if_contains("url"); url != nullptr && url->is_string())
      ctx.data()["url"] = *url;
  return done();
}

outcome issue_credential(step_context& ctx) {
  auto kept = ctx.secret("password");
  if (!kept)
    return fail(message_of(kept.error()));
  // Run again (a crash after the attempt), the password already kept stays.
  if (!*kept) {
    if (auto sealed = ctx.keep_secret("password", boost::json::string(random_hex(32))); !sealed)
      return fail(message_of(sealed.error()));
  }
  auto broker = ctx.input().if_contains("broker");
  auto binding = broker != nullptr && broker->is_object()
                   ? string_at(broker->get_object(), "binding_id")
                   : std::string{};
  ctx.data()["username"] = "binding-" + (binding.empty() ? ctx.operation_id() : binding);
  return done();
}

outcome revoke_credential(const read_operation_fn& read, step_context& ctx) {
  std::optional<operation> op;
  auto got = read_input_op(read, ctx, "bind_operation_id", "bind_runtime", op);
  if (!op)
    return got;
  ctx.data()["revoked"] = op->id;
  return done();
}

} // namespace

workflow bind_runtime(const infrastructure_deps& deps) {
  auto read = deps.read_operation;
  workflow wf("bind_runtime", 1);
  wf.step(10,
          make_step("read_runtime", [read](step_context& ctx) { return read_runtime(read, ctx); })
            .with_policy(deps.calls))
    .step(20, make_step("issue_credential", issue_credential))
    .serialize_by(runtime_key, "runtime:/name");
  return wf;
}

workflow unbind_runtime(const infrastructure_deps& deps) {
  auto read = deps.read_operation;
  workflow wf("unbind_runtime", 1);
  wf.step(10, make_step("revoke_credential",
                        [read](step_context& ctx) { return revoke_credential(read, ctx); })
                .with_policy(deps.calls))
    .serialize_by(runtime_key, "runtime:/name");
  return wf;
}

} // namespace stepwise::workflows
