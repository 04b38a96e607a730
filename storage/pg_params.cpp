#include "storage/pg_params.hpp"

namespace stepwise {

void pg_array::add(std::string_view x) {
  sep();
  // Quote every element: the array parser would otherwise read an
  // unquoted NULL, braces, commas or blanks as syntax.
  buf_ += '"';
  for (char c : x) {
    if (c == '"' || c == '\\')
      buf_ += '\\';
    buf_ += c;
  }
  buf_ += '"';
}

} // namespace stepwise
