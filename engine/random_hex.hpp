#pragma once

#include <cstddef>
#include <string>

namespace stepwise {

/// Returns `digits` random hex digits from the system's entropy source: the
/// part of an id that tells apart processes (or stores) that otherwise
/// look alike, e.g. a restarted container's pid 1.
std::string random_hex(size_t digits);

} // namespace stepwise
