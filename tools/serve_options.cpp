#include "tools/serve_options.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "tools/option_spec.hpp"
#include "tools/sink_option.hpp"

namespace stepwise::tools {

namespace {

// Every setting: the engine's, then the front doors'.
const std::vector<option_spec>& specs() {
  static const std::vector<option_spec> all = [] {
    auto out = engine_specs();
    auto& more = front_door_specs();
    out.insert(out.end(), more.begin(), more.end());
    return out;
  }();
  return all;
}

const option_spec* find_spec(const std::string& name) {
  for (auto& s : specs())
    if (name == s.name)
      return &s;
  return nullptr;
}

caf::error bad(std::string what) {
  return make_error(errc::invalid_argument, std::move(what));
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

caf::expected<void> read_file(serve_options& o, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return bad("cannot read config file '" + path + "'");
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    auto text = trim(line.substr(0, line.find('#')));
    if (text.empty())
      continue;
    auto eq = text.find('=');
    auto where = path + ":" + std::to_string(no) + ": ";
    if (eq == std::string::npos)
      return bad(where + "expected 'name = value'");
    auto name = trim(text.substr(0, eq));
    auto spec = find_spec(name);
    if (spec == nullptr || spec->set == &set_config)
      return bad(where + "unknown setting '" + name + "'");
    if (auto err = spec->set(o, trim(text.substr(eq + 1))))
      return bad(where + name + " " + *err);
  }
  return caf::unit;
}

} // namespace

std::string serve_options::host() const {
  auto h = listen.substr(0, listen.rfind(':'));
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']')
    h = h.substr(1, h.size() - 2);
  return h;
}

int serve_options::port() const {
  return std::atoi(listen.substr(listen.rfind(':') + 1).c_str());
}

http::server_config serve_options::server_config() const {
  http::server_config c;
  c.host = host();
  c.port = port();
  c.threads = http_threads;
  c.lim.max_body_bytes = max_body;
  c.lim.max_streams = max_streams;
  c.read_timeout = std::chrono::seconds(io_timeout_s);
  c.write_timeout = std::chrono::seconds(io_timeout_s);
  c.metrics_auth = metrics_auth;
  c.tls_cert = tls_cert;
  c.tls_key = tls_key;
  return c;
}

stepwise::engine_config serve_options::engine_config() const {
  stepwise::engine_config c;
  c.store_uri = store;
  c.step_workers = step_workers;
  c.read_workers = read_workers;
  c.request_timeout = std::chrono::seconds(request_timeout_s);
  c.max_backlog = max_backlog;
  // The engine's lines (store faults, warnings) in the server's format.
  c.log = [](log_level x, std::string_view text) { log(x, text); };
  c.lease_ttl = std::chrono::seconds(lease_ttl_s);
  c.limits = limits;
  return c;
}

env_reader process_env() {
  return [](const char* name) -> std::optional<std::string> {
    if (auto v = std::getenv(name))
      return std::string(v);
    return std::nullopt;
  };
}

caf::expected<serve_options> parse_serve_options(const std::vector<std::string>& args,
                                                 const env_reader& env) {
  // Split the flags first: the config file they may name is read before the
  // environment and the flags are applied over it.
  std::vector<std::pair<const option_spec*, std::string>> flags;
  serve_options o;
  for (size_t i = 0; i < args.size(); ++i) {
    auto& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    if (a.rfind("--", 0) != 0)
      return bad("unexpected argument '" + a + "' (see stepwise serve --help)");
    auto eq = a.find('=');
    auto name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto spec = find_spec(name);
    if (spec == nullptr)
      return bad("unknown flag '--" + name + "' (see stepwise serve --help)");
    std::string value;
    if (eq != std::string::npos)
      value = a.substr(eq + 1);
    else if (spec->is_switch)
      value = "true";
    else if (i + 1 < args.size())
      value = args[++i];
    else
      return bad("flag '--" + name + "' needs a value (" + spec->arg + ")");
    flags.emplace_back(spec, value);
  }
  std::string file;
  if (auto v = env("STEPWISE_CONFIG"))
    file = *v;
  for (auto& [spec, value] : flags)
    if (spec->set == &set_config)
      file = value;
  if (!file.empty()) {
    if (auto ok = read_file(o, file); !ok)
      return ok.error();
    o.config_file = file;
  }
  for (auto& spec : specs()) {
    if (spec.set == &set_config)
      continue;
    if (auto v = env(spec.env)) {
      if (spec.set == &set_sink)
        o.sinks.clear(); // a repeatable setting: the file's are replaced
      if (auto err = spec.set(o, *v))
        return bad(std::string(spec.env) + " " + *err);
    }
  }
  for (auto& [spec, value] : flags)
    if (spec->set == &set_sink)
      o.sinks.clear();
  for (auto& [spec, value] : flags)
    if (auto err = spec->set(o, value))
      return bad("--" + std::string(spec->name) + " " + *err);
  if (auto err = check_front_doors(o))
    return bad(*err);
  return o;
}

std::string serve_help() {
  std::string out = "usage: stepwise serve [FLAGS]\n\n"
                    "Runs the workflow engine with its HTTP API (registers the 'demo' "
                    "workflow).\nStops on SIGTERM or SIGINT: stops accepting, lets requests "
                    "in flight finish,\nwrites pending checkpoints and exits 0; a restart "
                    "resumes every operation.\n\n"
                    "Each flag can also be set by its environment variable or in the config "
                    "file;\nflags win over the environment, which wins over the file.\n\n";
  for (auto& s : specs()) {
    auto left = std::string("  --") + s.name + (s.is_switch ? "" : " ") + s.arg;
    out += left + "\n      " + s.help + "\n      env: " + s.env + "\n";
  }
  return out;
}

std::string redact_uri(const std::string& uri) {
  return redact_store_uri(uri);
}

} // namespace stepwise::tools
