#include <cstdio>

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

int list(api_client& api, std::vector<std::string> args, bool json) {
  bool missing = false;
  std::string q;
  for (auto name : {"state", "workflow", "limit", "cursor"}) {
    auto v = take_flag(args, name, "", missing);
    if (!v.empty())
      q += (q.empty() ? "?" : "&") + std::string(name) + "=" + url_encode(v);
  }
  if (missing || !args.empty())
    return usage("ops list takes --state, --workflow, --limit, --cursor");
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
  kv.add({"blocked by", text_of(op, "blocked_by")});
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

int show(api_client& api, std::vector<std::string> args, bool json) {
  if (args.size() != 1)
    return usage("ops show takes one operation id");
  auto r = api.get(std::string(ops_path) + "/" + url_encode(args[0]));
  if (json || !r.ok())
    return print_json_or_error(r);
  print_operation(r.body);
  return 0;
}

int start(api_client& api, std::vector<std::string> args, bool json) {
  bool missing = false;
  auto input = take_flag(args, "input", "{}", missing);
  auto key = take_flag(args, "key", "", missing);
  auto version = take_flag(args, "version", "", missing);
  auto deadline = take_flag(args, "deadline", "", missing);
  if (missing || args.size() != 1)
    return usage("ops start takes a workflow name and --input, --key, "
                 "--version, --deadline");
  boost::json::error_code ec;
  auto in = boost::json::parse(input, ec);
  if (ec || !in.is_object())
    return usage("--input must be a JSON object, e.g. '{\"name\":\"you\"}'");
  boost::json::object body{{"workflow", args[0]}, {"input", in}};
  if (!key.empty())
    body["idempotency_key"] = key;
  if (!deadline.empty())
    body["deadline"] = deadline;
  if (!version.empty()) {
    auto v = boost::json::parse(version, ec);
    if (ec || !v.is_int64())
      return usage("--version must be an integer");
    body["version"] = v;
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

int command(api_client& api, std::vector<std::string> args, bool json, const char* verb) {
  if (args.size() != 1)
    return usage(std::string("ops ") + verb + " takes one operation id");
  auto r = api.post(std::string(ops_path) + "/" + url_encode(args[0]) + "/" + verb, "");
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s requested for %s (state now: %s)\n", verb, text_of(r.body, "id").c_str(),
              text_of(r.body, "state").c_str());
  return 0;
}

int signal(api_client& api, std::vector<std::string> args, bool json) {
  bool missing = false;
  auto data = take_flag(args, "data", "{}", missing);
  auto id = take_flag(args, "id", "", missing);
  if (missing || args.size() != 2)
    return usage("ops signal takes an operation id, a signal name, and --data JSON, "
                 "--id SIGNAL_ID");
  boost::json::error_code ec;
  auto payload = boost::json::parse(data, ec);
  if (ec || !payload.is_object())
    return usage("--data must be a JSON object, e.g. '{\"image_id\":\"img-1\"}'");
  if (!id.empty())
    payload.as_object()["signal_id"] = id;
  auto r =
    api.post(std::string(ops_path) + "/" + url_encode(args[0]) + "/signals/" + url_encode(args[1]),
             boost::json::serialize(payload));
  if (json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s signal %s to %s (state now: %s)\n", r.status == 200 ? "already had" : "sent",
              args[1].c_str(), text_of(r.body, "id").c_str(), text_of(r.body, "state").c_str());
  return 0;
}

} // namespace

int run_ops(const std::vector<std::string>& all) {
  auto args = all;
  auto flags = take_client_flags(args);
  if (args.empty())
    return usage("ops needs a subcommand: list, show, start, cancel, retry, pause, resume, signal");
  auto sub = args.front();
  args.erase(args.begin());
  api_client api{flags};
  if (sub == "list")
    return list(api, args, flags.json);
  if (sub == "show")
    return show(api, args, flags.json);
  if (sub == "start")
    return start(api, args, flags.json);
  if (sub == "cancel")
    return command(api, args, flags.json, "cancel");
  if (sub == "retry")
    return command(api, args, flags.json, "retry");
  if (sub == "pause")
    return command(api, args, flags.json, "pause");
  if (sub == "resume")
    return command(api, args, flags.json, "resume");
  if (sub == "signal")
    return signal(api, args, flags.json);
  return usage("unknown ops subcommand '" + sub + "'");
}

} // namespace stepwise::tools
