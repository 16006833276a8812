// qfront import FILE... -o SESSION: benchmark and eval files into a session file.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <tuple>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/import_session.hpp>
#include <quantfront/core/session/session.hpp>

#include <quantfront/core/base/text.hpp>
#include <quantfront/core/base/version.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/engine.hpp>

#include "cli.hpp"
#include "shell.hpp"

namespace qf::cli {

namespace {

constexpr OptionSpec kImportOptions[] = {
    {"--output",
     "SESSION",
     "session file to add to; created when it does not exist. A session\n"
     "of an older version is migrated and written back in the current\n"
     "version; one written by a newer QuantFront is refused.",
     {},
     true},
    {"-o", "SESSION", "the same as --output", {}, true},
    {"--candidate", "ID",
     "every run and score in the files becomes a measured metric of\n"
     "candidate ID (created when missing; printable text, trimmed). For\n"
     "an existing candidate, --model, --scheme, --gpu and --gpu-count must\n"
     "agree with it: a contradiction exits 2 naming both values"},
    {"--model", "ID",
     "catalog model for a new candidate when the files name none the\n"
     "catalog knows (vLLM model_id, lm-eval model_name / pretrained=)"},
    {"--scheme", "S",
     "scheme when the model name has no unambiguous hint (\"FP8\",\n"
     "\"w4a16\", \"GPTQ\", ...); a name without any hint is bf16"},
    {"--gpu", "ID", "GPU of a new candidate (default: the session scenario's GPU)"},
    {"--gpu-count", "N", "GPUs of a new candidate (default 1)",
     integerIn(1, 1024, "a GPU count 1..1024")},
    {"--baseline", "ID",
     "candidate recovery is computed against (default: per model, the\n"
     "candidate whose scheme is bf16)"},
    {"--no-candidates", "",
     "only record the runs; leave the candidates as they are (not\n"
     "with --candidate, --model, --scheme, --gpu, --gpu-count, --baseline)"},
    {"--allow-model-mismatch", "",
     "attach even when a file's model (or --model) is not the model of\n"
     "the existing candidate it goes to; without it that is refused"},
    {"--batch", "B",
     "with --input-len and --output-len: the static batch a vLLM bench\n"
     "latency or throughput file was timed at (B requests of I prompt and\n"
     "O output tokens; those files do not say): recorded on its runs so\n"
     "that `qfront calibrate SESSION` can fit the model to them. All three\n"
     "or none",
     integerIn(1, 10'000'000, "a whole number from 1 to 10000000")},
    {"--input-len", "I", "... prompt tokens of each request",
     integerIn(1, 10'000'000, "a whole number from 1 to 10000000")},
    {"--output-len", "O", "... output tokens of each request",
     integerIn(1, 10'000'000, "a whole number from 1 to 10000000")},
    {"--tp", "N",
     "the tensor-parallel degree those files and SGLang bench_one_batch\n"
     "files were timed at, when the file does not say (default: the\n"
     "candidate's GPU count, which is wrong when the GPUs were replicas)",
     integerIn(1, 1024, "a whole number from 1 to 1024")},
    {"--format", "table|json", "summary format on stdout (default table)", {}, true},
    {"--help", "", "this text (also -h)"},
};

const CommandSpec& importCommand() {
  static const CommandSpec command{
      "qfront",
      "import",
      R"(usage: qfront import FILE... -o SESSION [--candidate ID] [--model ID] [--scheme S]
                     [--gpu ID] [--gpu-count N] [--baseline ID] [--no-candidates]
                     [--allow-model-mismatch] [--batch B --input-len I --output-len O]
                     [--tp N] [--format table|json]
)",
      R"(Imports benchmark and eval result files into a QuantFront session file. The format of each
FILE is detected from its content, never from its name:
  vllm-serve        vllm bench serve --save-result (one object, or several with --append-result)
  vllm-latency      vllm bench latency --output-json
  vllm-throughput   vllm bench throughput --output-json
  sglang-one-batch  SGLang bench_one_batch result JSONL (decode step time per batch size)
  sglang-serving    SGLang bench_serving JSONL
  lm-eval-results   lm-evaluation-harness results_<date>.json
  gsm8k-eval        vLLM tests/evals/gsm8k/gsm8k_eval.py --save-results
  nvbench           NVIDIA nvbench --json (also recorded as kernel measurements)
Per-sample lm-eval files (samples_<task>_<date>.jsonl) are not imported: compare two of them
with `qfront stats paired`.

)",
      {kImportOptions},
      R"(Each imported file is recorded with its name and SHA-256: importing a file that is already
in the session (same content, whatever its name) adds nothing. The summary lists, per file,
the detected format, the runs and metrics read, and warnings saying what was skipped and why
(the same warnings, in the same words, as the window's import summary and Evidence tab). A
run whose requests all failed ('completed' 0) is named as failed: its 0 throughputs are not
attached to a candidate and it is not a point on the Serving tab.

Candidates: without --candidate, each distinct model the files name gets a candidate of its
own, with the model name as its id. A file whose model differs from the model of the existing
candidate it would go to (catalog ids compared, "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"
is llama-3.1-8b) is refused, naming both, unless --allow-model-mismatch is given. A run
attached before to another candidate moves: its figures leave that candidate. `qfront
session` detaches runs and removes, renames and hides candidates. Metric names are the runs' own (tpot_p99_ms,
output_throughput_tok_s, request_throughput_req_s; lm-eval <task>_<metric> such as
gsm8k_exact_match, from the task's primary filter: strict-match, else none, else the first by
name); bookkeeping counts (completed, duration_s, tokens) are not attached. Each carries
provenance measured with its file and SHA-256, and an interval where the file gives one
(lm-eval stderr: value +/- 1.96 x stderr; latency percentiles: a bootstrap interval from the
per-request arrays). <task>_recovery_pct = 100 x score / baseline score is derived per task
(interval by the delta method), and the modelled figures (step time, weights, capacity, cost)
are filled where the candidate's model and GPU resolve. A session without saved objectives
gets the measured quality scores and tpot_p99_ms as its objectives.

All files are read before anything is written: if any FILE cannot be imported, qfront prints
one line naming the file, position and field, exits with status 2, and SESSION is left as it
was. The session is saved atomically (temporary file, fsync, rename), so an interrupted save
never leaves a half-written file. While it reads, changes and writes SESSION it holds a lock
(.SESSION.qfront-lock): a second import or merge into the same file waits for it (at most
10 s, or QFRONT_LOCK_WAIT_S), then exits 2 naming the holder, writing nothing.

Exit status: 0 on success, 2 on bad input (one line naming the file and field).
)",
      1000000};
  return command;
}

using FileSummary = FileImport;

std::string status(const FileSummary& f) {
  if (f.merge.duplicate && f.merge.runsAdded == 0) {
    return "already in the session (same SHA-256 as " + f.merge.duplicateOf + "); skipped";
  }
  if (f.report->runs.empty()) return "no runs found";
  std::string s = "added";
  if (f.merge.measurementsAdded > 0) {
    s += " (+" + std::to_string(f.merge.measurementsAdded) + " kernel measurements)";
  }
  if (f.failedRuns > 0) {
    s += "; " + std::to_string(f.failedRuns) + " failed run(s): every request failed, no figures";
  }
  if (!f.warnings.empty()) s += "; " + std::to_string(f.warnings.size()) + " warning(s)";
  return s;
}

void printTable(std::ostream& out, const std::string& sessionPath, bool created, const Session& s,
                const std::vector<FileSummary>& files, const std::optional<AttachReport>& attach) {
  out << "session " << sessionPath << (created ? "  (new)" : "") << "\n";
  for (const auto& n : s.loadNotes) out << "note: " << n << "\n";
  std::size_t fileW = 4, formatW = 6;
  for (const auto& f : files) {
    fileW = std::max(fileW, f.report->file.size());
    formatW = std::max(formatW, f.report->format.size());
  }
  const int fw = static_cast<int>(fileW + 2), mw = static_cast<int>(formatW + 2);
  out << std::left << std::setw(fw) << "file" << std::setw(mw) << "format" << std::right
      << std::setw(5) << "runs" << std::setw(9) << "metrics"
      << "  status\n";
  for (const auto& f : files) {
    out << std::left << std::setw(fw) << f.report->file << std::setw(mw) << f.report->format
        << std::right << std::setw(5) << f.report->runs.size() << std::setw(9) << f.metricsRead
        << "  " << status(f) << "\n";
    for (const auto& w : f.warnings) out << "    warning: " << w << "\n";
  }
  if (attach) {
    for (const auto& id : attach->created) out << "candidate " << id << ": created\n";
    for (const auto& id : attach->updated) out << "candidate " << id << ": updated\n";
    out << "measured metrics attached: " << attach->metricsAttached
        << ", recovery figures derived: " << attach->recoveryDerived << "\n";
    for (const auto& n : attach->notes) out << "    " << n << "\n";
    for (const auto& w : attach->warnings) out << "    warning: " << w << "\n";
  }
  out << "saved " << sessionPath << ": " << s.importedRuns.size() << " imported runs, "
      << s.kernelMeasurements.size() << " kernel measurements, " << s.candidates.size()
      << " candidates\n";
}

void printJson(std::ostream& out, const std::string& sessionPath, bool created, const Session& s,
               const std::vector<FileSummary>& files, const std::optional<AttachReport>& attach) {
  Json j;
  j["session"] = sessionPath;
  j["created"] = created;
  j["notes"] = s.loadNotes;
  j["files"] = Json::array();
  for (const auto& f : files) {
    Json o;
    o["file"] = f.report->file;
    o["format"] = f.report->format;
    o["kind"] = runKindName(runKindOfFormat(f.report->format));
    o["sha256"] = f.report->sha256;
    o["runs"] = f.report->runs.size();
    o["runs_added"] = f.merge.runsAdded;
    o["metrics"] = f.metricsRead;
    o["kernel_measurements_added"] = f.merge.measurementsAdded;
    o["duplicate_of"] = f.merge.duplicate ? Json(f.merge.duplicateOf) : Json(nullptr);
    o["failed_runs"] = f.failedRuns;
    o["warnings"] = f.warnings;
    j["files"].push_back(o);
  }
  if (attach) {
    j["candidates_created"] = attach->created;
    j["candidates_updated"] = attach->updated;
    j["metrics_attached"] = attach->metricsAttached;
    j["recovery_derived"] = attach->recoveryDerived;
    j["attach_notes"] = attach->notes;
    j["attach_warnings"] = attach->warnings;
  }
  j["imported_runs"] = s.importedRuns.size();
  j["kernel_measurements"] = s.kernelMeasurements.size();
  j["candidates"] = s.candidates.size();
  writeJsonOutput(out, std::move(j));
}

/// The model, GPU or catalog id `text` stands for (itself when the catalog does not know it).
std::string modelKey(const std::string& text) {
  auto m = Catalog::bundled().resolveModel(text);
  return m ? m->name : text;
}
std::string gpuKey(const std::string& text) {
  auto g = Catalog::bundled().resolveGpu(text);
  return g ? g->id : text;
}

/// An error naming both values when an option given for candidate `id`, already in
/// `session`, says otherwise than the candidate.
std::optional<Error> contradiction(const Session& session, const std::string& id,
                                   const AttachOptions& o) {
  const auto it = std::find_if(session.candidates.begin(), session.candidates.end(),
                               [&](const Candidate& c) { return c.id == id; });
  if (it == session.candidates.end()) return std::nullopt;
  auto clash = [&](const char* field, const std::string& given, const std::string& has) {
    return Error{kCommandLine, "", field,
                 "--" + std::string(field) + " '" + given + "' contradicts candidate '" + id +
                     "' in the session, which has " + field + " '" + has +
                     "'; leave the option out, or import into another --candidate"};
  };
  if (!o.model.empty() && modelKey(o.model) != modelKey(it->model)) {
    return clash("model", o.model, it->model);
  }
  if (!o.scheme.empty() && o.scheme != it->schemeLinear) {
    return clash("scheme", o.scheme, it->schemeLinear);
  }
  if (!o.gpu.empty() && gpuKey(o.gpu) != gpuKey(it->gpu)) return clash("gpu", o.gpu, it->gpu);
  if (o.gpuCount && *o.gpuCount != it->gpuCount) {
    return clash("gpu-count", std::to_string(*o.gpuCount), std::to_string(it->gpuCount));
  }
  return std::nullopt;
}

/// Ids are shown in tables, plots and reports: printable text, no edge whitespace (trimmed
/// in place).
bool checkCandidateId(std::string& id, std::ostream& err, int& rc) {
  id = trimmed(id);
  if (id.empty()) {
    rc = badArg(err, "candidate", "the candidate id must not be empty or blank");
    return false;
  }
  if (std::any_of(id.begin(), id.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    rc = badArg(err, "candidate",
                "the candidate id must be printable text (no control characters, newlines "
                "or terminal escapes)");
    return false;
  }
  return true;
}

/// --batch B --input-len I --output-len O: all three or none, each a whole number >= 1.
bool takeStaticBatch(const ParsedOptions& p, std::optional<StaticBatch>& out, std::ostream& err,
                     int& rc) {
  const auto batch = p.value("--batch"), in = p.value("--input-len"),
             outLen = p.value("--output-len"), tp = p.value("--tp");
  StaticBatch b;
  if (tp) {
    const auto v = parseInt(*tp);
    if (!v || *v < 1 || *v > 1024) {
      rc = badArg(err, "tp", "expected a whole number from 1 to 1024, found '" + *tp + "'");
      return false;
    }
    b.tp = static_cast<int>(*v);
  }
  if (!batch && !in && !outLen) {
    if (b.tp > 0) out = b;
    return true;
  }
  if (!batch || !in || !outLen) {
    rc = badArg(err,
                !batch ? "batch"
                : !in  ? "input-len"
                       : "output-len",
                "--batch, --input-len and --output-len go together (the static batch the "
                "files were timed at)");
    return false;
  }
  for (auto [text, dst, name] :
       {std::tuple{&batch, &b.batch, "batch"}, std::tuple{&in, &b.inputLen, "input-len"},
        std::tuple{&outLen, &b.outputLen, "output-len"}}) {
    const auto v = parseInt(**text);
    if (!v || *v < 1 || *v > 10'000'000) {
      rc = badArg(err, name, "expected a whole number from 1 to 10000000, found '" + **text + "'");
      return false;
    }
    *dst = static_cast<double>(*v);
  }
  out = b;
  return true;
}

/// What `qfront import` attaches its runs to, from its options.
struct ImportTarget {
  AttachOptions attach;
  std::optional<std::string> candidate;  ///< --candidate
  std::optional<StaticBatch> staticBatch;
  bool noCandidates = false;
};

/// --candidate, --model, --scheme, --gpu, --gpu-count, --baseline, the static batch,
/// --no-candidates and --allow-model-mismatch, each checked against the catalog before
/// anything is read. 0 or the exit code (one line printed).
int importTargetOptions(const ParsedOptions& p, ImportTarget& t, std::ostream& err) {
  int rc = kExitOk;
  auto candidateOpt = p.value("--candidate");  // trimmed by checkCandidateId
  const auto modelOpt = p.value("--model"), schemeOpt = p.value("--scheme"),
             gpuOpt = p.value("--gpu"), gpuCountOpt = p.value("--gpu-count"),
             baselineOpt = p.value("--baseline");
  std::optional<StaticBatch>& staticBatch = t.staticBatch;
  if (!takeStaticBatch(p, staticBatch, err, rc)) return rc;
  t.noCandidates = p.flag("--no-candidates");
  const bool noCandidates = t.noCandidates;
  AttachOptions& attachOpts = t.attach;
  attachOpts.allowModelMismatch = p.flag("--allow-model-mismatch");
  attachOpts.candidateId = candidateOpt;
  attachOpts.model = modelOpt.value_or("");
  attachOpts.gpu = gpuOpt.value_or("");
  attachOpts.baselineId = baselineOpt;
  if (gpuCountOpt) {
    const auto n = parseInt(*gpuCountOpt);
    if (!n || *n < 1 || *n > 1024) {
      return badArg(err, "gpu-count", "expected a GPU count 1..1024, found '" + *gpuCountOpt + "'");
    }
    attachOpts.gpuCount = static_cast<int>(*n);
  }
  if (candidateOpt) {
    if (!checkCandidateId(*candidateOpt, err, rc)) return rc;
    attachOpts.candidateId = candidateOpt;
  }
  if (noCandidates) {
    for (const auto& [opt, name] :
         {std::pair{static_cast<const std::optional<std::string>*>(&candidateOpt), "--candidate"},
          std::pair{&modelOpt, "--model"}, std::pair{&schemeOpt, "--scheme"},
          std::pair{&gpuOpt, "--gpu"}, std::pair{&gpuCountOpt, "--gpu-count"},
          std::pair{&baselineOpt, "--baseline"}}) {
      if (*opt) {
        return badArg(err, "no-candidates",
                      std::string("--no-candidates leaves the candidates as they are, but ") +
                          name + " '" + **opt + "' is for a candidate; give one of the two");
      }
    }
  }
  // Ids given on the command line are checked against the catalog before anything is read.
  if (modelOpt) {
    auto m = Catalog::bundled().resolveModel(*modelOpt);
    if (!m) return badArg(err, "model", m.error().message);
    // --tp the model's heads cannot be split over: no engine ran it so.
    if (staticBatch && staticBatch->tp > 0) {
      if (auto e = checkTensorParallel(*m, staticBatch->tp)) return badInput(err, *e);
    }
  }
  if (schemeOpt) {
    auto sc = Catalog::bundled().scheme(*schemeOpt, "scheme");
    if (!sc) return badArg(err, "scheme", sc.error().message);
    attachOpts.scheme = sc->id;
  }
  if (gpuOpt) {
    if (auto g = Catalog::bundled().resolveGpu(*gpuOpt); !g) {
      return badArg(err, "gpu", g.error().message);
    }
  }
  t.candidate = candidateOpt;
  return kExitOk;
}

}  // namespace

int cmdImport(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  int parseRc = kExitOk;
  const auto parsed = parseCommand(importCommand(), argv, out, err, parseRc);
  if (!parsed) return parseRc;
  auto outputs = parsed->values("-o");
  const auto longOutputs = parsed->values("--output");
  outputs.insert(outputs.end(), longOutputs.begin(), longOutputs.end());
  const auto formats = parsed->values("--format");
  int rc = kExitOk;
  ImportTarget target;
  if (const int bad = importTargetOptions(*parsed, target, err)) return bad;
  const AttachOptions& attachOpts = target.attach;
  const std::optional<std::string>& candidateOpt = target.candidate;
  const bool noCandidates = target.noCandidates;
  const std::optional<StaticBatch>& staticBatch = target.staticBatch;
  if (outputs.empty()) {
    return badArg(err, "output", "-o SESSION is required (the session file to add to)");
  }
  for (const auto& o : outputs) {
    if (o != outputs.front()) {
      return badArg(err, "output",
                    "-o given twice with different files ('" + outputs.front() + "', '" + o + "')");
    }
  }
  const std::string sessionPath = outputs.front();
  const std::string format = formats.empty() ? "table" : formats.back();
  if (format != "table" && format != "json") {
    return badArg(err, "format", "expected table or json, found '" + format + "'");
  }
  const std::vector<std::string>& files = parsed->positionals();
  if (files.empty()) return badArg(err, "FILE", "give at least one FILE to import");

  ImportPlan plan;  // every file read before anything is merged; any error refuses them all
  if (!noCandidates) plan.attach = attachOpts;
  plan.staticBatch = staticBatch;
  auto read = readImports(files, plan);
  if (!read) return badInput(err, read.error());
  // Held from reading the session to renaming the new one into place: a second writer
  // waits, then reads this one's result.
  auto lock = lockForUpdate(sessionPath, "qfront import", err, rc);
  if (!lock) return rc;
  // The session: loaded when it exists, else a new one. Every file has been read before.
  Session session;
  bool created = true;
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(sessionPath, ec))) {
    auto loaded = loadSession(sessionPath);
    if (!loaded) return badInput(err, loaded.error());
    session = std::move(*loaded);
    created = false;
  }

  // Options for an existing candidate must agree with it: they would otherwise be ignored.
  if (candidateOpt && !noCandidates) {
    if (auto e = contradiction(session, *candidateOpt, attachOpts)) {
      return badInput(err, e->from(sessionPath));
    }
  }
  auto outcome = mergeImports(session, std::move(*read), plan);
  if (!outcome) {
    Error e = outcome.error().from(sessionPath);
    if (e.field == "model" && !attachOpts.allowModelMismatch) {
      e.message += "; " + sessionPath + " left as it was (--allow-model-mismatch attaches anyway)";
    }
    return badInput(err, e);
  }
  const std::vector<FileSummary>& summaries = outcome->files;
  const std::optional<AttachReport>& attach = outcome->attach;

  if (auto e = saveSessionAtomic(session, sessionPath)) return badInput(err, *e);

  if (format == "json") {
    printJson(out, sessionPath, created, session, summaries, attach);
  } else {
    printTable(out, sessionPath, created, session, summaries, attach);
  }
  return kExitOk;
}

}  // namespace qf::cli
