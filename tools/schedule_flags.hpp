#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>
#include <CLI/CLI.hpp>

namespace stepwise::tools {

/// The definition of a schedule as `stepwise schedules create` and `edit`
/// take it: a JSON file, and flags for its fields (a flag wins over the
/// file). Unset flags leave the field as the file (or, for edit, the
/// server) has it.
struct schedule_flags {
  /// A JSON file with the definition (`-`: stdin).
  std::string file;
  std::optional<std::string> id, workflow, version, input, cron, every, offset, time_zone, overlap,
    catch_up, catch_up_window, end_at;
  /// create only: create it paused.
  bool paused = false;
};

/// Adds the flags of `f` to `cmd`; `create` adds `--id` and `--paused`
/// (edit takes the id as its argument, and has pause and resume).
void add_schedule_flags(CLI::App& cmd, schedule_flags& f, bool create);

/// Applies `f` to `body` (for create: its file's definition, or {}; for
/// edit: the schedule as the server shows it, without the engine's
/// fields). Returns what is wrong with a value, or an empty string.
std::string apply_schedule_flags(const schedule_flags& f, boost::json::object& body);

/// Reads the definition file `f.file` into `body`; returns what is wrong,
/// or an empty string.
std::string read_schedule_file(const schedule_flags& f, boost::json::object& body);

/// Returns whether `v` holds the mask of a secret value (`"***"`): such
/// an input, read from the server, must not be written back.
bool holds_mask(const boost::json::value& v);

} // namespace stepwise::tools
