// `stepwise ops purge`: retention by hand. It works on the store, not
// through a server, as `secrets rotate` does: the removal is the store's
// (storage/purge_batches), so a server need not run, and when one runs its
// commits wait at most one batch.

#include <chrono>
#include <cstdio>
#include <memory>

#include "engine/duration_text.hpp"
#include "engine/errc.hpp"
#include "storage/purge_batches.hpp"
#include "tools/command_store.hpp"
#include "tools/log.hpp"
#include "tools/purge_command.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

namespace {

struct purge_flags {
  std::string ended_before;
  std::string workflow;
  bool dry_run = false;
  size_t batch = 100;
};

int purge_usage(const std::string& why) {
  std::fprintf(stderr, "error: %s (see stepwise ops purge --help)\n", why.c_str());
  return 2;
}

// An RFC 3339 time, or a duration that far before now (`30d`).
std::optional<time_point> parse_before(const std::string& text) {
  if (auto t = parse_time(text))
    return t;
  if (auto d = parse_duration_text(text))
    return std::chrono::time_point_cast<duration>(std::chrono::system_clock::now()) - *d;
  return std::nullopt;
}

std::string totals(const purge_result& r) {
  return std::to_string(r.operations) + " operations and " + std::to_string(r.events) + " events";
}

int purge(const purge_flags& f, const std::vector<std::string>& args) {
  auto before = parse_before(f.ended_before);
  if (!before)
    return purge_usage("--ended-before: not an RFC 3339 time nor a duration: " + f.ended_before);
  // The same settings as `serve`: flags, STEPWISE_* variables, --config.
  auto opts = parse_serve_options(args, process_env());
  if (!opts)
    return purge_usage(message_of(opts.error()));
  set_log_level(opts->level);
  auto st = open_command_store(*opts);
  if (!st)
    return 1;
  auto* ret = st->retention();
  if (ret == nullptr) {
    log(log_level::error, "the store " + redact_uri(opts->store) + " cannot purge operations");
    return 1;
  }
  purge_request req{*before, f.workflow, f.batch, f.dry_run, std::nullopt};
  auto done = purge_batches(*ret, req, [&](const purge_result& r) {
    if (!f.dry_run)
      log(log_level::info, "removed so far: " + totals(r));
  });
  if (!done) {
    log(log_level::error, "purge stopped: " + message_of(done.error())
                            + " (what was removed stays removed; run it again)");
    return 1;
  }
  auto when = format_time(*before);
  if (f.dry_run) {
    std::printf("dry run: would remove %s that ended before %s\n", totals(*done).c_str(),
                when.c_str());
    for (auto& id : done->ids)
      std::printf("  %s\n", id.c_str());
    if (done->operations > done->ids.size())
      std::printf("  ... and %zu more\n", done->operations - done->ids.size());
    return 0;
  }
  std::printf("removed %s that ended before %s; events up to seq %lld may be gone\n",
              totals(*done).c_str(), when.c_str(), static_cast<long long>(done->horizon));
  return 0;
}

} // namespace

void add_purge(CLI::App& ops, cli_run& run) {
  auto f = std::make_shared<purge_flags>();
  auto* cmd =
    ops.add_subcommand("purge", "remove ended operations with their events, straight in the store");
  cmd->footer(
    "Removes the operations that ended before TIME (RFC 3339, or a duration before now:\n"
    "30d), with their events, signals and secret values, N per transaction, oldest first,\n"
    "until none is left. Never removes live, queued or paused operations, a parent with a\n"
    "live child or a child with a live parent, a provisioning whose infrastructure was\n"
    "not deprovisioned or that a deprovisioning runs on, a schedule fire's operation\n"
    "within a minute of its creation, nor events a sink has not delivered. Servers may\n"
    "run meanwhile. Takes the store as `stepwise serve` does (--store, --config,\n"
    "STEPWISE_*).");
  cmd->add_option("--ended-before", f->ended_before, "remove what ended before this")
    ->type_name("TIME")
    ->required();
  cmd->add_option("--workflow", f->workflow, "only operations of this workflow")->type_name("W");
  cmd->add_flag("--dry-run", f->dry_run, "remove nothing; print what would go");
  cmd->add_option("--batch", f->batch, "operations per transaction (1 to 10000, default 100)")
    ->type_name("N")
    ->check(CLI::Range(size_t{1}, size_t{10000}));
  // The serve flags that name the store.
  cmd->allow_extras();
  cmd->fallthrough(false);
  cmd->callback([&run, f, cmd] { run.exit = purge(*f, cmd->remaining()); });
}

} // namespace stepwise::tools
