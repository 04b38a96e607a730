// `stepwise secrets rotate`: seals every stored secret value again with the
// current key of the key ring, straight in the store (servers may run
// meanwhile), so that older keys can then be removed from the key file.

#include <cstdio>
#include <memory>

#include "engine/errc.hpp"
#include "storage/rotate_secrets.hpp"
#include "tools/cli.hpp"
#include "tools/key_file.hpp"
#include "tools/command_store.hpp"
#include "tools/log.hpp"
#include "tools/secrets_command.hpp"

namespace stepwise::tools {

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr, "error: %s (see stepwise secrets rotate --help)\n", why.c_str());
  return 2;
}

std::string report_line(const rotation_report& rep) {
  return "pass " + std::to_string(rep.passes) + ": " + std::to_string(rep.checked)
         + " operations with secret values checked, " + std::to_string(rep.rewritten)
         + " re-encrypted";
}

int rotate(size_t batch, const std::vector<std::string>& args) {
  rotation_options ropts;
  ropts.batch = batch;
  // The same settings as `serve`: flags, STEPWISE_* variables, --config.
  auto opts = parse_serve_options(args, process_env());
  if (!opts)
    return usage(message_of(opts.error()));
  if (opts->insecure_plaintext_secrets)
    return usage("rotation encrypts with a key: drop --insecure-plaintext-secrets");
  set_log_level(opts->level);
  auto keys = keys_for(*opts, false);
  if (!keys) {
    log(log_level::error, message_of(keys.error()));
    return 1;
  }
  auto st = open_command_store(*opts);
  if (!st)
    return 1;
  auto* rows = st->sealed();
  if (rows == nullptr) {
    log(log_level::error, "the store " + redact_uri(opts->store) + " cannot rotate secrets");
    return 1;
  }
  ropts.progress = [](const rotation_report& rep) { log(log_level::info, report_line(rep)); };
  auto rep = rotate_secrets(*rows, **keys, ropts);
  if (!rep) {
    log(log_level::error,
        "rotation stopped: " + message_of(rep.error()) + " (what was written stays; run it again)");
    return 1;
  }
  auto key = (*keys)->current().id;
  std::printf("%s\n", report_line(*rep).c_str());
  for (auto& [id, why] : rep->failures)
    std::printf("not re-encrypted: %s: %s\n", id.c_str(), why.c_str());
  if (rep->changed > 0)
    std::printf("%zu operations kept changing while being rotated: run it again (or once "
                "every server runs with this key file)\n",
                rep->changed);
  if (!rep->failures.empty() || rep->changed > 0)
    return 1;
  std::printf("done: every sealed secret value is under key %s; the other keys may be "
              "removed from the key file (restart the servers after)\n",
              key.c_str());
  return 0;
}

} // namespace

void add_secrets(CLI::App& root, cli_run& run) {
  auto* secrets = root.add_subcommand("secrets", "secret values at rest");
  secrets->require_subcommand(1);
  auto* rot = secrets->add_subcommand(
    "rotate", "Encrypts every stored secret value again with the first key of the key ring, N\n"
              "operations (default 100) per transaction; servers may run meanwhile. Takes the\n"
              "store and key ring as `stepwise serve` does (--store, --secret-key-file, --config,\n"
              "STEPWISE_* variables). Rotating a key: add a new first line to the key file,\n"
              "restart every server with it, run this, then remove the old line.");
  auto batch = std::make_shared<size_t>(100);
  rot->add_option("--batch", *batch, "operations per transaction (1 to 999999)")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{999999}));
  // The serve flags that name the store and the key ring.
  rot->allow_extras();
  rot->fallthrough(false);
  rot->callback([&run, batch, rot] {
    auto rest = rot->remaining();
    run.exit = rotate(*batch, rest);
  });
}

} // namespace stepwise::tools
