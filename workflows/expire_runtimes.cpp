#include "workflows/expire_runtimes.hpp"

#include <algorithm>
#include <set>

#include "engine/errc.hpp"
#include "workflows/infra_steps.hpp"

namespace stepwise::workflows {

namespace {

constexpr int64_t default_max = 50;

/// Calls `each` with every stored operation `f` selects, page by page.
caf::error for_each_operation(const list_operations_fn& list, list_filter f,
                              const std::function<void(const operation&)>& each) {
  f.limit = 500;
  for (;;) {
    auto page = list(f);
    if (!page)
      return std::move(page.error());
    for (auto& op : page->items)
      each(op);
    if (page->next_cursor.empty())
      return caf::none;
    f.cursor = page->next_cursor;
  }
}

/// Reads `age_days` and `max_at_once`; an error names the field.
caf::expected<std::pair<double, int64_t>> read_input(const boost::json::object& in) {
  auto* age = in.if_contains("age_days");
  if (!age || !(age->is_number()) || age->to_number<double>() <= 0)
    return make_error(errc::invalid_argument, "age_days: a positive number of days");
  int64_t max = default_max;
  if (auto* m = in.if_contains("max_at_once")) {
    if (!m->is_int64() || m->as_int64() < 1 || m->as_int64() > 1000)
      return make_error(errc::invalid_argument, "max_at_once: an integer from 1 to 1000");
    max = m->as_int64();
  }
  return std::make_pair(age->to_number<double>(), max);
}

outcome find_expired(const infrastructure_deps& deps, step_context& ctx) {
  auto args = read_input(ctx.input());
  if (!args)
    return fail(message_of(args.error()));
  auto [age_days, max] = *args;
  auto cutoff =
    ctx.now()
    - std::chrono::duration_cast<duration>(std::chrono::duration<double>(age_days * 86400.0));
  // Runtimes a deprovisioning removed or is removing: left alone.
  std::set<std::string> taken;
  list_filter deprovisions;
  deprovisions.workflow = "deprovision_runtime";
  auto err = for_each_operation(deps.list_operations, deprovisions, [&](const operation& op) {
    if (op.state != op_state::failed && op.state != op_state::canceled && op.input)
      taken.insert(string_at(*op.input, "provision_operation_id"));
  });
  std::vector<operation> provisioned;
  list_filter made;
  made.workflow = "provision_runtime";
  made.state = op_state::succeeded;
  if (!err)
    err = for_each_operation(deps.list_operations, made, [&](const operation& op) {
      if (op.created_at < cutoff && !taken.count(op.id))
        provisioned.push_back(op);
    });
  if (err) // the store: tried again
    return retry_after(std::chrono::seconds{1}, "cannot list operations: " + message_of(err));
  // Oldest first: the list is newest first.
  std::sort(provisioned.begin(), provisioned.end(),
            [](const operation& x, const operation& y) { return x.created_at < y.created_at; });
  boost::json::array expired;
  for (auto& op : provisioned) {
    if (static_cast<int64_t>(expired.size()) == max)
      break;
    expired.push_back({{"provision_operation_id", op.id},
                       {"name", op.input ? string_at(*op.input, "name") : ""},
                       {"created_at", format_time(op.created_at)}});
  }
  ctx.data()["expired"] = std::move(expired);
  return done();
}

outcome start_deprovisions(step_context& ctx) {
  for (auto& v : ctx.data().at("expired").as_array()) {
    auto& r = v.as_object();
    auto id = std::string{r.at("provision_operation_id").as_string()};
    ctx.start_child("deprovision_runtime", {{"provision_operation_id", id}, {"name", r.at("name")}},
                    id);
  }
  return done();
}

outcome record_removed(step_context& ctx) {
  boost::json::array removed, not_removed;
  auto* results = ctx.data().if_contains("children_results");
  if (results && results->is_object())
    if (auto* of_step = results->as_object().if_contains("deprovision"))
      for (auto& [key, child] : of_step->as_object()) {
        auto& c = child.as_object();
        if (c.at("state") == "succeeded")
          removed.push_back(boost::json::string{key});
        else
          not_removed.push_back({{"provision_operation_id", key}, {"error", c.at("error")}});
      }
  ctx.data()["removed"] = std::move(removed);
  ctx.data()["not_removed"] = std::move(not_removed);
  return done();
}

} // namespace

workflow expire_runtimes(const infrastructure_deps& deps) {
  return workflow("expire_runtimes", 1)
    .step(1,
          make_step("find_expired", [deps](step_context& ctx) { return find_expired(deps, ctx); }))
    .step(2, make_step("deprovision", start_deprovisions))
    .step(3, await_children("await_deprovisions", "deprovision").accepting_failures())
    .step(4, make_step("record", record_removed));
}

} // namespace stepwise::workflows
