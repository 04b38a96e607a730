// `stepwise backup`: a consistent copy of a SQLite store taken while
// servers write to it (storage/sqlite_backup), and of the key file that
// opens its secret values. PostgreSQL has pg_dump for that; the command
// says so.

#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include "engine/errc.hpp"
#include "storage/sqlite_backup.hpp"
#include "tools/backup_command.hpp"
#include "tools/key_file.hpp"
#include "tools/log.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

namespace {

struct backup_flags {
  std::string to;
  bool force = false;
  int pages_per_step = 256;
};

int backup_usage(const std::string& why) {
  std::fprintf(stderr, "error: %s (see stepwise backup --help)\n", why.c_str());
  return 2;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

int pg_dump_instead(const serve_options& o, const backup_flags& f) {
  auto keys = o.secret_key_file.empty() ? std::string{"key file"} : o.secret_key_file;
  std::fprintf(stderr,
               "error: stepwise backup copies SQLite stores; a PostgreSQL store is backed up "
               "with pg_dump, while servers run:\n"
               "  pg_dump --format=custom --file %s '%s'\n"
               "and the %s with it (README.md, \"Backup and restore\")\n",
               f.to.c_str(), redact_uri(o.store).c_str(), keys.c_str());
  return 1;
}

/// Returns the key file of the store `o` names, or "" when secret values
/// are stored unencrypted (`--insecure-plaintext-secrets`).
std::string key_file_of(const serve_options& o) {
  if (o.insecure_plaintext_secrets)
    return {};
  return o.secret_key_file.empty() ? default_key_file(sqlite_path(o.store)) : o.secret_key_file;
}

int backup(const backup_flags& f, const std::vector<std::string>& args) {
  // The same settings as `serve`: flags, STEPWISE_* variables, --config.
  auto opts = parse_serve_options(args, process_env());
  if (!opts)
    return backup_usage(message_of(opts.error()));
  set_log_level(opts->level);
  if (opts->store.rfind("postgresql://", 0) == 0 || opts->store.rfind("postgres://", 0) == 0)
    return pg_dump_instead(*opts, f);
  if (opts->store.rfind("sqlite:", 0) != 0)
    return backup_usage("not a store URI: " + redact_uri(opts->store));
  auto db = sqlite_path(opts->store);
  auto keys = key_file_of(*opts);
  // Beside the copy under the name `serve` looks for (backup.db ->
  // backup.keys), so that the copy opens as it is.
  auto keys_to = default_key_file(f.to);
  bool copy_keys = !keys.empty() && exists(keys);
  if (!opts->secret_key_file.empty() && !copy_keys)
    return backup_usage("no key file " + keys);
  if (copy_keys && keys_to == keys)
    return backup_usage("the copy's key file " + keys_to
                        + " would be the store's own: choose another name for the copy");
  if (copy_keys && !f.force && exists(keys_to))
    return backup_usage(keys_to + " exists: pass --force to replace it");
  sqlite_backup_options bopts;
  bopts.force = f.force;
  bopts.pages_per_step = f.pages_per_step;
  auto rep = backup_sqlite(db, f.to, bopts);
  if (!rep) {
    log(log_level::error, "backup of " + db + " failed: " + message_of(rep.error()));
    return 1;
  }
  std::printf("wrote %s: a copy of %s as of one instant: %lld operations, %lld events, %lld "
              "pages, %lld bytes (%lld steps)\n",
              f.to.c_str(), db.c_str(), static_cast<long long>(rep->operations),
              static_cast<long long>(rep->events), static_cast<long long>(rep->pages),
              static_cast<long long>(rep->bytes), static_cast<long long>(rep->steps));
  if (!copy_keys) {
    auto why = keys.empty() ? std::string{"secret values are stored unencrypted "
                                          "(--insecure-plaintext-secrets)"}
                            : keys
                                + " is missing: the store holds no encrypted secret value, "
                                  "or their key is lost";
    std::printf("no key file copied: %s\n", why.c_str());
    return 0;
  }
  if (auto err = copy_key_file(keys, keys_to)) {
    log(log_level::error, "the database was copied, the key file not: " + message_of(err));
    return 1;
  }
  std::printf("copied the key file %s to %s (mode 0600): the copy's secret values open with "
              "it only; keep it apart from the copy\n",
              keys.c_str(), keys_to.c_str());
  return 0;
}

} // namespace

void add_backup(CLI::App& root, cli_run& run) {
  auto f = std::make_shared<backup_flags>();
  auto* cmd = root.add_subcommand(
    "backup", "a consistent copy of a SQLite store and its key file, while servers run");
  cmd->footer(
    "Copies the SQLite store to FILE as of one instant, in steps of N pages that never hold\n"
    "up the servers' commits, to FILE.partial, then renamed. Copies the key file too, beside\n"
    "FILE under the name serve looks for (backup.db -> backup.keys). Takes the store and key\n"
    "file as `stepwise serve` does (--store, --secret-key-file, --config, STEPWISE_*).\n"
    "Restore: stop the server, remove the database's -wal and -shm files, copy FILE and its\n"
    "key file in place of the database and its key file, start it. PostgreSQL: pg_dump\n"
    "(README.md, \"Backup and restore\").");
  cmd->add_option("--to", f->to, "the copy to write")->type_name("FILE")->required();
  cmd->add_flag("--force", f->force, "replace FILE and its key file if they exist");
  cmd->add_option("--pages-per-step", f->pages_per_step, "pages copied per step (default 256)")
    ->type_name("N")
    ->check(CLI::Range(1, 1 << 20));
  // The serve flags that name the store and the key file.
  cmd->allow_extras();
  cmd->fallthrough(false);
  cmd->callback([&run, f, cmd] { run.exit = backup(*f, cmd->remaining()); });
}

} // namespace stepwise::tools
