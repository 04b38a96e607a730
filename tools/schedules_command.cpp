// `stepwise schedules list|show|create|edit|pause|resume|trigger|delete`:
// the schedules of GET/POST/PUT/DELETE /api/v1/schedules.

#include <cstdio>
#include <memory>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/schedule_flags.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

constexpr const char* schedules_base = "/api/v1/schedules";

std::string schedule_path(const std::string& id) {
  return std::string(schedules_base) + "/" + url_encode(id);
}

// "0 3 * * * (Europe/Berlin)", "every 30s" or "every 1h +15m".
std::string schedule_when(const boost::json::value& s) {
  if (text_of(s, "cron") != "-")
    return text_of(s, "cron") + " (" + text_of(s, "time_zone") + ")";
  auto offset = text_of(s, "offset");
  return "every " + text_of(s, "every") + (offset == "-" || offset == "0s" ? "" : " +" + offset);
}

std::string schedule_next_fire(const boost::json::value& s) {
  if (s.at("paused").as_bool())
    return "- (paused)";
  auto next = text_of(s, "next_fire");
  return next == "-" ? "- (no more fires)" : next;
}

int list_schedules(api_client& api, bool json) {
  auto r = api.get(schedules_base);
  if (json || !r.ok())
    return print_json_or_error(r);
  table t({"ID", "WORKFLOW", "SCHEDULE", "NEXT FIRE", "LAST OPERATION", "FIRED/SKIPPED", "PAUSED"});
  for (auto& s : r.body.at("items").as_array())
    t.add({text_of(s, "id"), text_of(s, "workflow"), cell(schedule_when(s), 40),
           schedule_next_fire(s), text_of(s, "last_operation"),
           text_of(s, "fired") + "/" + text_of(s, "skipped"),
           s.at("paused").as_bool() ? "yes" : "no"});
  if (t.empty())
    std::printf("no schedules (make one: stepwise schedules create --help)\n");
  else
    std::printf("%s", t.render().c_str());
  return 0;
}

void print_schedule(const boost::json::value& s) {
  table kv({"FIELD", "VALUE"});
  kv.add({"id", text_of(s, "id")});
  auto version = text_of(s, "version");
  kv.add({"workflow", text_of(s, "workflow") + (version == "-" ? " (newest)" : " v" + version)});
  kv.add({"schedule", schedule_when(s)});
  kv.add({"next fire", schedule_next_fire(s)});
  kv.add({"overlap", text_of(s, "overlap")});
  kv.add({"catch up", text_of(s, "catch_up") + " (window " + text_of(s, "catch_up_window") + ")"});
  kv.add({"end at", text_of(s, "end_at")});
  kv.add({"input", cell(text_of(s, "input"), 100)});
  kv.add({"last fire", text_of(s, "last_fire")});
  kv.add({"last operation", text_of(s, "last_operation")});
  kv.add({"fired", text_of(s, "fired")});
  kv.add({"skipped", text_of(s, "skipped")});
  kv.add({"revision", text_of(s, "revision")});
  kv.add({"created", text_of(s, "created_at")});
  kv.add({"updated", text_of(s, "updated_at")});
  std::printf("%s", kv.render().c_str());
}

int show_schedule(api_client& api, const std::string& id, bool json) {
  auto r = api.get(schedule_path(id));
  if (json || !r.ok())
    return print_json_or_error(r);
  print_schedule(r.body);
  auto ops = api.get("/api/v1/operations?limit=10&schedule=" + url_encode(id));
  if (!ops.ok())
    return fail(ops);
  table t({"OPERATION", "STATE", "CREATED", "ERROR"});
  for (auto& op : ops.body.at("items").as_array())
    t.add({text_of(op, "id"), text_of(op, "state"), text_of(op, "created_at"),
           cell(text_of(op, "error"), 50)});
  if (t.empty())
    std::printf("\nno operations yet (stepwise schedules trigger %s fires it now)\n", id.c_str());
  else
    std::printf("\nlast operations:\n%s", t.render().c_str());
  return 0;
}

void print_written_schedule(const char* what, const boost::json::value& s) {
  std::printf("%s schedule %s: %s, workflow %s; next fire %s\n", what, text_of(s, "id").c_str(),
              schedule_when(s).c_str(), text_of(s, "workflow").c_str(),
              schedule_next_fire(s).c_str());
}

int create_schedule(api_client& api, const schedule_flags& f, bool json) {
  boost::json::object body;
  if (auto err = read_schedule_file(f, body); !err.empty())
    return usage_error(err);
  if (f.file.empty()) {
    // Said here in the flags' words; the server would name the fields.
    if (!f.id)
      return usage_error("give the schedule an --id (or --file FILE with its definition)");
    if (!f.workflow)
      return usage_error("--workflow is required: the workflow each fire starts");
    if (!f.cron && !f.every)
      return usage_error("--cron EXPR or --every DURATION is required, e.g. --every 5m");
    body["input"] = boost::json::object{};
  }
  if (auto err = apply_schedule_flags(f, body); !err.empty())
    return usage_error(err);
  auto r = api.post(schedules_base, boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  print_written_schedule(r.status == 201 ? "created" : "unchanged (the same definition exists):",
                         r.body);
  return 0;
}

int edit_schedule(api_client& api, const std::string& id, const schedule_flags& f, bool json) {
  boost::json::object body;
  if (!f.file.empty()) {
    if (auto err = read_schedule_file(f, body); !err.empty())
      return usage_error(err);
  } else {
    auto now = api.get(schedule_path(id));
    if (!now.ok())
      return fail(now);
    body = now.body.as_object();
    for (auto k : {"revision", "created_at", "updated_at", "next_fire", "last_operation",
                   "last_fire", "fired", "skipped"})
      body.erase(k);
    if (!f.input && holds_mask(body["input"]))
      return usage_error("the schedule's input holds secret values (shown as ***): give the "
                         "whole input again with --input");
  }
  if (auto err = apply_schedule_flags(f, body); !err.empty())
    return usage_error(err);
  auto r = api.put(schedule_path(id), boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  print_written_schedule("updated", r.body);
  return 0;
}

int schedule_command(api_client& api, const std::string& id, const char* verb, bool json) {
  auto r = std::string(verb) == "delete" ? api.del(schedule_path(id))
                                         : api.post(schedule_path(id) + "/" + verb, "");
  if (json || !r.ok())
    return print_json_or_error(r);
  if (std::string(verb) == "trigger") {
    std::printf("fired schedule %s: started operation %s (%s v%s, %s)\n", id.c_str(),
                text_of(r.body, "id").c_str(), text_of(r.body, "workflow").c_str(),
                text_of(r.body, "version").c_str(), text_of(r.body, "state").c_str());
    std::printf("follow it: stepwise ops show %s\n", text_of(r.body, "id").c_str());
  } else if (std::string(verb) == "delete") {
    std::printf("deleted schedule %s (the operations it started stay)\n", id.c_str());
  } else if (std::string(verb) == "pause") {
    std::printf("paused schedule %s: no fire until stepwise schedules resume %s\n", id.c_str(),
                id.c_str());
  } else {
    print_written_schedule("resumed", r.body);
  }
  return 0;
}

constexpr const char* schedule_create_examples =
  "Examples:\n"
  "  stepwise schedules create --id nightly --workflow demo --cron '0 3 * * *' \\\n"
  "      --time-zone Europe/Berlin --input '{\"name\":\"nightly\"}'\n"
  "  stepwise schedules create --id heartbeat --workflow demo --every 30s --overlap skip\n"
  "  stepwise schedules create --file nightly.json     # the body of POST "
  "/api/v1/schedules\n"
  "\nEach fire starts one operation with idempotency key schedule:ID:FIRE_TIME.";

} // namespace

void add_schedules(CLI::App& root, cli_run& run) {
  auto* sch = root.add_subcommand(
    "schedules", "schedules: operations started on a cron or every N (list, show, create, edit, "
                 "pause, resume, trigger, delete)");
  sch->require_subcommand(1);
  auto api = [&run] { return api_client{run.flags}; };
  sch->add_subcommand("list", "every schedule with its next fire and counts")
    ->callback([&run, api] {
      auto a = api();
      run.exit = list_schedules(a, run.flags.json);
    });
  auto* shw = sch->add_subcommand("show", "a schedule's definition, state and last operations");
  auto shown = std::make_shared<std::string>();
  shw->add_option("ID", *shown, "the schedule")->required();
  shw->callback([&run, api, shown] {
    auto a = api();
    run.exit = show_schedule(a, *shown, run.flags.json);
  });
  auto* crt = sch->add_subcommand("create", "create a schedule (from flags or --file)");
  auto cf = std::make_shared<schedule_flags>();
  add_schedule_flags(*crt, *cf, true);
  crt->footer(schedule_create_examples);
  crt->callback([&run, api, cf] {
    auto a = api();
    run.exit = create_schedule(a, *cf, run.flags.json);
  });
  auto* edt = sch->add_subcommand(
    "edit", "change a schedule's definition: the flags given replace those fields (PUT)");
  auto ef = std::make_shared<schedule_flags>();
  auto edited = std::make_shared<std::string>();
  edt->add_option("ID", *edited, "the schedule")->required();
  add_schedule_flags(*edt, *ef, false);
  edt->callback([&run, api, edited, ef] {
    auto a = api();
    run.exit = edit_schedule(a, *edited, *ef, run.flags.json);
  });
  struct verb {
    const char* name;
    const char* help;
  };
  for (auto v : {verb{"pause", "stop firing until resumed"},
                 verb{"resume", "fire again from now on (missed fires are not caught up)"},
                 verb{"trigger", "fire now, once: start one operation"},
                 verb{"delete", "delete the schedule (the operations it started stay)"}}) {
    auto* sub = sch->add_subcommand(v.name, v.help);
    auto target = std::make_shared<std::string>();
    sub->add_option("ID", *target, "the schedule")->required();
    sub->callback([&run, api, target, name = v.name] {
      auto a = api();
      run.exit = schedule_command(a, *target, name, run.flags.json);
    });
  }
}

} // namespace stepwise::tools
