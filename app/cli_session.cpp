// qfront session ACTION SESSION ...: take evidence back (detach runs) and manage candidates.
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>

#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/session.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

const CommandSpec& sessionCommand() {
  static const CommandSpec command{
      "qfront",
      "session",
      R"(usage: qfront session list SESSION
       qfront session detach SESSION RUN...
       qfront session remove SESSION ID
       qfront session rename SESSION ID NEW_ID
       qfront session hide SESSION ID
       qfront session show SESSION ID
       qfront session refresh SESSION)",
      R"(Edits the evidence of a session file, which is saved atomically (temporary file, fsync,
rename) and left as it was on any error.
  list     the candidates (hidden ones marked) and the imported runs with the candidate
           each feeds, the run's SHA-256 and file
  detach   RUN (an imported file's name as `list` shows it, or its SHA-256) feeds no
           candidate any more: every figure it gave leaves its candidate, and so does every
           recovery figure derived from it; the run stays in the session. A candidate that
           keeps other runs gets their figures back.
  remove   deletes candidate ID; its runs stay, attached to none
  rename   gives candidate ID the id NEW_ID; its runs follow it
  hide     keeps candidate ID in the session but leaves it out of the frontier, the plots
           and the report; `show` brings it back
  refresh  recomputes every candidate's modelled figures with this build's model and
           constants (after an upgrade changed them); measured and published figures stay)",
      {},
      "Exit status: 0 on success, 2 on bad input (one line naming the file and field).\n",
      std::numeric_limits<std::size_t>::max()};
  return command;
}

std::string candidateOf(const ImportedRun& r) {
  const auto it = r.setup.find(kCandidateSetupKey);
  return it == r.setup.end() ? std::string() : it->second;
}

void list(const Session& s, std::ostream& out) {
  out << "candidates (" << s.candidates.size() << "):\n";
  for (const auto& c : s.candidates) {
    std::size_t measured = 0;
    for (const auto& [name, m] : c.metrics) {
      measured += m.provenance.kind == ProvenanceKind::Measured ? 1 : 0;
    }
    out << "  " << c.id << "  model " << c.model << ", " << c.schemeLinear << ", " << c.gpu << " x"
        << c.gpuCount << ", " << measured << " measured figure(s)"
        << (isHidden(s, c.id) ? "  [hidden]" : "") << "\n";
  }
  out << "imported runs (" << s.importedRuns.size() << "):\n";
  for (const auto& r : s.importedRuns) {
    const std::string cand = candidateOf(r);
    out << "  " << r.sha256.substr(0, 12) << "  " << r.sourceFile << "  " << r.format << "  "
        << (cand.empty() ? std::string("(not attached)") : "-> " + cand) << "\n";
  }
}

}  // namespace

int cmdSession(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  const auto parsed = parseCommand(sessionCommand(), argv, out, err, rc);
  if (!parsed) return rc;
  const auto& args = parsed->positionals();
  if (args.size() < 2) {
    return badArg(err, "action", "expected an action and a SESSION (see qfront session --help)");
  }
  const std::string action = args[0], path = args[1];
  const std::vector<std::string> rest(args.begin() + 2, args.end());
  // Arguments after SESSION each action takes (detach: one or more).
  const std::map<std::string, std::size_t> arity = {{"list", 0},   {"detach", 1}, {"remove", 1},
                                                    {"rename", 2}, {"hide", 1},   {"show", 1},
                                                    {"refresh", 0}};
  const auto ar = arity.find(action);
  if (ar == arity.end()) {
    return badArg(err, "action",
                  "unknown action '" + action +
                      "' (expected list, detach, remove, rename, hide, show or refresh)");
  }
  if (action == "detach" ? rest.empty() : rest.size() != ar->second) {
    return badArg(err, action,
                  "expected " + std::string(action == "detach" ? "at least " : "") +
                      std::to_string(ar->second) + " argument(s) after SESSION, found " +
                      std::to_string(rest.size()) + " (see qfront session --help)");
  }
  // Every edit is a read-modify-write under the lock `import` takes, held until the new file
  // is in place: two edits at once wait for each other instead of losing one.
  std::optional<FileLock> lock;
  if (action != "list") {
    lock = lockForUpdate(path, "qfront session " + action, err, rc);
    if (!lock) return rc;
  }
  auto loaded = loadSession(path);
  if (!loaded) return badInput(err, loaded.error());
  Session s = std::move(*loaded);
  if (action == "list") {
    list(s, out);
    return kExitOk;
  }
  std::string done;
  if (action == "refresh") {
    // What refresh may add: the room the file leaves below the size a session may be.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    const std::uint64_t room = !ec && size < kMaxSessionFileBytes ? kMaxSessionFileBytes - size : 0;
    if (auto e = refreshModelledMetrics(s, Catalog::bundled(), room)) {
      return badInput(err, e->from(path));
    }
    done =
        "modelled figures of " + std::to_string(s.candidates.size()) + " candidate(s) recomputed";
  } else if (action == "detach") {
    auto rep = detachRuns(s, rest);
    if (!rep) return badInput(err, rep.error().from(path));
    done = std::to_string(rep->runsDetached) + " run(s) detached, " +
           std::to_string(rep->figuresRemoved) + " figure(s) removed";
    if (!rep->candidates.empty()) {
      std::string ids;
      for (const auto& id : rep->candidates) ids += (ids.empty() ? "" : ", ") + id;
      done += " from " + ids;
    }
    for (const auto& w : rep->warnings) err << "qfront: warning: " << w << "\n";
  } else {
    std::optional<Error> e;
    if (action == "remove") {
      e = removeCandidate(s, rest[0]);
      done = "candidate " + rest[0] + " removed";
    } else if (action == "rename") {
      e = renameCandidate(s, rest[0], rest[1]);
      done = "candidate " + rest[0] + " renamed " + rest[1];
    } else {
      e = setCandidateHidden(s, rest[0], action == "hide");
      done = "candidate " + rest[0] + (action == "hide" ? " hidden" : " shown");
    }
    if (e) return badInput(err, e->from(path));
  }
  if (auto e = saveSessionAtomic(s, path)) return badInput(err, *e);
  out << done << "; saved " << path << "\n";
  return kExitOk;
}

}  // namespace qf::cli
