#pragma once
// The bundled example session (resources/sessions/llama-3.1-8b-70b.json), parsed: what several
// window tests open.
#include <catch2/catch.hpp>

#include <quantfront/core/base/resources.hpp>
#include <quantfront/core/session/session.hpp>

namespace qf::testing {

inline qf::Session exampleSession() {
  const auto text = qf::bundledFile("sessions/llama-3.1-8b-70b.json");
  REQUIRE(text);
  auto session = qf::parseSessionText(*text, "example");
  REQUIRE(session.ok());
  return *session;
}

}  // namespace qf::testing
