// Runs detached, candidates removed, renamed and hidden; figures follow the runs.
#include <quantfront/core/session/evidence_edit.hpp>

#include <algorithm>
#include <cctype>
#include <map>

#include <quantfront/core/session/attach_runs.hpp>

namespace qf {

namespace {

Candidate* findCandidate(Session& s, const std::string& id) {
  for (auto& c : s.candidates) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

std::string baselineMark(const std::string& id) {
  return "baseline '" + id + "'";
}

Error noCandidate(const std::string& id) {
  return Error{"", "", "candidate", "no candidate '" + id + "' in the session"};
}

/// Removes derived figures (recovery) whose note names one of `baselines` as their baseline;
/// adds what went to `out`.
void dropDerivedAgainst(Session& s, const std::set<std::string>& baselines, DroppedFigures& out) {
  for (auto& c : s.candidates) {
    const std::size_t n = std::erase_if(c.metrics, [&](const auto& kv) {
      if (!isDerivedFigure(kv.second.provenance)) return false;
      return std::any_of(baselines.begin(), baselines.end(), [&](const std::string& b) {
        return kv.second.provenance.note.find(baselineMark(b)) != std::string::npos;
      });
    });
    out.figures += n;
    if (n > 0 &&
        std::find(out.candidates.begin(), out.candidates.end(), c.id) == out.candidates.end()) {
      out.candidates.push_back(c.id);
    }
  }
}

}  // namespace

DroppedFigures dropFiguresOf(Session& s, const std::set<std::string>& digests,
                             const std::string& keepOn) {
  DroppedFigures out;
  for (auto& c : s.candidates) {
    if (!keepOn.empty() && c.id == keepOn) continue;
    const std::size_t n = std::erase_if(c.metrics, [&](const auto& kv) {
      const Provenance& p = kv.second.provenance;
      return p.kind == ProvenanceKind::Measured && !p.sha256.empty() && digests.count(p.sha256);
    });
    if (n > 0) out.candidates.push_back(c.id);
    out.figures += n;
  }
  if (!out.candidates.empty()) {
    dropDerivedAgainst(s, {out.candidates.begin(), out.candidates.end()}, out);
  }
  // Session order, whichever pass found them.
  std::vector<std::string> ordered;
  for (const auto& c : s.candidates) {
    if (std::find(out.candidates.begin(), out.candidates.end(), c.id) != out.candidates.end()) {
      ordered.push_back(c.id);
    }
  }
  out.candidates = std::move(ordered);
  return out;
}

Result<DetachReport> detachRuns(Session& s, const std::vector<std::string>& runs,
                                const Catalog& cat) {
  std::set<std::string> digests;
  // A SHA-256 prefix as `session list` prints it (12 hex digits; any of 8 or more) names the
  // run whose digest it begins, when exactly one digest does.
  auto isHexPrefix = [](const std::string& w) {
    return w.size() >= 8 && w.size() < 64 && std::all_of(w.begin(), w.end(), [](char c) {
             return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
  };
  for (const auto& want : runs) {
    bool found = false;
    for (const auto& r : s.importedRuns) {
      if (r.sha256 == want || r.sourceFile == want) {
        if (!r.sha256.empty()) digests.insert(r.sha256);
        found = true;
      }
    }
    if (!found && isHexPrefix(want)) {
      std::set<std::string> matching;
      for (const auto& r : s.importedRuns) {
        if (r.sha256.size() == 64 && r.sha256.compare(0, want.size(), want) == 0)
          matching.insert(r.sha256);
      }
      if (matching.size() > 1) {
        return Error{"", "", "run",
                     "SHA-256 prefix '" + want + "' begins " + std::to_string(matching.size()) +
                         " runs' digests; give more of it"};
      }
      if (matching.size() == 1) {
        digests.insert(*matching.begin());
        found = true;
      }
    }
    if (!found) {
      return Error{"", "", "run",
                   "no imported run with SHA-256 or file '" + want + "' in the session"};
    }
  }
  Session next = s;
  DetachReport rep;
  std::map<std::string, std::string> wasOn;  // digest → candidate id recorded on the run
  for (auto& r : next.importedRuns) {
    if (!digests.count(r.sha256)) continue;
    if (const auto it = r.setup.find(kCandidateSetupKey); it != r.setup.end()) {
      ++rep.runsDetached;
      r.setup.erase(it);
    }
  }
  auto dropped = dropFiguresOf(next, digests);
  rep.candidates = std::move(dropped.candidates);
  rep.figuresRemoved = dropped.figures;
  // A candidate that keeps runs gets their figures back (the lowest remaining load of a
  // sweep, a score file that an overwritten one had replaced).
  for (const auto& id : rep.candidates) {
    AttachOptions again;
    again.candidateId = id;
    again.allowModelMismatch = true;  // attached before, by the user's choice
    again.setViewObjectives = false;
    for (const auto& r : next.importedRuns) {
      const auto it = r.setup.find(kCandidateSetupKey);
      if (it != r.setup.end() && it->second == id && !r.sha256.empty()) {
        again.runDigests.push_back(r.sha256);
      }
    }
    if (again.runDigests.empty()) continue;
    auto a = attachRunsToCandidates(next, again, cat);
    if (!a) return a.error();
    rep.warnings.insert(rep.warnings.end(), a->warnings.begin(), a->warnings.end());
  }
  s = std::move(next);
  return rep;
}

std::optional<Error> removeCandidate(Session& s, const std::string& id) {
  const auto it =
      std::find_if(s.candidates.begin(), s.candidates.end(), [&](auto& c) { return c.id == id; });
  if (it == s.candidates.end()) return noCandidate(id);
  s.candidates.erase(it);
  for (auto& r : s.importedRuns) {
    const auto k = r.setup.find(kCandidateSetupKey);
    if (k != r.setup.end() && k->second == id) r.setup.erase(k);
  }
  DroppedFigures ignored;
  dropDerivedAgainst(s, {id}, ignored);
  std::erase(s.view.hidden, id);
  return std::nullopt;
}

std::optional<Error> renameCandidate(Session& s, const std::string& id, const std::string& newId) {
  Candidate* c = findCandidate(s, id);
  if (!c) return noCandidate(id);
  if (newId.empty()) return Error{"", "", "id", "the new candidate id must not be empty"};
  if (std::isspace(static_cast<unsigned char>(newId.front())) ||
      std::isspace(static_cast<unsigned char>(newId.back()))) {
    return Error{"", "", "id", "the new candidate id '" + newId + "' has surrounding spaces"};
  }
  // A newline, tab or escape in an id breaks `session list`, the CSV exports and a terminal;
  // refused before anything changes.
  if (std::any_of(newId.begin(), newId.end(), [](char ch) {
        const auto u = static_cast<unsigned char>(ch);
        return u < 0x20 || u == 0x7f;
      })) {
    return Error{"", "", "id",
                 "the new candidate id has a control character (newline, tab or escape); "
                 "nothing changed"};
  }
  if (newId == id) return std::nullopt;
  if (findCandidate(s, newId)) {
    return Error{"", "", "id", "a candidate '" + newId + "' is already in the session"};
  }
  c->id = newId;
  std::replace(s.view.hidden.begin(), s.view.hidden.end(), id, newId);
  for (auto& r : s.importedRuns) {
    const auto k = r.setup.find(kCandidateSetupKey);
    if (k != r.setup.end() && k->second == id) k->second = newId;
  }
  const std::string from = baselineMark(id), to = baselineMark(newId);
  for (auto& cand : s.candidates) {
    for (auto& [name, m] : cand.metrics) {
      if (!isDerivedFigure(m.provenance)) continue;
      std::string& note = m.provenance.note;
      for (auto at = note.find(from); at != std::string::npos;
           at = note.find(from, at + to.size())) {
        note.replace(at, from.size(), to);
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> setCandidateHidden(Session& s, const std::string& id, bool hidden) {
  if (!findCandidate(s, id)) return noCandidate(id);
  std::erase(s.view.hidden, id);
  if (hidden) s.view.hidden.push_back(id);
  return std::nullopt;
}

bool isHidden(const Session& s, const std::string& id) {
  return std::find(s.view.hidden.begin(), s.view.hidden.end(), id) != s.view.hidden.end();
}

Session withoutHidden(const Session& s) {
  if (s.view.hidden.empty()) return s;
  Session out = s;
  out.candidates = visibleCandidates(s.candidates, s.view.hidden);
  std::erase_if(out.importedRuns, [&](const ImportedRun& r) {
    const auto it = r.setup.find(kCandidateSetupKey);
    return it != r.setup.end() && isHidden(s, it->second);
  });
  out.view.hidden.clear();
  return out;
}

std::vector<Candidate> visibleCandidates(const std::vector<Candidate>& all,
                                         const std::vector<std::string>& hidden) {
  std::vector<Candidate> out;
  out.reserve(all.size());
  for (const auto& c : all) {
    if (std::find(hidden.begin(), hidden.end(), c.id) == hidden.end()) out.push_back(c);
  }
  return out;
}

}  // namespace qf
