#pragma once

/// The SQL condition that finds rows holding a sealed value
/// (engine/sealed_rows.hpp): the member name as the JSON writer writes it.
#define STEPWISE_SEALED_WHERE "(input LIKE '%\"$sealed\"%' OR data LIKE '%\"$sealed\"%')"
