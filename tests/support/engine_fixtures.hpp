#pragma once
// Test helpers: a scenario and uniform candidates from the bundled catalog.
#include <catch2/catch.hpp>

#include <string>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf::test {

/// Catalog model on a catalog GPU at tensor-parallel degree `tp`, default serving settings.
inline Scenario scenario(const std::string& model, const std::string& gpu, int tp = 1) {
  const Catalog& cat = Catalog::bundled();
  auto m = cat.resolveModel(model);
  REQUIRE(m.ok());
  auto g = cat.resolveGpu(gpu);
  REQUIRE(g.ok());
  Scenario s;
  s.model = *m;
  s.gpu = *g;
  s.tp = tp;
  cat.setFallbacks(s);
  return s;
}

/// A candidate with one built-in scheme on every layer kind.
inline SchemeAssignment uniform(const std::string& id) {
  auto s = Catalog::bundled().scheme(id);
  REQUIRE(s.ok());
  SchemeAssignment c;
  c.id = s->id;
  c.linear = *s;
  return c;
}

}  // namespace qf::test
