// Imported runs become measured metrics of candidates; recovery derived per task.
#include <quantfront/core/base/numbers.hpp>
#include <quantfront/core/base/text.hpp>
#include <quantfront/core/session/attach_runs.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/serving.hpp>

namespace qf {

namespace {

constexpr double kZ95 = 1.959963984540054;

std::vector<std::string> wordsOf(std::string_view name) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : asciiLower(name)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    } else if (!cur.empty()) {
      words.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) words.push_back(cur);
  return words;
}

/// lm-eval filter preference: strict-match, then none, then the first by name.
int filterRank(const std::string& filter) {
  if (filter == "strict-match") return 0;
  if (filter == "none") return 1;
  return 2;
}

/// Primary metric of a task for recovery: exact_match, acc_norm, acc, accuracy, then by name.
int primaryRank(const std::string& metric) {
  static const char* kOrder[] = {"exact_match", "acc_norm", "acc", "accuracy"};
  for (int i = 0; i < 4; ++i) {
    if (metric == kOrder[i]) return i;
  }
  return 4;
}

struct ScoreMetric {
  std::string task;
  std::string metric;
};
/// "gsm8k_exact_match" → {"gsm8k", "exact_match"} when the dictionary reads it as an lm-eval
/// task score with a maximum direction.
std::optional<ScoreMetric> splitScore(const std::string& name) {
  const auto info = lookupMetric(name);
  if (!info || info->rule != "<task>_<metric>" || info->direction != Direction::Max) {
    return std::nullopt;
  }
  for (const auto& m : lmEvalMetricNames()) {
    const std::string suffix = "_" + m;
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return ScoreMetric{name.substr(0, name.size() - suffix.size()), m};
    }
  }
  return std::nullopt;
}

MetricValue measured(double v, const ImportedRun& run, std::string note) {
  MetricValue m;
  m.value = v;
  m.provenance.kind = ProvenanceKind::Measured;
  m.provenance.sourceFile = run.sourceFile;
  m.provenance.sha256 = run.sha256;
  m.provenance.note = std::move(note);
  return m;
}

/// Scores stated per filter ("<task>/<metric>,<filter>", lm-evaluation-harness): each task's
/// metrics under its preferred filter, with 95% intervals from the stated standard errors.
std::map<std::string, MetricValue> filteredScores(const ImportedRun& run, const std::string& tool) {
  std::map<std::string, MetricValue> out;
  // task → filter → metric → value; stderr and n by task/filter.
  struct TaskData {
    std::map<std::string, std::map<std::string, double>> values;  // filter → metric → v
    std::map<std::string, std::map<std::string, double>> stderrs;
  };
  std::map<std::string, TaskData> tasks;
  std::map<std::string, double> nSamples;
  for (const auto& [key, v] : run.metrics) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) continue;
    const std::string task = key.substr(0, slash), rest = key.substr(slash + 1);
    if (rest == "n_samples") {
      nSamples[task] = v;
      continue;
    }
    const auto comma = rest.find(',');
    if (comma == std::string::npos) continue;
    std::string metric = rest.substr(0, comma);
    const std::string filter = rest.substr(comma + 1);
    if (metric.ends_with("_stderr")) {
      tasks[task].stderrs[filter][metric.substr(0, metric.size() - 7)] = v;
    } else {
      tasks[task].values[filter][metric] = v;
    }
  }
  for (const auto& [task, data] : tasks) {
    if (data.values.empty()) continue;
    std::vector<std::string> filters;
    for (const auto& [f, _] : data.values) filters.push_back(f);
    std::stable_sort(filters.begin(), filters.end(),
                     [](const auto& a, const auto& b) { return filterRank(a) < filterRank(b); });
    const std::string& filter = filters.front();
    std::string others;
    for (std::size_t i = 1; i < filters.size(); ++i)
      others += (others.empty() ? "" : ", ") + filters[i];
    for (const auto& [metric, v] : data.values.at(filter)) {
      if (!std::isfinite(v)) continue;
      std::string note = tool + " task " + task + ", metric " + metric + ", filter " + filter +
                         (others.empty() ? "" : " (primary; also in the file: " + others + ")");
      MetricValue m = measured(v, run, "");
      const auto se = data.stderrs.find(filter);
      if (se != data.stderrs.end()) {
        const auto s = se->second.find(metric);
        if (s != se->second.end() && std::isfinite(s->second) && s->second >= 0) {
          m.lo = v - kZ95 * s->second;
          m.hi = v + kZ95 * s->second;
          note += "; 95% interval value +/- 1.96 x stderr (" + sigFigs(s->second, 6) + ")";
        }
      }
      if (const auto n = nSamples.find(task); n != nSamples.end()) m.n = n->second;
      m.provenance.note = note;
      out[task + "_" + metric] = std::move(m);
    }
  }
  return out;
}

/// Scores stated without a filter ("<task>/<metric>", e.g. vLLM's gsm8k_eval) and the run's
/// other figures the metric dictionary knows; no per-question data, so no intervals.
std::map<std::string, MetricValue> unfilteredScores(const ImportedRun& run,
                                                    const std::string& tool) {
  std::map<std::string, MetricValue> out;
  for (const auto& [key, v] : run.metrics) {
    if (!std::isfinite(v) || key.ends_with("/n_samples")) continue;
    std::string name = key;
    std::replace(name.begin(), name.end(), '/', '_');
    const auto info = lookupMetric(name);
    if (!info || info->category == MetricCategory::Count) continue;
    MetricValue m = measured(v, run, tool + ": " + key + " (no per-question predictions)");
    const auto slash = key.find('/');
    if (slash != std::string::npos) {
      const auto n = run.metrics.find(key.substr(0, slash) + "/n_samples");
      if (n != run.metrics.end()) m.n = n->second;
    }
    out[name] = std::move(m);
  }
  return out;
}

/// The metrics one run gives a candidate, by what the run is.
std::map<std::string, MetricValue> metricsOfRun(const ImportedRun& run,
                                                const stats::BootstrapOptions& boot,
                                                std::vector<std::string>& warnings) {
  if (run.kind == RunKind::EvalResults) {
    const std::string tool = toolOfFormat(run.format);
    const bool filtered = std::any_of(run.metrics.begin(), run.metrics.end(), [](const auto& kv) {
      const auto slash = kv.first.find('/');
      return slash != std::string::npos && kv.first.find(',', slash) != std::string::npos;
    });
    return filtered ? filteredScores(run, tool) : unfilteredScores(run, tool);
  }
  std::map<std::string, MetricValue> out;
  if (!isTimedRun(run.kind)) return out;
  for (const auto& [name, v] : run.metrics) {
    if (!std::isfinite(v) || name.find('/') != std::string::npos) continue;
    const auto info = lookupMetric(name);
    if (!info || info->category == MetricCategory::Count) continue;
    out[name] = measured(v, run, run.format + " summary as the file reports it");
  }
  addServingIntervals(run, out, boot, warnings);
  return out;
}

Candidate* findCandidate(Session& s, const std::string& id) {
  for (auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

/// Runs whose figures can become candidate metrics (kernel timings and per-batch step times
/// are not).
bool attachable(const ImportedRun& run) {
  return givesCandidateMetrics(run.kind);
}

/// The candidate a run goes to under `opts`: the given id, else the model the file names,
/// else --model; "" when none of them is known.
std::string targetOf(const ImportedRun& run, const AttachOptions& opts) {
  if (opts.candidateId) return *opts.candidateId;
  if (std::string named = runModelName(run); !named.empty()) return named;
  return opts.model;
}

/// A model name as compared for a mismatch: the catalog id it refers to, else lower case.
std::string modelKey(const std::string& name, const Catalog& cat) {
  if (std::string id = catalogModelFromName(name, cat); !id.empty()) return asciiLower(id);
  return asciiLower(name);
}

}  // namespace

std::vector<ModelMismatch> findModelMismatches(const Session& s, const AttachOptions& opts,
                                               const Catalog& cat) {
  std::vector<ModelMismatch> out;
  const std::set<std::string> digests(opts.runDigests.begin(), opts.runDigests.end());
  for (const auto& run : s.importedRuns) {
    if (!digests.empty() && !digests.count(run.sha256)) continue;
    if (!attachable(run)) continue;
    const std::string id = targetOf(run, opts);
    const auto c = std::find_if(s.candidates.begin(), s.candidates.end(),
                                [&](const Candidate& k) { return k.id == id; });
    if (id.empty() || c == s.candidates.end()) continue;
    std::string model = runModelName(run);
    if (model.empty()) model = opts.model;
    if (model.empty() || modelKey(model, cat) == modelKey(c->model, cat)) continue;
    out.push_back({run.sourceFile, model, c->id, c->model});
  }
  return out;
}

std::string describeMismatch(const ModelMismatch& m) {
  return m.sourceFile + " is a run of model '" + m.runModel + "' but candidate '" + m.candidateId +
         "' is model '" + m.candidateModel + "'";
}

void addServingIntervals(const ImportedRun& run, std::map<std::string, MetricValue>& metrics,
                         const stats::BootstrapOptions& boot, std::vector<std::string>& warnings) {
  if (run.requests.empty()) return;
  const std::pair<const char*, stats::LatencyMetric> kLatency[] = {
      {"ttft", stats::LatencyMetric::Ttft},
      {"tpot", stats::LatencyMetric::Tpot},
      {"itl", stats::LatencyMetric::Itl},
      {"e2el", stats::LatencyMetric::E2e}};
  // Every metric's percentiles from one set of resamples (bootstrapRun shares the draws).
  std::vector<stats::PercentileRequest> wanted;
  std::vector<std::vector<std::string>> names;
  std::vector<const char*> prefixes;
  for (const auto& [prefix, lm] : kLatency) {
    std::vector<std::string> these;
    std::vector<double> qs;
    const std::string head = std::string(prefix) + "_p";
    for (const auto& [name, m] : metrics) {
      if (!name.starts_with(head) || !name.ends_with("_ms")) continue;
      const std::string label = name.substr(head.size(), name.size() - head.size() - 3);
      char* end = nullptr;
      const double q = std::strtod(label.c_str(), &end);
      if (end == label.c_str() || *end != '\0' || !(q > 0 && q < 100)) continue;
      these.push_back(name);
      qs.push_back(q);
    }
    if (these.empty()) continue;
    wanted.push_back({lm, qs});
    names.push_back(std::move(these));
    prefixes.push_back(prefix);
  }
  if (wanted.empty()) return;
  auto intervals = stats::bootstrapRun(run.requests, wanted, std::nullopt, boot);
  if (!intervals) {
    warnings.push_back(run.sourceFile + ": no bootstrap intervals: " + intervals.error().message);
    return;
  }
  std::size_t requests = 0;
  for (const auto& r : run.requests) requests += stats::producedOutput(r) ? 1 : 0;
  for (std::size_t w = 0; w < wanted.size(); ++w) {
    const auto& b = intervals->percentiles[w];
    if (!b) {
      warnings.push_back(run.sourceFile + ": no bootstrap interval for " + prefixes[w] +
                         " percentiles: " + b.error().message);
      continue;
    }
    for (std::size_t i = 0; i < names[w].size(); ++i) {
      MetricValue& m = metrics[names[w][i]];
      const auto& bi = (*b)[i];
      m.lo = std::min(bi.ci.lo * 1e3, m.value);
      m.hi = std::max(bi.ci.hi * 1e3, m.value);
      m.n = static_cast<double>(requests);
      m.provenance.note =
          words(m.provenance.note, m.provenance.note.empty() ? "" : "; ", bi.confidence * 100,
                "% bootstrap percentile interval over ", requests, " requests (", bi.resamples,
                " resamples, seed 0x", hexadecimal(bi.seed), ")");
    }
  }
}

SchemeHint schemeFromName(std::string_view name, const Catalog& cat) {
  SchemeHint h;
  std::set<std::string> schemes;
  for (const auto& [scheme, word] : cat.schemeHintsIn(wordsOf(name))) {
    h.matched.push_back(word);
    schemes.insert(scheme);
  }
  if (schemes.size() == 1) h.scheme = *schemes.begin();
  h.ambiguous = schemes.size() > 1;
  return h;
}

std::string catalogModelFromName(std::string_view name, const Catalog& cat) {
  std::string n = asciiLower(name);
  if (const auto slash = n.rfind('/'); slash != std::string::npos) n = n.substr(slash + 1);
  if (n.starts_with("meta-")) n = n.substr(5);
  std::string best;
  for (const auto& m : cat.models()) {
    const std::string id = asciiLower(m.id);
    if (!n.starts_with(id)) continue;
    if (n.size() > id.size()) {
      const char next = n[id.size()];
      if (next != '-' && next != '_' && next != '.') continue;
    }
    if (id.size() > best.size()) best = m.id;
  }
  return best;
}

std::string runModelName(const ImportedRun& run) {
  if (const auto it = run.setup.find("model_id"); it != run.setup.end() && !it->second.empty()) {
    return it->second;
  }
  // The label of a run that feeds candidates is the model as the file names it (empty when
  // the file names none).
  if (givesCandidateMetrics(run.kind)) return run.label;
  return {};
}

std::string matchingCandidate(const ImportedRun& run, const std::vector<Candidate>& cands,
                              const Catalog& cat) {
  const std::string name = runModelName(run);
  if (name.empty()) return {};
  const std::string model = catalogModelFromName(name, cat);
  if (model.empty()) return {};
  const SchemeHint hint = schemeFromName(name, cat);
  if (hint.ambiguous) return {};
  const std::string scheme = hint.scheme.empty() ? cat.baselineSchemeId() : hint.scheme;
  std::string found;
  for (const auto& c : cands) {
    // A candidate's model may be its Hugging Face name; an empty scheme is bf16.
    const bool sameModel = sameIgnoringCase(c.model, model) ||
                           sameIgnoringCase(catalogModelFromName(c.model, cat), model);
    const std::string linear = c.schemeLinear.empty() ? cat.baselineSchemeId() : c.schemeLinear;
    if (!sameModel || !sameIgnoringCase(linear, scheme)) continue;
    if (!found.empty()) return {};  // two candidates of that model and scheme: no guess
    found = c.id;
  }
  return found;
}

bool isDerivedFigure(const Provenance& p) {
  return p.note.starts_with(kDerivedNotePrefix);
}

std::size_t deriveRecovery(Session& s, const std::optional<std::string>& baselineId,
                           std::vector<std::string>& warnings) {
  // Baseline per model: the named candidate for its model, else the model's bf16 candidate.
  std::map<std::string, const Candidate*> baselineOf;
  if (baselineId) {
    const Candidate* b = findCandidate(s, *baselineId);
    if (!b) {
      warnings.push_back("baseline '" + *baselineId + "' is not a candidate; recovery not derived");
      return 0;
    }
    baselineOf[b->model] = b;
  }
  for (const auto& c : s.candidates) {
    if (asciiLower(c.schemeLinear) != asciiLower(Catalog::bundled().baselineSchemeId()) ||
        baselineOf.count(c.model))
      continue;
    const bool hasScores = std::any_of(c.metrics.begin(), c.metrics.end(), [](const auto& kv) {
      return kv.second.provenance.kind == ProvenanceKind::Measured && splitScore(kv.first);
    });
    if (hasScores) baselineOf[c.model] = &c;
  }
  // Copy the baselines' scores: candidates are written below.
  std::map<std::string, std::pair<std::string, std::map<std::string, MetricValue>>> base;
  for (const auto& [model, b] : baselineOf) base[model] = {b->id, b->metrics};

  std::size_t written = 0;
  for (auto& c : s.candidates) {
    const auto bi = base.find(c.model);
    if (bi == base.end()) continue;
    const auto& [baseId, baseMetrics] = bi->second;
    // Primary measured score per task.
    std::map<std::string, std::string> primary;  // task → metric name
    for (const auto& [name, m] : c.metrics) {
      if (m.provenance.kind != ProvenanceKind::Measured || isDerivedFigure(m.provenance)) continue;
      const auto sm = splitScore(name);
      if (!sm || !baseMetrics.count(name)) continue;
      auto& cur = primary[sm->task];
      if (cur.empty() || primaryRank(sm->metric) < primaryRank(splitScore(cur)->metric)) cur = name;
    }
    for (const auto& [task, name] : primary) {
      const std::string out = task + "_recovery_pct";
      if (const auto old = c.metrics.find(out);
          old != c.metrics.end() && old->second.provenance.kind != ProvenanceKind::Measured) {
        continue;  // a published or modelled figure is never replaced
      }
      const MetricValue& a = c.metrics.at(name);
      const MetricValue& b = baseMetrics.at(name);
      if (!(b.value > 0)) {
        warnings.push_back("baseline '" + baseId + "' scores " + sigFigs(b.value, 6) + " on " +
                           name + ": no recovery for '" + c.id + "'");
        continue;
      }
      MetricValue r;
      r.value = 100.0 * a.value / b.value;
      r.provenance = a.provenance;
      r.n = a.n;
      std::string note = std::string(kDerivedNotePrefix) + "100 x " + name + " / baseline '" +
                         baseId + "' " + name + " (" + sigFigs(a.value, 6) + " / " +
                         sigFigs(b.value, 6) + ")";
      if (c.id == baseId) {
        note += "; the baseline itself: 100 by definition";
      } else if (a.lo && a.hi && b.lo && b.hi) {
        // Delta method on the ratio of independent scores: (se_r/r)^2 = (se_a/a)^2 + (se_b/b)^2.
        const double seA = (*a.hi - *a.lo) / (2 * kZ95), seB = (*b.hi - *b.lo) / (2 * kZ95);
        const double rel = std::sqrt((a.value > 0 ? std::pow(seA / a.value, 2) : 0.0) +
                                     std::pow(seB / b.value, 2));
        r.lo = r.value - kZ95 * r.value * rel;
        r.hi = r.value + kZ95 * r.value * rel;
        note +=
            "; 95% interval by the delta method on the ratio of the two scores' standard "
            "errors (independent runs)";
      }
      if (b.provenance.sourceFile != a.provenance.sourceFile) {
        note += "; baseline score from " + b.provenance.sourceFile;
      }
      r.provenance.note = note;
      c.metrics[out] = std::move(r);
      ++written;
    }
  }
  return written;
}

namespace {

/// A new candidate `id` for runs that name no existing one: its model, scheme and GPU from
/// the files' names, else the options (each choice noted in `rep`).
Result<Candidate> newCandidate(const Session& s, const std::string& id, const std::string& named,
                               const std::vector<ImportedRun*>& runs, const AttachOptions& opts,
                               const Catalog& cat, AttachReport& rep) {
  Candidate nc;
  nc.id = id;
  // Model: the catalog model the files name, else the flag, else the name as given.
  const std::string fromName = named.empty() ? std::string() : catalogModelFromName(named, cat);
  if (!fromName.empty()) {
    nc.model = fromName;
    rep.notes.push_back(id + ": model " + fromName + " from the files ('" + named + "')");
  } else if (!opts.model.empty()) {
    nc.model = opts.model;
    rep.notes.push_back(id + ": model " + opts.model + " from {--model}");
  } else {
    nc.model = named.empty() ? id : named;
    rep.notes.push_back(id + ": model '" + nc.model +
                        "' as the files name it (not a catalog model: no modelled figures)");
  }
  // Scheme: an unambiguous hint in the name, else the flag, else bf16 for a name with no hint.
  const SchemeHint hint = schemeFromName(named.empty() ? id : named, cat);
  if (!hint.scheme.empty()) {
    nc.schemeLinear = hint.scheme;
    rep.notes.push_back(id + ": scheme " + hint.scheme + " from the name");
  } else if (!opts.scheme.empty()) {
    nc.schemeLinear = opts.scheme;
    rep.notes.push_back(id + ": scheme " + opts.scheme + " from {--scheme}");
  } else if (hint.ambiguous) {
    std::string words;
    for (const auto& w : hint.matched) words += (words.empty() ? "" : ", ") + w;
    return Error{"", "candidate '" + id + "'", "scheme",
                 "the model name hints at several schemes (" + words + "); give {--scheme}"};
  } else {
    nc.schemeLinear = cat.baselineSchemeId();
    rep.notes.push_back(id +
                        ": scheme bf16 (the name has no quantization hint; {--scheme} "
                        "overrides)");
  }
  nc.gpu = opts.gpu.empty() ? s.scenario.gpu : opts.gpu;
  if (opts.gpu.empty()) {
    rep.notes.push_back(id + ": GPU " + nc.gpu + " from the session scenario ({--gpu} overrides)");
  }
  nc.gpuCount = opts.gpuCount.value_or(1);
  for (const ImportedRun* run : runs) {
    if (const auto b = run->setup.find("backend"); b != run->setup.end() && nc.engine.empty()) {
      nc.engine = b->second;
    }
  }
  return nc;
}

/// Attaches `runs` to candidate `c` (`id`): their figures become its measured metrics, a
/// sweep's lowest load winning; figures the same runs gave another candidate leave it.
void attachRuns(Session& s, Candidate& cand, const std::string& id, std::vector<ImportedRun*>& runs,
                const AttachOptions& opts, AttachReport& rep) {
  Candidate* c = &cand;
  // A sweep (serving runs of one candidate at several offered loads): the candidate's
  // serving metrics are the lowest load's, the batch-1 regime a single user sees; the
  // Serving tab keeps every load. Runs are attached highest load first so the lowest wins.
  std::map<const ImportedRun*, OfferedLoad> loadOf;
  for (const ImportedRun* run : runs) {
    if (run->kind != RunKind::Serving || allRequestsFailed(*run)) continue;
    if (auto load = offeredLoadOf(*run)) loadOf[run] = *load;
  }
  std::stable_sort(runs.begin(), runs.end(), [&](const ImportedRun* a, const ImportedRun* b) {
    const auto la = loadOf.find(a), lb = loadOf.find(b);
    if ((la == loadOf.end()) != (lb == loadOf.end())) return la == loadOf.end();
    if (la == loadOf.end()) return false;
    if (la->second.kind != lb->second.kind) return la->second.kind < lb->second.kind;
    return la->second.value > lb->second.value;
  });
  const ImportedRun* lowest = nullptr;
  std::set<std::string> sweepFiles;
  for (const auto& [run, load] : loadOf) sweepFiles.insert(run->sourceFile);
  for (const ImportedRun* run : runs) {
    if (loadOf.count(run)) lowest = run;
  }
  // Re-attaching moves: figures these runs gave another candidate leave it.
  std::set<std::string> moved;
  for (const ImportedRun* run : runs) {
    if (!run->sha256.empty()) moved.insert(run->sha256);
  }
  for (const auto& from : dropFiguresOf(s, moved, id).candidates) {
    rep.notes.push_back(id + ": figures of the same runs removed from '" + from +
                        "' (a run feeds one candidate)");
  }
  std::map<std::string, std::string> sourceOf;
  for (ImportedRun* run : runs) {
    run->setup[kCandidateSetupKey] = id;
    if (allRequestsFailed(*run)) {
      // The tool writes 0.0 for throughputs when nothing came back: not a measurement.
      rep.warnings.push_back(run->sourceFile + ": " + failedRunText(*run) +
                             ": no figures attached to '" + id +
                             "' (a failed run is not a measured 0 tok/s)");
      continue;
    }
    for (auto& [name, m] : metricsOfRun(*run, opts.bootstrap, rep.warnings)) {
      if (const auto old = c->metrics.find(name); old != c->metrics.end()) {
        if (old->second.provenance.kind == ProvenanceKind::Published) {
          rep.warnings.push_back(id + ": " + name + " is a published figure; " + run->sourceFile +
                                 "'s measured value not attached");
          continue;
        }
        if (const auto prev = sourceOf.find(name); prev != sourceOf.end()) {
          // Two loads of one sweep: the lower load is meant to win (one note below).
          const bool sweep = loadOf.count(run) > 0 && sweepFiles.count(prev->second) > 0;
          if (!sweep) {
            rep.warnings.push_back(id + ": " + name + " given by both " + prev->second + " and " +
                                   run->sourceFile + "; the latter is kept");
          }
        }
      }
      sourceOf[name] = run->sourceFile;
      c->metrics[name] = std::move(m);
      ++rep.metricsAttached;
    }
  }
  if (loadOf.size() > 1 && lowest) {
    rep.notes.push_back(id + ": a sweep of " + std::to_string(loadOf.size()) +
                        " serving runs; its serving metrics are the lowest load's (" +
                        lowest->sourceFile + ", " + offeredLoadText(loadOf.at(lowest)) +
                        "), the batch-1 regime; every load is on the Serving tab");
  }
}

/// Modelled figures for the candidates touched, where model and GPU resolve.
void addModelledFigures(Session& s, const std::vector<std::string>& touched, const Catalog& cat,
                        AttachReport& rep) {
  for (const auto& id : touched) {
    Candidate* c = findCandidate(s, id);
    auto m = modelledMetrics(*c, s.scenario, cat);
    if (!m) {
      rep.warnings.push_back(id + ": no modelled figures (" + m.error().message + ")");
      continue;
    }
    std::erase_if(c->metrics, [](const auto& kv) {
      return kv.second.provenance.kind == ProvenanceKind::Modelled;
    });
    for (auto& [name, v] : *m) c->metrics[name] = std::move(v);
  }
}

/// Objectives for a session without any: measured quality (primary score per task, at most
/// three tasks) and the serving latency every touched candidate carries.
void chooseViewObjectives(Session& s, const std::vector<std::string>& touched, AttachReport& rep) {
  if (s.view.objectives.empty() && !touched.empty()) {
    auto carriedByAll = [&](const std::string& name) {
      return std::all_of(touched.begin(), touched.end(), [&](const std::string& id) {
        return findCandidate(s, id)->metrics.count(name) > 0;
      });
    };
    std::map<std::string, std::string> primary;
    for (const auto& [name, m] : findCandidate(s, touched.front())->metrics) {
      const auto sm = splitScore(name);
      if (!sm || m.provenance.kind != ProvenanceKind::Measured || !carriedByAll(name)) continue;
      auto& cur = primary[sm->task];
      if (cur.empty() || primaryRank(sm->metric) < primaryRank(splitScore(cur)->metric)) cur = name;
    }
    for (const auto& [task, name] : primary) {
      if (s.view.objectives.size() >= 3) break;
      s.view.objectives.push_back({name, Direction::Max});
    }
    for (const char* latency : {"tpot_p99_ms", "itl_p99_ms", "e2el_p99_ms", "latency_mean_s"}) {
      if (carriedByAll(latency)) {
        s.view.objectives.push_back({latency, Direction::Min});
        break;
      }
    }
    if (!s.view.objectives.empty()) {
      std::string names;
      for (const auto& o : s.view.objectives) names += (names.empty() ? "" : ", ") + o.metric;
      rep.notes.push_back("objectives saved in the session view: " + names);
    }
  }
}

}  // namespace

Result<AttachReport> attachRunsToCandidates(Session& s, const AttachOptions& opts,
                                            const Catalog& cat) {
  AttachReport rep;
  if (opts.candidateId && opts.candidateId->empty()) {
    return Error{"", "", "candidate", "the candidate id must not be empty"};
  }
  if (opts.gpuCount && (*opts.gpuCount < 1 || *opts.gpuCount > 1024)) {
    return Error{"", "", "gpu-count", "expected 1..1024, found " + std::to_string(*opts.gpuCount)};
  }
  const std::set<std::string> digests(opts.runDigests.begin(), opts.runDigests.end());

  // Runs to attach, grouped by the candidate they feed, in session order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<ImportedRun*>> byCandidate;
  std::map<std::string, std::string> modelNameOf;  // candidate id → model name the files give
  if (!opts.allowModelMismatch) {
    const auto mismatches = findModelMismatches(s, opts, cat);
    if (!mismatches.empty()) {
      std::string more;
      if (mismatches.size() > 1) {
        more = " (and " + std::to_string(mismatches.size() - 1) + " more run(s))";
      }
      return Error{"", "", "model",
                   describeMismatch(mismatches.front()) + more +
                       "; not attached (allow a model mismatch to attach anyway)"};
    }
  }
  for (auto& run : s.importedRuns) {
    if (!digests.empty() && !digests.count(run.sha256)) continue;
    if (!givesCandidateMetrics(run.kind)) {
      continue;  // kernel timings and per-batch step times are not candidate metrics
    }
    const std::string named = runModelName(run);
    const std::string id = targetOf(run, opts);
    if (id.empty()) {
      rep.warnings.push_back(run.sourceFile +
                             ": the file names no model; name the candidate it feeds "
                             "({--candidate}) or its model ({--model}) to attach its " +
                             run.format + " figures");
      continue;
    }
    if (!byCandidate.count(id)) order.push_back(id);
    byCandidate[id].push_back(&run);
    if (!named.empty() && !modelNameOf.count(id)) modelNameOf[id] = named;
  }

  std::vector<std::string> touched;
  for (const auto& id : order) {
    Candidate* c = findCandidate(s, id);
    const bool created = c == nullptr;
    if (created) {
      const std::string named = modelNameOf.count(id) ? modelNameOf.at(id) : std::string();
      auto nc = newCandidate(s, id, named, byCandidate.at(id), opts, cat, rep);
      if (!nc) return nc.error();
      s.candidates.push_back(std::move(*nc));
      c = &s.candidates.back();
      rep.created.push_back(id);
    } else {
      rep.updated.push_back(id);
    }
    attachRuns(s, *c, id, byCandidate.at(id), opts, rep);
    touched.push_back(id);
  }

  rep.recoveryDerived = deriveRecovery(s, opts.baselineId, rep.warnings);

  addModelledFigures(s, touched, cat, rep);
  if (opts.setViewObjectives) chooseViewObjectives(s, touched, rep);
  return rep;
}

}  // namespace qf
