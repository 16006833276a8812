// A candidate's modelled metrics: the analytic engine's figures for its model, schemes and
// GPUs under the session's scenario.
#include <nlohmann/json.hpp>
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/session/session.hpp>

#include <algorithm>
#include <cctype>

#include <quantfront/core/analysis/curve_intervals.hpp>
#include <quantfront/core/model/cost.hpp>
#include <quantfront/core/model/engine.hpp>

namespace qf {

std::string useCaseMetricStem(const std::string& id) {
  std::string out = id;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::vector<std::string> modelledMetricNames() {
  std::vector<std::string> names = {"memory_floor_ms", "step_ms_b1",
                                    "step_ms_b64",     "weights_gib",
                                    "max_concurrency", "tokens_per_s_at_capacity"};
  if (const auto useCases = bundledUseCases()) {
    for (const auto& u : *useCases) {
      const std::string stem = useCaseMetricStem(u.id);
      names.push_back("latency_" + stem + "_sync_s");
      names.push_back("queries_per_usd_" + stem);
      names.push_back("cost_reduction_pct_" + stem);
    }
  }
  return names;
}

ScenarioSpec candidateScenarioSpec(const Candidate& c, const ScenarioSpec& scenario) {
  ScenarioSpec spec = scenario;
  spec.model = c.model;
  spec.gpu = c.gpu;
  // The scenario's edited GPU is the GPU it was edited from: it applies to the candidates on
  // that GPU only (ids compared as the catalog does, ignoring case).
  if (spec.gpuSpec && !sameIgnoringCase(c.gpu, scenario.gpu)) spec.gpuSpec.reset();
  spec.tp = c.gpuCount;
  return spec;
}

namespace {

/// What a candidate's modelled figures were made from: the engine's configuration and constants.
std::string engineNote(const Candidate& c, const ScenarioSpec& spec, const Scenario& s,
                       const SchemeReport& sr, bool editedGpu) {
  return words("analytic engine: ", c.model, " on ", c.gpuCount, " x ", c.gpu,
               editedGpu ? " (edited: " + s.gpu.name + ")" : std::string(), " (TP ", c.gpuCount,
               "), scheme ", sr.assignment.id, " (", sr.pathName, " path); max_model_len ",
               spec.maxModelLen, ", kv ", spec.kvDtype, ", mem_util ", spec.memUtil, ", reserve ",
               spec.reserveGib, " GiB, context ", spec.contextTokens,
               "; constants: ", s.efficiency.source);
}

/// `iv` in other units (its value and bounds times `k`).
IntervalEstimate scaled(IntervalEstimate iv, double k) {
  iv.value *= k;
  iv.low *= k;
  iv.high *= k;
  return iv;
}

// Every modelled figure of a candidate's configuration (model, GPU, count and schemes), before
// the candidate's own published or measured figures of the same names are left out.
Result<std::map<std::string, MetricValue>> configurationMetrics(const Candidate& c,
                                                                const ScenarioSpec& scenario,
                                                                const Catalog& cat) {
  auto wrap = [&](const Error& e) {
    return Error{e.file, "candidate '" + c.id + "'", e.field, e.message};
  };
  const ScenarioSpec spec = candidateScenarioSpec(c, scenario);
  const bool editedGpu = spec.gpuSpec.has_value();
  auto s = resolveScenario(spec, cat);
  if (!s) return wrap(s.error());
  auto cands = makeCandidates({}, c.schemeLinear, c.schemeMoe, c.schemeLmHead, cat);
  if (!cands) return wrap(cands.error());
  auto rep = runEngine(*s, *cands, {1.0, 64.0});
  if (!rep) return wrap(rep.error());
  auto useCases = bundledUseCases();
  if (!useCases) return wrap(useCases.error());
  const SchemeReport& sr = rep->schemes.front();
  // Every figure the curve decides carries its 80% interval from the calibration's fit
  // record (none under the datasheet roofline); memory arithmetic (weights, sequences) is
  // exact given the config and carries none.
  auto own = StepCurveIntervals::build(*s, rep->params, sr.assignment);
  if (!own) return wrap(own.error());
  const std::string note = engineNote(c, spec, *s, sr, editedGpu);
  const std::string spread =
      own->hasSpread() ? "; lo/hi: 80% interval from the constants' spread" : std::string();
  auto make = [&](double v, const std::string& more = {}) {
    MetricValue m;
    m.value = v;
    m.provenance.kind = ProvenanceKind::Modelled;
    m.provenance.note = note + more;
    return m;
  };
  auto withInterval = [&](const IntervalEstimate& iv, const std::string& more = {}) {
    MetricValue m = make(iv.value, more + spread);
    if (own->hasSpread() && iv.high > iv.low) {
      m.lo = iv.low;
      m.hi = iv.high;
    }
    return m;
  };
  std::map<std::string, MetricValue> out;
  out.emplace("memory_floor_ms",
              withInterval(scaled(
                  own->figure([](const StepCurve& cv) { return cv.memoryFloorSeconds(); }), 1e3)));
  out.emplace("step_ms_b1", withInterval(scaled(own->stepSeconds(1.0), 1e3)));
  out.emplace("step_ms_b64", withInterval(scaled(own->stepSeconds(64.0), 1e3)));
  out.emplace("weights_gib", make(sr.capacity.weightsGib));
  out.emplace("max_concurrency", make(static_cast<double>(sr.capacity.maxSeqs)));
  if (sr.capacity.maxSeqs > 0) {
    const double seqs = static_cast<double>(sr.capacity.maxSeqs);
    out.emplace("tokens_per_s_at_capacity", withInterval(own->tokensPerS(seqs)));
  } else {
    out.emplace("tokens_per_s_at_capacity", make(sr.capacity.tokensPerSAtCapacity));
  }

  // Per use case: one request served alone (batch 1), its synchronous queries per USD and the
  // cost per query saved against the same model's bf16 on the same GPUs (modelled here, so no
  // bf16 candidate is needed in the session, and under the same nudged constants, so the
  // ratio's interval is the ratio's own). Unpriced GPUs get no USD figures.
  const auto price = deploymentPricePerHour(s->gpu, s->tp);
  const bool priced = price && *price > 0;
  const SchemeAssignment& mine = sr.assignment;
  const bool isBf16 = !mine.mixed() && mine.linear.id == cat.baselineSchemeId();
  std::optional<StepCurveIntervals> bf16;
  if (priced && !isBf16) {
    auto base = makeCandidates({cat.baselineSchemeId()}, "", "", "", cat);
    if (!base) return wrap(base.error());
    auto curves = StepCurveIntervals::build(*s, rep->params, base->front());
    if (!curves) return wrap(curves.error());
    bf16 = std::move(*curves);
  }
  for (const UseCase& u : *useCases) {
    const std::string stem = useCaseMetricStem(u.id);
    auto latencyOf = [&u](const StepCurve& cv) {
      return estimateRequestLatency(cv, u.prefillTokens, u.decodeTokens, 1.0).totalS;
    };
    const IntervalEstimate lat = own->figure(latencyOf);
    const std::string shape =
        words("; use case ", u.id, ": ", u.prefillTokens, " prompt + ", u.decodeTokens,
              " output tokens, batch 1 (one request served alone)");
    out.emplace("latency_" + stem + "_sync_s", withInterval(lat, shape));
    if (!priced || !(lat.value > 0)) continue;
    const std::string usd =
        words(shape, "; price ", *s->gpu.pricePerGpuHourUsd, " USD/h x ", s->tp,
              s->tp == 1 ? " GPU" : " GPUs", " = ", *price,
              " USD/h; queries per USD = 3600 / (modelled latency ", lat.value, " s x price)");
    const double usdPerHour = *price;
    out.emplace("queries_per_usd_" + stem, withInterval(own->figure([&](const StepCurve& cv) {
                  return queriesPerUsdSync(latencyOf(cv), usdPerHour);
                }),
                                                        usd));
    std::string base = usd + "; baseline: " + c.model + " bf16 on the same GPUs";
    if (bf16) {
      // Cost per query is proportional to latency at one price: the saving is 1 − t / t_bf16.
      const IntervalEstimate ratio = own->figureWith(
          *bf16,
          [&](const StepCurve& cv, const StepCurve& b) { return latencyOf(cv) / latencyOf(b); });
      base += words(", modelled alike (latency ", bf16->figure(latencyOf).value, " s)");
      const IntervalEstimate pct{100.0 * (1.0 - ratio.value), 100.0 * (1.0 - ratio.high),
                                 100.0 * (1.0 - ratio.low), ratio.extrapolated};
      out.emplace("cost_reduction_pct_" + stem, withInterval(pct, base));
    } else {
      base += " (this candidate)";
      out.emplace("cost_reduction_pct_" + stem, make(0.0, base));
    }
  }

  return out;
}

// A published or measured figure of the same name is kept: the modelled one is left out.
void keepOwnFigures(const Candidate& c, std::map<std::string, MetricValue>& out) {
  std::erase_if(out, [&](const auto& kv) {
    const auto it = c.metrics.find(kv.first);
    return it != c.metrics.end() && it->second.provenance.kind != ProvenanceKind::Modelled;
  });
}

// What one modelled figure adds to the saved session, in bytes: its name, value, interval,
// provenance and note as sessionToText indents them (the structure measured at about 170
// bytes beside the name and the note).
std::uint64_t savedBytes(const std::string& name, const MetricValue& m) {
  return 170 + name.size() + m.provenance.note.size();
}

std::string megabytes(std::uint64_t bytes) {
  return fixedDecimals(static_cast<double>(bytes) / (1024.0 * 1024.0), 0) + " MiB";
}

}  // namespace

Result<std::map<std::string, MetricValue>> modelledMetrics(const Candidate& c,
                                                           const ScenarioSpec& scenario,
                                                           const Catalog& cat) {
  auto out = configurationMetrics(c, scenario, cat);
  if (!out) return out;
  keepOwnFigures(c, *out);
  return out;
}

std::optional<Error> refreshModelledMetrics(Session& s, const Catalog& cat,
                                            std::uint64_t maxAddedBytes) {
  // Candidates of one configuration share their figures (computed once), and nothing changes
  // until every candidate's figures are known and their saved size is inside the budget.
  std::map<std::string, std::map<std::string, MetricValue>> byConfiguration;
  std::vector<const std::map<std::string, MetricValue>*> figures(s.candidates.size());
  std::uint64_t added = 0;
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    const Candidate& c = s.candidates[i];
    std::string key = c.model;
    for (const std::string* part : {&c.gpu, &c.schemeLinear, &c.schemeMoe, &c.schemeLmHead}) {
      key += '\x1f';
      key += *part;
    }
    key += '\x1f' + std::to_string(c.gpuCount);
    auto it = byConfiguration.find(key);
    if (it == byConfiguration.end()) {
      auto m = configurationMetrics(c, s.scenario, cat);
      if (!m) {
        Error e = m.error();
        e.position = "/candidates/" + std::to_string(i) + " (" + e.position + ")";
        return e;
      }
      it = byConfiguration.emplace(std::move(key), std::move(*m)).first;
    }
    figures[i] = &it->second;
    for (const auto& [name, v] : it->second) added += savedBytes(name, v);
    // The estimate is within a few percent of what the save writes (32,000 candidates passed
    // under it by 0.04% and the save then refused the 805.6 MB text): a tenth is kept spare.
    if (added + added / 10 > maxAddedBytes) {
      // Refused before the session grows past what a session file may hold (a refreshed
      // session that no reader can open again is lost work).
      const std::uint64_t projected =
          added / (i + 1) * static_cast<std::uint64_t>(s.candidates.size());
      return Error{"", "/candidates", "",
                   "refresh would add about " + megabytes(projected) + " of modelled figures (" +
                       std::to_string(s.candidates.size()) + " candidates, about " +
                       std::to_string(added / (i + 1) / 1024) + " KiB each), past the " +
                       megabytes(maxAddedBytes) +
                       " allowed; nothing was changed (hide or remove candidates, or split "
                       "the session)"};
    }
  }
  for (std::size_t i = 0; i < s.candidates.size(); ++i) {
    Candidate& c = s.candidates[i];
    std::erase_if(c.metrics, [](const auto& kv) {
      return kv.second.provenance.kind == ProvenanceKind::Modelled;
    });
    std::map<std::string, MetricValue> own = *figures[i];
    keepOwnFigures(c, own);
    for (auto& [name, v] : own) c.metrics[name] = std::move(v);
  }
  return std::nullopt;
}

}  // namespace qf
