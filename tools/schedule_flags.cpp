#include "tools/schedule_flags.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

namespace stepwise::tools {

namespace {

bool all_schedule_digits(const std::string& s) {
  if (s.empty())
    return false;
  for (unsigned char c : s)
    if (!std::isdigit(c))
      return false;
  return true;
}

// Sets `body[key]` from a flag given as text.
void set_schedule_text(boost::json::object& body, const char* key,
                       const std::optional<std::string>& v) {
  if (v)
    body[key] = *v;
}

} // namespace

void add_schedule_flags(CLI::App& cmd, schedule_flags& f, bool create) {
  cmd
    .add_option("--file", f.file,
                "the definition as JSON, the API's body (- for stdin); flags override its "
                "fields")
    ->type_name("FILE");
  if (create)
    cmd.add_option("--id", f.id, "the schedule's id: A-Z a-z 0-9 - _ . (up to 128)")
      ->type_name("ID");
  cmd.add_option("--workflow", f.workflow, "the workflow each fire starts")->type_name("NAME");
  cmd
    .add_option("--version", f.version,
                "the workflow's version, or 'newest' (the default: the newest when it fires)")
    ->type_name("N");
  cmd.add_option("--input", f.input, "the input of each operation, a JSON object (default {})")
    ->type_name("JSON");
  cmd
    .add_option("--cron", f.cron,
                "five fields in --time-zone: minute hour day-of-month month day-of-week, "
                "e.g. '0 3 * * *' or '*/15 9-17 * * mon-fri'")
    ->type_name("EXPR");
  cmd.add_option("--every", f.every, "instead of --cron: fire every 30s, 5m, 2h, 1h30m, 1d ...")
    ->type_name("DURATION");
  cmd
    .add_option("--offset", f.offset,
                "with --every: fire this much after each multiple (--every 1h --offset 15m: "
                "at a quarter past)")
    ->type_name("DURATION");
  cmd.add_option("--time-zone", f.time_zone, "the cron's zone, e.g. Europe/Berlin (default UTC)")
    ->type_name("ZONE");
  cmd
    .add_option("--overlap", f.overlap,
                "a fire while the last fire's operation still runs: skip (default), queue "
                "(start when it ends) or allow (run both)")
    ->type_name("skip|queue|allow");
  cmd
    .add_option("--catch-up", f.catch_up,
                "fires missed while the server was down: none (default), latest (fire the "
                "last one) or all (each within --catch-up-window)")
    ->type_name("none|latest|all");
  cmd
    .add_option("--catch-up-window", f.catch_up_window,
                "how far back --catch-up all goes "
                "(default 1d)")
    ->type_name("DURATION");
  cmd.add_option("--end-at", f.end_at, "no fire after this time (RFC 3339), or 'none'")
    ->type_name("TIME");
  if (create)
    cmd.add_flag("--paused", f.paused, "create it paused (stepwise schedules resume ID starts it)");
}

std::string read_schedule_file(const schedule_flags& f, boost::json::object& body) {
  if (f.file.empty())
    return {};
  std::ostringstream text;
  if (f.file == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(f.file);
    if (!in)
      return "cannot read --file " + f.file;
    text << in.rdbuf();
  }
  boost::json::error_code ec;
  auto v = boost::json::parse(text.str(), ec);
  if (ec)
    return "--file " + f.file + " is not JSON: " + ec.message();
  if (!v.is_object())
    return "--file " + f.file + " must hold a JSON object (the API's schedule definition)";
  body = std::move(v.as_object());
  return {};
}

std::string apply_schedule_flags(const schedule_flags& f, boost::json::object& body) {
  set_schedule_text(body, "id", f.id);
  set_schedule_text(body, "workflow", f.workflow);
  if (f.version) {
    if (*f.version == "newest")
      body["version"] = nullptr;
    else if (all_schedule_digits(*f.version) && f.version->size() < 10)
      body["version"] = std::stoi(*f.version);
    else
      return "--version must be a number or 'newest', not '" + *f.version + "'";
  }
  if (f.input) {
    boost::json::error_code ec;
    auto in = boost::json::parse(*f.input, ec);
    if (ec || !in.is_object())
      return "--input must be a JSON object, e.g. '{\"name\":\"nightly\"}'";
    body["input"] = std::move(in);
  }
  if (f.cron && f.every)
    return "give --cron or --every, not both";
  // One replaces the other: an edit from cron to every drops the cron.
  if (f.cron) {
    body["cron"] = *f.cron;
    body.erase("every");
  }
  if (f.every) {
    body["every"] = *f.every;
    body.erase("cron");
  }
  if (f.cron)
    body.erase("offset");
  set_schedule_text(body, "offset", f.offset);
  set_schedule_text(body, "time_zone", f.time_zone);
  set_schedule_text(body, "overlap", f.overlap);
  set_schedule_text(body, "catch_up", f.catch_up);
  set_schedule_text(body, "catch_up_window", f.catch_up_window);
  if (f.end_at)
    body["end_at"] =
      *f.end_at == "none" ? boost::json::value(nullptr) : boost::json::value(*f.end_at);
  if (f.paused)
    body["paused"] = true;
  return {};
}

bool holds_mask(const boost::json::value& v) {
  if (v.is_string())
    return v.get_string() == "***";
  if (v.is_object()) {
    for (auto& kv : v.get_object())
      if (holds_mask(kv.value()))
        return true;
  }
  if (v.is_array()) {
    for (auto& x : v.get_array())
      if (holds_mask(x))
        return true;
  }
  return false;
}

} // namespace stepwise::tools
