#pragma once

#include <string>

#include "engine/store.hpp"

namespace stepwise::test {

/// Returns the text of `tests/storage/fixtures/NAME` (the folder is
/// `STEPWISE_FIXTURES`, set by meson).
std::string fixture_text(const std::string& name);

/// Checks that every row of a fixture (made by the demo workflow: one
/// operation ended, one asleep in its `pause` step with signal `go`, their
/// events, schedule `nightly`) reads back through `st`; returns the id of
/// the sleeping one.
std::string check_fixture_rows(store& st);

/// Launches an engine with the demo workflow on `st` and checks that the
/// sleeping operation `id` resumes and succeeds.
void check_sleeper_resumes(store_ptr st, const std::string& id);

} // namespace stepwise::test
