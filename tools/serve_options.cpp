#include "tools/serve_options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

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

std::string serve_options::advertised_url() const {
  if (!advertise_url.empty())
    return advertise_url;
  if (port() == 0)
    return {};
  auto h = host();
  if (h == "0.0.0.0" || h == "::") {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0)
      h = name;
  } else if (h.find(':') != std::string::npos) {
    h = "[" + h + "]";
  }
  return (tls_cert.empty() ? "http://" : "https://") + h + ":" + std::to_string(port());
}

http::server_config serve_options::server_config() const {
  http::server_config c;
  c.host = host();
  c.port = port();
  c.threads = http_threads;
  c.lim.max_body_bytes = max_body;
  c.lim.max_streams = max_streams;
  c.lim.max_streams_per_token = max_streams_per_token;
  c.io_threads = io_threads;
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
  c.commit_linger = std::chrono::milliseconds(commit_linger_ms);
  c.max_backlog = max_backlog;
  // The engine's lines (store faults, warnings) in the server's format.
  c.log = [](log_level x, std::string_view text) { log(x, text); };
  c.lease_ttl = std::chrono::seconds(lease_ttl_s);
  c.advertise_url = advertised_url();
  c.build_version = STEPWISE_VERSION;
  c.limits = limits;
  c.retention = retention;
  c.retention_batch = retention_batch;
  return c;
}

env_reader process_env() {
  return [](const char* name) -> std::optional<std::string> {
    if (auto v = std::getenv(name))
      return std::string(v);
    return std::nullopt;
  };
}

namespace {

/// `--help` as the server has always written it: the flag and its value on
/// a line, the description and the variable below.
class help_layout : public CLI::Formatter {
public:
  std::string make_option(const CLI::Option* opt, bool) const override {
    auto out = "  " + opt->get_name();
    if (opt->get_type_size() != 0 && !opt->get_type_name().empty())
      out += " " + opt->get_type_name();
    out += "\n";
    std::istringstream desc{opt->get_description()};
    for (std::string line; std::getline(desc, line);)
      out += "      " + line + "\n";
    return out;
  }
};

/// The command line of `stepwise serve` as CLI11 reads it: every setting a
/// flag whose values (in the order given) land in `given`, one list per
/// setting of `specs()`. Switches take `--name` or `--name=false`.
std::unique_ptr<CLI::App> serve_app(std::vector<std::vector<std::string>>& given) {
  auto app = std::make_unique<CLI::App>(
    "Runs the workflow engine with its HTTP API (registers the 'demo' workflow).\n"
    "Stops on SIGTERM or SIGINT: stops accepting, lets requests in flight finish,\n"
    "writes pending checkpoints and exits 0; a restart resumes every operation.\n\n"
    "Each flag can also be set by its environment variable or in the config file\n"
    "(a 'name = value' line); flags win over the environment, which wins over the file.",
    "stepwise serve");
  app->allow_extras(); // told apart below: an unknown flag, or a stray word
  app->formatter(std::make_shared<help_layout>());
  given.assign(specs().size(), {});
  for (size_t i = 0; i < specs().size(); ++i) {
    auto& s = specs()[i];
    auto help = std::string{s.help} + "\nenv: " + s.env;
    auto name = std::string{"--"} + s.name;
    if (s.is_switch)
      app->add_flag(name, given[i], help);
    else
      app->add_option(name, given[i], help)
        ->type_name(s.arg)
        ->type_size(1)
        ->allow_extra_args(false);
  }
  return app;
}

/// Returns the flag that a "missing value" error of CLI11 names.
std::string flag_of(const CLI::ParseError& e) {
  std::string what = e.what();
  return what.substr(0, what.find(':'));
}

} // namespace

caf::expected<serve_options> parse_serve_options(const std::vector<std::string>& args,
                                                 const env_reader& env) {
  serve_options o;
  // An empty `--name=` is the setting's own error (CLI11 calls it missing).
  for (auto& a : args)
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.back() == '=')
      if (auto spec = find_spec(a.substr(2, a.size() - 3)); spec && !spec->is_switch)
        if (auto err = spec->set(o, ""))
          return bad(a.substr(0, a.size() - 1) + " " + *err);
  std::vector<std::vector<std::string>> given;
  auto app = serve_app(given);
  try {
    // CLI11 takes the arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
    return o;
  } catch (const CLI::ArgumentMismatch& e) {
    auto flag = flag_of(e);
    auto spec = find_spec(flag.substr(2));
    return bad("flag '" + flag + "' needs a value (" + (spec ? spec->arg : "") + ")");
  } catch (const CLI::ParseError& e) {
    return bad(std::string{e.what()} + " (see stepwise serve --help)");
  }
  if (auto extra = app->remaining(); !extra.empty()) {
    auto& first = extra.front();
    if (first.rfind("--", 0) == 0)
      return bad("unknown flag '" + first.substr(0, first.find('='))
                 + "' (see stepwise serve --help)");
    return bad("unexpected argument '" + first + "' (see stepwise serve --help)");
  }
  // The file first, the environment over it, the flags over both.
  auto config = std::find_if(specs().begin(), specs().end(),
                             [](const option_spec& s) { return s.set == &set_config; });
  auto config_at = static_cast<size_t>(config - specs().begin());
  std::string file;
  if (auto v = env("STEPWISE_CONFIG"))
    file = *v;
  if (!given[config_at].empty())
    file = given[config_at].back();
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
  for (size_t i = 0; i < specs().size(); ++i) {
    auto& spec = specs()[i];
    if (spec.set == &set_config || given[i].empty())
      continue;
    if (spec.set == &set_sink)
      o.sinks.clear(); // the flags' sinks replace the others
    for (auto& value : given[i])
      if (auto err = spec.set(o, value))
        return bad("--" + std::string(spec.name) + " " + *err);
  }
  if (auto err = check_front_doors(o))
    return bad(*err);
  return o;
}

std::string serve_help() {
  std::vector<std::vector<std::string>> given;
  return serve_app(given)->help();
}

std::string redact_uri(const std::string& uri) {
  return redact_store_uri(uri);
}

} // namespace stepwise::tools
