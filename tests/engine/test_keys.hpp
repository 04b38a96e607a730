#pragma once

#include <string>

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/key_ring.hpp"

/// Fixed keys for the secrets tests (engine, actors, storage).
namespace stepwise::test {

/// Two keys of 32 bytes each, as `openssl rand -base64 32` writes them.
inline const std::string key_a = "Rr6Vb0b7Qd2CZVJQ2Jm3dJ7N8l9KqTqU0A1x4Hk2c5E=";
inline const std::string key_b = "m0HhQ8f3pO3K1u6J2l9s0d4Y7c1B5n8V2x6Z4a3W9qE=";

/// Returns the ring of key file `text`; fails the test when it is invalid.
inline key_ring test_ring(const std::string& text) {
  auto r = key_ring::parse(text, "keys");
  INFO((r ? std::string{} : message_of(r.error())));
  REQUIRE(r);
  return std::move(*r);
}

} // namespace stepwise::test
