#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/expected.hpp>

#include "engine/key_ring.hpp"
#include "tools/serve_options.hpp"

namespace stepwise::tools {

/// Returns the database path of a `sqlite:PATH[?...]` store URI.
std::string sqlite_path(const std::string& uri);

/// Returns the key file kept beside a SQLite database when no
/// `--secret-key-file` is given: the database's path with its extension
/// replaced by `.keys` (`./stepwise.db` -> `./stepwise.keys`), so that a
/// copy of `stepwise.db*` does not take the key with it.
std::string default_key_file(const std::string& db_path);

/// Reads the key ring in `path`; warns when others than its owner may
/// read the file.
[[nodiscard]] caf::expected<std::shared_ptr<const key_ring>> read_key_file(const std::string& path);

/// Writes a new key file at `path` holding one fresh key named `id`, mode
/// 0600 and flushed to disk with its directory entry; fails when the file
/// exists.
[[nodiscard]] caf::expected<std::shared_ptr<const key_ring>> create_key_file(
  const std::string& path, const std::string& id);

/// Copies the key file `from` to `to` (mode 0600, written to
/// `to.partial`, flushed and renamed, replacing `to`).
[[nodiscard]] caf::error copy_key_file(const std::string& from, const std::string& to);

/// Says whether the store holds sealed values already.
using sealed_probe = std::function<caf::expected<bool>()>;

/// Returns the key ring `o` asks for, saying in the log where it comes
/// from: `--secret-key-file`; none with `--insecure-plaintext-secrets`;
/// else on SQLite the file beside the database, created when missing if
/// `create` (`stepwise serve`) and `probe` (when given) finds no sealed
/// value (a lost key file is an error, not a new key); else an error
/// saying how to make a key.
[[nodiscard]] caf::expected<std::shared_ptr<const key_ring>> keys_for(
  const serve_options& o, bool create, const sealed_probe& probe = nullptr);

} // namespace stepwise::tools
