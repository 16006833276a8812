// Version 1 → 2 migration, on the JSON document. Pointers in errors are the version-1
// file's own, so a user can find the field.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>

#include <cmath>

#include "session/session_support.hpp"

namespace qf::sessionfile {

std::optional<Error> migrateV1(const JsonReader& r, Json& doc) {
  if (!doc.is_object())
    return r.error("/", "", "expected an object, found " + JsonReader::describe(doc));
  std::size_t metricsMoved = 0;
  std::size_t runsWithoutDigest = 0;
  if (auto it = doc.find("scenario"); it != doc.end() && it->is_object()) {
    Json& sc = *it;
    if (sc.contains("batch")) {
      return r.error("/scenario/batch", "batch",
                     "version-1 sessions hold batch_min and batch_max, not batch");
    }
    Json batch = Json::object();
    double lo = 1, hi = 1024;
    if (auto e = r.readNumber(lo, sc, "/scenario", "batch_min")) return e;
    if (auto e = r.readNumber(hi, sc, "/scenario", "batch_max")) return e;
    batch["min"] = lo;
    batch["max"] = hi;
    sc.erase("batch_min");
    sc.erase("batch_max");
    sc["batch"] = batch;
  }
  if (auto it = doc.find("candidates"); it != doc.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      Json& c = (*it)[i];
      const std::string p = child("/candidates", i);
      if (!c.is_object())
        return r.error(p, "candidates", "expected an object, found " + JsonReader::describe(c));
      std::string scheme, provenance, source;
      if (auto e = r.readString(scheme, c, p, "scheme", true, false)) return e;
      if (auto e = r.readString(provenance, c, p, "provenance", true)) return e;
      if (auto e = r.readString(source, c, p, "source", false)) return e;
      const auto kind = kindFromName(provenance);
      if (!kind) {
        return r.error(child(p, "provenance"), "provenance",
                       "expected modelled, measured or published, found '" + provenance + "'");
      }
      if (*kind != ProvenanceKind::Modelled && source.empty()) {
        return r.error(child(p, "source"), "source",
                       "a version-1 candidate with " + provenance +
                           " figures must name its source (file or citation)");
      }
      Json prov = {{"kind", provenance}};
      if (*kind == ProvenanceKind::Measured) prov["source_file"] = source;
      if (*kind == ProvenanceKind::Published) prov["citation"] = source;
      if (*kind == ProvenanceKind::Modelled && !source.empty()) prov["note"] = source;
      auto mit = c.find("metrics");
      if (mit == c.end() || mit->is_null()) return r.missing(p, "metrics", "object");
      if (!mit->is_object()) {
        return r.error(child(p, "metrics"), "metrics",
                       "expected an object of named numbers, found " + JsonReader::describe(*mit));
      }
      for (auto m = mit->begin(); m != mit->end(); ++m) {
        const std::string mp = child(child(p, "metrics"), m.key());
        if (!m->is_number()) {
          return r.error(mp, m.key(),
                         "expected a number, found " + JsonReader::describe(m.value()));
        }
        const double v = m->get<double>();
        if (!std::isfinite(v)) return r.error(mp, m.key(), "expected a finite number");
        m.value() = Json{{"value", v}, {"provenance", prov}};
        ++metricsMoved;
      }
      c.erase("scheme");
      c.erase("provenance");
      c.erase("source");
      c["schemes"] = Json{{"linear", scheme}};
    }
  }
  if (auto it = doc.find("imported_runs"); it != doc.end() && it->is_array()) {
    for (auto& run : *it) {
      if (run.is_object() && !run.contains("sha256")) {
        run["sha256"] = "";
        ++runsWithoutDigest;
      }
    }
  }
  if (auto it = doc.find("view"); it != doc.end() && it->is_object()) {
    Json& v = *it;
    if (auto o = v.find("objectives"); o != v.end() && o->is_array()) {
      for (std::size_t i = 0; i < o->size(); ++i) {
        Json& item = (*o)[i];
        const std::string p = child("/view/objectives", i);
        if (!item.is_string()) {
          return r.error(
              p, "objectives",
              "expected \"metric:max\" or \"metric:min\", found " + JsonReader::describe(item));
        }
        const std::string text = item.get<std::string>();
        const auto colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) {
          return r.error(p, "objectives",
                         "expected \"metric:max\" or \"metric:min\", found '" + text + "'");
        }
        item = Json{{"metric", text.substr(0, colon)}, {"orientation", text.substr(colon + 1)}};
      }
    }
    Json axes = Json::object();
    for (const char* key : {"x", "y"}) {
      if (auto a = v.find(key); a != v.end()) {
        axes[key] = *a;
        v.erase(key);
      }
    }
    if (!axes.empty()) v["axes"] = axes;
  }
  doc["version"] = kSessionVersion;
  r.note(words("migrated from session version 1 to ", kSessionVersion,
               ": each candidate's single 'scheme' became 'schemes' per layer kind; ", metricsMoved,
               " bare metric numbers took their candidate's provenance and source; the view's "
               "objectives and axes took the version-2 shape; saving writes version ",
               kSessionVersion));
  if (runsWithoutDigest > 0) {
    r.note(std::to_string(runsWithoutDigest) +
           " imported runs have no SHA-256 (version 1 did not record one): importing their "
           "files again adds them anew");
  }
  return std::nullopt;
}

}  // namespace qf::sessionfile
