#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

constexpr const char* ops_path = "/api/v1/operations";

// "3/5": settled steps of all steps, and the name of the first unsettled.
std::pair<std::string, std::string> progress(const boost::json::value& op) {
  auto steps = op.as_object().if_contains("steps");
  if (steps == nullptr || !steps->is_array())
    return {"-", "-"};
  size_t settled = 0;
  std::string current = "-";
  for (auto& s : steps->get_array()) {
    auto st = text_of(s, "state");
    if (st == "succeeded" || st == "skipped" || st == "incomplete")
      ++settled;
    else if (current == "-")
      current = text_of(s, "name");
  }
  return {std::to_string(settled) + "/" + std::to_string(steps->get_array().size()), current};
}

/// `ops list`'s filters.
struct list_filters {
  std::string state, workflow, limit, cursor, created_after, created_before, key;
  std::vector<std::string> labels;
};

int list(api_client& api, const list_filters& f, bool json) {
  std::string q;
  auto add = [&q](const char* name, const std::string& v) {
    q += (q.empty() ? "?" : "&") + std::string(name) + "=" + url_encode(v);
  };
  for (auto [name, v] :
       {std::pair{"state", &f.state}, std::pair{"workflow", &f.workflow},
        std::pair{"limit", &f.limit}, std::pair{"cursor", &f.cursor},
        std::pair{"created_after", &f.created_after},
        std::pair{"created_before", &f.created_before}, std::pair{"idempotency_key", &f.key}})
    if (!v->empty())
      add(name, *v);
  for (auto& l : f.labels)
    add("label", l);
  auto r = api.get(ops_path + q);
  if (json || !r.ok())
    return print_json_or_error(r);
  table t({"ID", "WORKFLOW", "STATE", "STEPS", "CURRENT", "UPDATED", "ERROR"});
  for (auto& op : r.body.at("items").as_array()) {
    auto [done, current] = progress(op);
    t.add({text_of(op, "id"), text_of(op, "workflow") + " v" + text_of(op, "version"),
           text_of(op, "state"), done, current, text_of(op, "updated_at"),
           cell(text_of(op, "error"), 50)});
  }
  if (t.empty())
    std::printf("no operations\n");
  else
    std::printf("%s", t.render().c_str());
  auto next = text_of(r.body, "next_cursor");
  if (next != "-")
    std::printf("\nmore: stepwise ops list --cursor %s\n", next.c_str());
  return 0;
}

void print_operation(const boost::json::value& op) {
  table kv({"FIELD", "VALUE"});
  kv.add({"id", text_of(op, "id")});
  kv.add({"workflow", text_of(op, "workflow") + " v" + text_of(op, "version")});
  kv.add({"state", text_of(op, "state")});
  kv.add({"created", text_of(op, "created_at")});
  kv.add({"updated", text_of(op, "updated_at")});
  kv.add({"deadline", text_of(op, "deadline")});
  kv.add({"error", cell(text_of(op, "error"), 100)});
  kv.add({"input", cell(text_of(op, "input"), 100)});
  kv.add({"data", cell(text_of(op, "data"), 100)});
  kv.add({"key", text_of(op, "key")});
  kv.add({"idempotency key", text_of(op, "idempotency_key")});
  std::string labels;
  if (auto l = op.as_object().if_contains("labels"); l != nullptr && l->is_object())
    for (auto& [k, v] : l->get_object())
      labels += (labels.empty() ? "" : ", ") + std::string(k) + "="
                + (v.is_string() ? std::string(v.get_string()) : boost::json::serialize(v));
  kv.add({"labels", labels.empty() ? "-" : cell(labels, 100)});
  kv.add({"blocked by", text_of(op, "blocked_by")});
  kv.add({"server", text_of(op, "owner")});
  std::string signals;
  for (auto& sig : op.at("signals").as_array())
    signals += (signals.empty() ? "" : ", ") + text_of(sig, "name") + " ("
               + (text_of(sig, "consumed_by") == "-" ? std::string{"not taken yet"}
                                                     : "taken by " + text_of(sig, "consumed_by"))
               + ")";
  kv.add({"signals", signals.empty() ? "-" : cell(signals, 100)});
  std::printf("%s\n", kv.render().c_str());
  table steps({"#", "STEP", "WEIGHT", "STATE", "ATTEMPTS", "DURATION", "NEXT ATTEMPT",
               "COMPENSATION", "LAST ERROR"});
  size_t i = 0;
  for (auto& s : op.at("steps").as_array())
    steps.add({std::to_string(++i), text_of(s, "name"), text_of(s, "weight"), text_of(s, "state"),
               text_of(s, "attempts"), text_of(s, "duration_ms") + " ms",
               text_of(s, "next_attempt_at"), text_of(s, "compensation"),
               cell(text_of(s, "last_error"), 50)});
  std::printf("%s", steps.render().c_str());
}

int show(api_client& api, const std::string& id, bool json) {
  auto r = api.get(std::string(ops_path) + "/" + url_encode(id));
  if (json || !r.ok())
    return print_json_or_error(r);
  print_operation(r.body);
  return 0;
}

/// `ops start`'s request.
struct start_args {
  std::string workflow;
  std::string input = "{}";
  std::string key, deadline;
  std::optional<int32_t> version;
  /// `k=v`, each.
  std::vector<std::string> labels;
};

int start(api_client& api, const start_args& a, bool json) {
  boost::json::error_code ec;
  auto in = boost::json::parse(a.input, ec);
  if (ec || !in.is_object())
    return usage_error("--input must be a JSON object, e.g. '{\"name\":\"you\"}'");
  boost::json::object body{{"workflow", a.workflow}, {"input", in}};
  if (!a.key.empty())
    body["idempotency_key"] = a.key;
  if (!a.deadline.empty())
    body["deadline"] = a.deadline;
  if (a.version)
    body["version"] = *a.version;
  if (!a.labels.empty()) {
    boost::json::object labels;
    for (auto& l : a.labels) {
      auto eq = l.find('=');
      if (eq == std::string::npos || eq == 0)
        return usage_error("--label must be key=value, not '" + l + "'");
      labels[l.substr(0, eq)] = l.substr(eq + 1);
    }
    body["labels"] = std::move(labels);
  }
  auto r = api.post(ops_path, boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s %s (%s v%s, %s)\n", r.status == 201 ? "started" : "existing",
              text_of(r.body, "id").c_str(), text_of(r.body, "workflow").c_str(),
              text_of(r.body, "version").c_str(), text_of(r.body, "state").c_str());
  std::printf("follow it: stepwise ops show %s   or: stepwise events --follow\n",
              text_of(r.body, "id").c_str());
  return 0;
}

int command(api_client& api, const std::string& id, bool json, const char* verb) {
  auto r = api.post(std::string(ops_path) + "/" + url_encode(id) + "/" + verb, "");
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s requested for %s (state now: %s)\n", verb, text_of(r.body, "id").c_str(),
              text_of(r.body, "state").c_str());
  return 0;
}

/// `ops retry`'s and `ops skip`'s requests.
struct repair_args {
  std::string id;
  std::string input, from_step;
  std::string step, reason;
};

int retry(api_client& api, const repair_args& a, bool json) {
  boost::json::object body;
  if (!a.input.empty()) {
    boost::json::error_code ec;
    auto patch = boost::json::parse(a.input, ec);
    if (ec || !patch.is_object())
      return usage_error("--input must be a JSON object (a merge patch on the input), e.g. "
                         "'{\"size\":\"large\"}'");
    body["input"] = std::move(patch);
  }
  if (!a.from_step.empty())
    body["from_step"] = a.from_step;
  auto r = api.post(std::string(ops_path) + "/" + url_encode(a.id) + "/retry",
                    boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("retry requested for %s (state now: %s)\n", text_of(r.body, "id").c_str(),
              text_of(r.body, "state").c_str());
  return 0;
}

int skip(api_client& api, const repair_args& a, bool json) {
  boost::json::object body{{"step", a.step}, {"reason", a.reason}};
  auto r = api.post(std::string(ops_path) + "/" + url_encode(a.id) + "/skip",
                    boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("skipped %s of %s (state now: %s)\n", a.step.c_str(), text_of(r.body, "id").c_str(),
              text_of(r.body, "state").c_str());
  return 0;
}

/// `ops signal`'s signal.
struct signal_args {
  std::string id, name;
  std::string data = "{}";
  std::string signal_id;
};

int signal(api_client& api, const signal_args& a, bool json) {
  boost::json::error_code ec;
  auto payload = boost::json::parse(a.data, ec);
  if (ec || !payload.is_object())
    return usage_error("--data must be a JSON object, e.g. '{\"image_id\":\"img-1\"}'");
  if (!a.signal_id.empty())
    payload.as_object()["signal_id"] = a.signal_id;
  auto r =
    api.post(std::string(ops_path) + "/" + url_encode(a.id) + "/signals/" + url_encode(a.name),
             boost::json::serialize(payload));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s signal %s to %s (state now: %s)\n", r.status == 200 ? "already had" : "sent",
              a.name.c_str(), text_of(r.body, "id").c_str(), text_of(r.body, "state").c_str());
  return 0;
}

} // namespace

void add_ops(CLI::App& root, cli_run& run) {
  auto* ops = root.add_subcommand("ops", "operations: list, show, start, and commands to one");
  ops->require_subcommand(1);
  auto api = [&run] { return api_client{run.flags}; };
  auto* lst = ops->add_subcommand("list", "operations, newest first");
  auto filters = std::make_shared<list_filters>();
  lst->add_option("--state", filters->state, "only those in STATE")->type_name("S");
  lst->add_option("--workflow", filters->workflow, "only those of workflow W")->type_name("W");
  lst->add_option("--limit", filters->limit, "at most N (the server caps it)")->type_name("N");
  lst->add_option("--cursor", filters->cursor, "the page after a list's 'more:' cursor")
    ->type_name("C");
  lst->add_option("--label", filters->labels, "only those labeled K=V (repeat: all of them)")
    ->type_name("K=V");
  lst->add_option("--created-after", filters->created_after, "only those created after T")
    ->type_name("RFC3339");
  lst->add_option("--created-before", filters->created_before, "only those created before T")
    ->type_name("RFC3339");
  lst->add_option("--key", filters->key, "only the one started with this idempotency key")
    ->type_name("IDEMPOTENCY_KEY");
  lst->callback([&run, api, filters] {
    auto a = api();
    run.exit = list(a, *filters, run.flags.json);
  });
  auto* shw = ops->add_subcommand("show", "an operation with its steps and signals");
  auto id = std::make_shared<std::string>();
  shw->add_option("ID", *id, "the operation")->required();
  shw->callback([&run, api, id] {
    auto a = api();
    run.exit = show(a, *id, run.flags.json);
  });
  auto* st = ops->add_subcommand("start", "start an operation of WORKFLOW");
  auto req = std::make_shared<start_args>();
  st->add_option("WORKFLOW", req->workflow, "the workflow's name")->required();
  st->add_option("--input", req->input, "the input, a JSON object (default {})")->type_name("JSON");
  st->add_option("--key", req->key,
                 "idempotency key: the same request again gives the same "
                 "operation")
    ->type_name("IDEMPOTENCY_KEY");
  st->add_option("--version", req->version, "the workflow's version (default: the newest)")
    ->type_name("N");
  st->add_option("--deadline", req->deadline, "fail it if not done by then")->type_name("RFC3339");
  st->add_option("--label", req->labels, "label it K=V, to find it by (repeatable)")
    ->type_name("K=V");
  st->callback([&run, api, req] {
    auto a = api();
    run.exit = start(a, *req, run.flags.json);
  });
  struct verb {
    const char* name;
    const char* help;
  };
  for (auto v : {verb{"cancel", "cancel an operation (a saga undoes its steps first)"},
                 verb{"pause", "stop at the next step boundary"},
                 verb{"resume", "go on from the paused step"}}) {
    auto* sub = ops->add_subcommand(v.name, v.help);
    auto target = std::make_shared<std::string>();
    sub->add_option("ID", *target, "the operation")->required();
    sub->callback([&run, api, target, name = v.name] {
      auto a = api();
      run.exit = command(a, *target, run.flags.json, name);
    });
  }
  auto* rt = ops->add_subcommand("retry", "failed or canceled: from where it stopped (a new run); "
                                          "paused: resume; succeeded: its incomplete steps, or "
                                          "those from --from-step, again");
  auto rep = std::make_shared<repair_args>();
  rt->add_option("ID", rep->id, "the operation")->required();
  rt->add_option("--input", rep->input, "a JSON merge patch on its input, applied first")
    ->type_name("JSON");
  rt->add_option("--from-step", rep->from_step, "run this step and those after it again")
    ->type_name("S");
  rt->callback([&run, api, rep] {
    auto a = api();
    run.exit = retry(a, *rep, run.flags.json);
  });
  auto* sk = ops->add_subcommand("skip", "record the failed, paused or waiting STEP skipped and "
                                         "go on with the next one");
  auto skp = std::make_shared<repair_args>();
  sk->add_option("ID", skp->id, "the operation")->required();
  sk->add_option("STEP", skp->step, "the step to skip")->required();
  sk->add_option("--reason", skp->reason, "why (kept in the step_skipped event)")
    ->type_name("R")
    ->required();
  sk->callback([&run, api, skp] {
    auto a = api();
    run.exit = skip(a, *skp, run.flags.json);
  });
  auto* sig = ops->add_subcommand("signal", "send signal NAME to an operation");
  auto s = std::make_shared<signal_args>();
  sig->add_option("ID", s->id, "the operation")->required();
  sig->add_option("NAME", s->name, "the signal's name")->required();
  sig->add_option("--data", s->data, "its payload, a JSON object (default {})")->type_name("JSON");
  sig->add_option("--id", s->signal_id, "the signal's id: the same id again is stored once")
    ->type_name("SIGNAL_ID");
  sig->callback([&run, api, s] {
    auto a = api();
    run.exit = signal(a, *s, run.flags.json);
  });
}

} // namespace stepwise::tools
