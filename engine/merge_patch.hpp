#pragma once

#include <string>
#include <vector>

#include <boost/json/object.hpp>

namespace stepwise {

/// Applies the JSON merge patch (RFC 7396) `patch` to `doc`: a member set
/// to null is removed, an object is merged into the member of the same
/// name, anything else replaces it. A sealed value in `doc`
/// (engine/sealed_json.hpp) counts as a leaf: it is replaced whole, never
/// merged into. Returns the JSON pointers (RFC 6901) of the members the
/// patch set or removed, in the patch's order: what changed, never how.
std::vector<std::string> merge_patch(boost::json::object& doc, const boost::json::object& patch);

} // namespace stepwise
