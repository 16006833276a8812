// The Evidence tab: imported runs, attaching them to candidates, provenance of every metric.
#include <quantfront/ui/evidence_view.hpp>

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <set>

#include <quantfront/core/analysis/metric_dictionary.hpp>
#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/serving.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {

std::optional<double> metricOf(const ImportedRun& r, const char* name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

std::string setupOf(const ImportedRun& r, const std::string& key) {
  const auto it = r.setup.find(key);
  return it == r.setup.end() ? std::string() : it->second;
}

/// What the run's load was: a serving run's offered load as core states it ("4 req/s",
/// "concurrency 8"), a latency or throughput run's batch.
QString loadOf(const ImportedRun& r) {
  if (r.kind == RunKind::Serving) {
    if (const auto load = offeredLoadOf(r)) return qs(offeredLoadText(*load));
  }
  if (const auto b = setupOf(r, "batch_size"); !b.empty()) return "batch " + qs(b);
  return {};
}

/// One line saying what the run holds: the figures the import read (never blank for a run
/// with metrics); a failed run says so instead of showing its zeros.
QString summaryOf(const ImportedRun& r) {
  QStringList parts;
  if (allRequestsFailed(r)) {
    parts << qs(failedRunText(r)) + ": no throughput or latency figures";
  } else if (isTimedRun(r.kind)) {
    const auto requests =
        metricOf(r, "completed") ? metricOf(r, "completed") : metricOf(r, "num_requests");
    if (requests) parts << QString("%1 requests").arg(*requests);
    if (const auto v = metricOf(r, "request_throughput_req_s"))
      parts << significant(*v, 5) + " req/s";
    const auto out = metricOf(r, "output_throughput_tok_s");
    if (out) parts << significant(*out, 5) + " out tok/s";
    if (const auto v = metricOf(r, "total_token_throughput_tok_s"); v && !out)
      parts << significant(*v, 5) + " tok/s (in + out)";
    if (const auto v = metricOf(r, "tpot_p99_ms"))
      parts << "TPOT p99 " + significant(*v, 5) + " ms";
    if (const auto v = metricOf(r, "ttft_p99_ms"))
      parts << "TTFT p99 " + significant(*v, 5) + " ms";
    if (const auto v = metricOf(r, "latency_mean_s"))
      parts << "latency " + significant(*v, 5) + " s";
    if (r.kind == RunKind::Throughput) {
      if (const auto v = metricOf(r, "total_num_tokens"))
        parts << QString("%1 tokens").arg(fixedDecimals(*v, 0));
      if (const auto v = metricOf(r, "duration_s")) parts << "in " + significant(*v, 5) + " s";
    }
    if (!r.requests.empty()) {
      double sum = 0;
      int n = 0;
      for (const auto& q : r.requests) {
        if (!q.success) continue;
        sum += static_cast<double>(q.outputLen);
        ++n;
      }
      if (n > 0) parts << "mean output " + significant(sum / n, 5) + " tok";
    }
  } else if (r.kind == RunKind::EvalResults) {
    std::set<std::string> tasks;
    for (const auto& [key, _] : r.metrics) {
      const auto slash = key.find('/');
      tasks.insert(slash == std::string::npos ? key : key.substr(0, slash));
    }
    QStringList t;
    for (const auto& s : tasks) t << qs(s);
    parts << "scores: " + t.join(", ");
  }
  if (parts.isEmpty()) parts << QString("%1 metrics").arg(r.metrics.size());
  return parts.join("; ");
}

/// The run's warnings as the import listed them, one a line.
QString warningsText(const ImportedRun& r) {
  QStringList lines;
  for (const auto& w : r.warnings) lines << "warning: " + qs(w);
  return lines.join("\n");
}

/// The status cell: failed (every request), its warning count, or ok; the tooltip lists the
/// warnings.
QTableWidgetItem* statusItem(const ImportedRun& r) {
  const bool failed = allRequestsFailed(r);
  QString text = failed ? "failed: " + qs(failedRunText(r)) : QString("ok");
  if (!r.warnings.empty()) {
    text += QString(failed ? " (%1 warning(s))" : ", %1 warning(s)").arg(r.warnings.size());
  }
  auto* item = new QTableWidgetItem(text);
  if (failed) {
    item->setForeground(QColor(176, 0, 0));
  } else if (!r.warnings.empty()) {
    item->setForeground(QColor(138, 90, 0));
  }
  QString tip = failed ? "Every request of this run failed: its figures are not attached to a "
                         "candidate and it is not drawn on the Serving tab."
                       : QString();
  if (!r.warnings.empty()) tip += (tip.isEmpty() ? "" : "\n") + warningsText(r);
  item->setToolTip(tip);
  return item;
}

/// Where a number comes from, in one cell.
QString sourceOf(const Provenance& p) {
  if (!p.citation.empty()) return qs(p.citation);
  if (!p.sourceFile.empty()) {
    QString s = QFileInfo(qs(p.sourceFile)).fileName();
    if (!p.sha256.empty()) s += "  (SHA-256 " + qs(p.sha256.substr(0, 12)) + "…)";
    return s;
  }
  return qs(p.note);
}

/// The runs table: rows drag as the runs' digests.
class RunsTable : public QTableWidget {
 public:
  using QTableWidget::QTableWidget;

 protected:
  QStringList mimeTypes() const override { return {EvidenceView::kRunsMime}; }
  QMimeData* mimeData(const QList<QTableWidgetItem*>& items) const override {
    std::set<int> rows;
    for (const auto* it : items) rows.insert(it->row());
    QStringList digests;
    for (int r : rows) {
      if (const auto* it = item(r, 0)) digests << it->data(Qt::UserRole).toString();
    }
    auto* mime = new QMimeData;
    mime->setData(EvidenceView::kRunsMime, digests.join('\n').toUtf8());
    return mime;
  }
};

}  // namespace

EvidenceView::EvidenceView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* top = new QWidget(split);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  m_summary = new QLabel(top);
  m_summary->setWordWrap(true);
  topLayout->addWidget(m_summary);
  m_runs = new RunsTable(top);
  m_runs->setObjectName("runsTable");
  m_runs->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_runs->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_runs->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_runs->setDragEnabled(true);
  m_runs->setDragDropMode(QAbstractItemView::DragOnly);
  m_runs->setContextMenuPolicy(Qt::CustomContextMenu);
  m_runs->setToolTip(
      "Runs imported into the session. Select runs and attach them to a candidate (button, "
      "right-click, or drag them onto a row of the Candidates tab).");
  topLayout->addWidget(m_runs, 1);
  auto* buttons = new QHBoxLayout;
  m_attach = new QPushButton("Attach to candidate…", top);
  m_attach->setObjectName("attachRuns");
  m_attach->setToolTip(
      "Make the selected runs' figures measured metrics of one candidate (created when "
      "missing); recovery against the model's bf16 candidate is derived");
  m_perModel = new QPushButton("One candidate per model", top);
  m_perModel->setObjectName("attachPerModel");
  m_perModel->setToolTip(
      "Attach each selected run to a candidate named after the model its file names "
      "(scheme from the name: FP8, W4A16, ...)");
  m_detach = new QPushButton("Detach", top);
  m_detach->setObjectName("detachRuns");
  m_detach->setToolTip(
      "The selected runs feed no candidate any more: every figure they gave (and every "
      "recovery derived from them) leaves the candidate; the runs stay here (Ctrl+Z undoes)");
  buttons->addWidget(m_attach);
  buttons->addWidget(m_perModel);
  buttons->addWidget(m_detach);
  buttons->addStretch(1);
  topLayout->addLayout(buttons);

  auto* bottom = new QWidget(split);
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 0, 0, 0);
  auto* pick = new QHBoxLayout;
  auto* pickLabel = new QLabel("Metrics of candidate:", bottom);
  m_candidate = new QComboBox(bottom);
  m_candidateIds = new CandidateIdList(QString(), m_candidate);
  m_candidate->setModel(m_candidateIds);
  m_candidate->setObjectName("evidenceCandidate");
  m_candidate->setToolTip(
      "The candidate whose metrics are listed below (also follows the selection in the "
      "Candidates tab)");
  // Sized by its minimum length, not by measuring every id (10^5 of them on first show).
  m_candidate->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_candidate->setMinimumContentsLength(28);
  pick->addWidget(pickLabel);
  pick->addWidget(m_candidate);
  pick->addStretch(1);
  bottomLayout->addLayout(pick);
  m_metrics = new QTableWidget(bottom);
  m_metrics->setObjectName("metricsTable");
  m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_metrics->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_metrics->setToolTip(
      "Every figure of the candidate with its interval and provenance: measured (file and "
      "SHA-256), published (citation) or modelled (the inputs)");
  bottomLayout->addWidget(m_metrics, 1);
  split->addWidget(top);
  split->addWidget(bottom);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split);

  connect(m_attach, &QPushButton::clicked, this, &EvidenceView::attachSelectedInteractive);
  connect(m_perModel, &QPushButton::clicked, this, [this] {
    const QStringList d = selectedDigests();
    if (!d.isEmpty()) emit attachRequested(AttachRequest{d, std::nullopt, {}});
  });
  connect(m_detach, &QPushButton::clicked, this, [this] {
    const QStringList d = selectedDigests();
    if (!d.isEmpty()) emit detachRequested(d);
  });
  connect(m_runs, &QTableWidget::itemSelectionChanged, this, [this] { updateButtons(); });
  connect(m_runs, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QStringList digests = selectedDigests();
    if (digests.isEmpty()) return;
    QMenu menu(this);
    QMenu* to = menu.addMenu("Attach to");
    for (const QString& id : candidateIds()) {
      to->addAction(id, this, [this, digests, id] {
        emit attachRequested(AttachRequest{digests, id, {}});
      });
    }
    to->setEnabled(!to->isEmpty());
    menu.addAction("Attach to a new or chosen candidate…", this,
                   &EvidenceView::attachSelectedInteractive);
    menu.addAction("One candidate per model", this, [this, digests] {
      emit attachRequested(AttachRequest{digests, std::nullopt, {}});
    });
    menu.addAction("Detach from its candidate", this,
                   [this, digests] { emit detachRequested(digests); })
        ->setEnabled(m_detach->isEnabled());
    menu.exec(m_runs->viewport()->mapToGlobal(pos));
  });
  connect(m_candidate, &QComboBox::currentIndexChanged, this, [this] { fillMetrics(); });
  fillRuns();
}

void EvidenceView::setContents(const std::vector<ImportedRun>& runs,
                               std::shared_ptr<const std::vector<Candidate>> cands) {
  const QString shown = shownCandidate();
  m_runData = runs;
  m_cands = cands ? std::move(cands) : std::make_shared<const std::vector<Candidate>>();
  fillRuns();
  {
    const QSignalBlocker block(m_candidate);
    m_candidateIds->setCandidates(m_cands);
    const int keep = m_candidateIds->rowOf(shown);
    m_candidate->setCurrentIndex(keep >= 0 ? keep : (m_cands->empty() ? -1 : 0));
  }
  fillMetrics();
}

void EvidenceView::setContents(const std::vector<ImportedRun>& runs,
                               const std::vector<Candidate>& cands) {
  setContents(runs, std::make_shared<const std::vector<Candidate>>(cands));
}

void EvidenceView::showCandidate(const QString& id) {
  const int i = m_candidateIds->rowOf(id);
  if (i >= 0) m_candidate->setCurrentIndex(i);
}

QString EvidenceView::shownCandidate() const {
  return m_candidate->currentData().toString();
}

QStringList EvidenceView::selectedDigests() const {
  std::set<int> rows;
  for (const auto& idx : m_runs->selectionModel()->selectedRows()) rows.insert(idx.row());
  QStringList out;
  for (int r : rows) {
    if (const auto* it = m_runs->item(r, 0)) out << it->data(Qt::UserRole).toString();
  }
  out.removeDuplicates();
  return out;
}

void EvidenceView::selectRuns(const QStringList& files) {
  m_runs->clearSelection();
  for (int r = 0; r < m_runs->rowCount(); ++r) {
    const auto* it = m_runs->item(r, 0);
    if (it && files.contains(it->text())) {
      m_runs->selectionModel()->select(m_runs->model()->index(r, 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
  }
}

QStringList EvidenceView::candidateIds() const {
  QStringList ids;
  for (const auto& c : *m_cands) ids << qs(c.id);
  return ids;
}

void EvidenceView::setAttachChooser(
    std::function<std::optional<AttachRequest>(const QStringList& digests)> f) {
  m_chooser = std::move(f);
}

void EvidenceView::attachSelectedInteractive() {
  const QStringList digests = selectedDigests();
  if (digests.isEmpty()) return;
  const auto req = m_chooser ? m_chooser(digests) : chooseTarget(digests);
  if (req) emit attachRequested(*req);
}

QString EvidenceView::namedCandidate(const QStringList& digests) const {
  QString found;
  for (const auto& run : m_runData) {
    if (!digests.contains(qs(run.sha256))) continue;
    const QString id = qs(matchingCandidate(run, *m_cands));
    if (id.isEmpty() || (!found.isEmpty() && id != found)) return {};  // none, or runs disagree
    found = id;
  }
  return found;
}

std::optional<AttachRequest> EvidenceView::chooseTarget(const QStringList& digests) {
  QDialog dlg(this);
  dlg.setWindowTitle("Attach runs to a candidate");
  auto* form = new QFormLayout(&dlg);
  auto* cand = new QComboBox(&dlg);
  cand->setEditable(true);
  cand->addItems(candidateIds());
  cand->setToolTip("An existing candidate, or type a new id to create one");
  // The candidate the runs name (their model and scheme) first; else the one on display.
  const QString named = namedCandidate(digests);
  if (const QString shown = shownCandidate(); !named.isEmpty() || !shown.isEmpty())
    cand->setCurrentText(named.isEmpty() ? shown : named);
  auto* scheme = new QComboBox(&dlg);
  scheme->addItem("from the model name (bf16 when it names none)", QString());
  for (const auto& s : Catalog::bundled().schemes()) scheme->addItem(qs(s.id), qs(s.id));
  scheme->setToolTip(
      "Scheme of a new candidate whose model name gives no hint (an existing candidate keeps "
      "its scheme)");
  // The result files of vLLM and SGLang do not say which GPU they ran on: asked here.
  auto* gpu = new QComboBox(&dlg);
  gpu->setObjectName("attachGpu");
  gpu->addItem("the scenario's GPU", QString());
  for (const auto& g : Catalog::bundled().gpus()) gpu->addItem(qs(g.name), qs(g.id));
  gpu->setToolTip(
      "The GPU the runs were measured on, for a candidate this creates: vLLM and SGLang result "
      "files do not record it (an existing candidate keeps its GPU)");
  auto* count = new QSpinBox(&dlg);
  count->setObjectName("attachGpuCount");
  count->setRange(1, 1024);
  count->setToolTip("GPUs per replica (tensor parallel) of a candidate this creates");
  form->addRow(QString("%1 run(s) to:").arg(digests.size()), cand);
  form->addRow("Scheme:", scheme);
  form->addRow("Measured on:", gpu);
  form->addRow("GPUs:", count);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dlg);
  form->addRow(box);
  connect(box, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
  connect(box, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
  if (dlg.exec() != QDialog::Accepted || cand->currentText().trimmed().isEmpty()) {
    return std::nullopt;
  }
  return AttachRequest{digests, cand->currentText().trimmed(), scheme->currentData().toString(),
                       false,   gpu->currentData().toString(), count->value()};
}

void EvidenceView::fillRuns() {
  const QStringList headers = {"file",          "format",    "model (as the file names it)",
                               "load",          "candidate", "status",
                               "what it holds", "SHA-256"};
  m_runs->setSortingEnabled(false);
  m_runs->clear();
  m_runs->setColumnCount(static_cast<int>(headers.size()));
  m_runs->setHorizontalHeaderLabels(headers);
  m_runs->setRowCount(static_cast<int>(m_runData.size()));
  int attached = 0, failed = 0;
  std::size_t warnings = 0;
  for (int row = 0; row < static_cast<int>(m_runData.size()); ++row) {
    const ImportedRun& r = m_runData[static_cast<std::size_t>(row)];
    auto* file = new QTableWidgetItem(QFileInfo(qs(r.sourceFile)).fileName());
    file->setData(Qt::UserRole, qs(r.sha256));
    file->setToolTip(qs(r.sourceFile));
    m_runs->setItem(row, 0, file);
    m_runs->setItem(row, 1, new QTableWidgetItem(qs(r.format)));
    m_runs->setItem(row, 2, new QTableWidgetItem(qs(runModelName(r))));
    m_runs->setItem(row, 3, new QTableWidgetItem(loadOf(r)));
    const std::string cand = setupOf(r, kCandidateSetupKey);
    if (!cand.empty()) ++attached;
    auto* c = new QTableWidgetItem(cand.empty() ? QString("— not attached") : qs(cand));
    if (cand.empty()) c->setForeground(QColor(120, 120, 120));
    m_runs->setItem(row, 4, c);
    m_runs->setItem(row, 5, statusItem(r));
    failed += allRequestsFailed(r) ? 1 : 0;
    warnings += r.warnings.size();
    auto* what = new QTableWidgetItem(summaryOf(r));
    what->setToolTip(r.warnings.empty() ? summaryOf(r) : summaryOf(r) + "\n" + warningsText(r));
    m_runs->setItem(row, 6, what);
    auto* sha = new QTableWidgetItem(qs(r.sha256.substr(0, 16)));
    sha->setToolTip(qs(r.sha256));
    m_runs->setItem(row, 7, sha);
  }
  m_runs->setSortingEnabled(true);
  m_runs->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_summary->setText(
      m_runData.empty()
          ? QString("No runs imported. File › Import results… (or drop files on the window) reads "
                    "vLLM / SGLang benchmark results, lm-eval results and nvbench files.")
          : QString("%1 run(s) imported, %2 attached to a candidate%3%4. Attached figures "
                    "become measured metrics of the candidate and reach the Pareto tab.")
                .arg(m_runData.size())
                .arg(attached)
                .arg(failed > 0
                         ? QString(", %1 failed (every request: no figures, not drawn)").arg(failed)
                         : QString())
                .arg(warnings > 0 ? QString(", %1 warning(s) (status column)").arg(warnings)
                                  : QString()));
  updateButtons();
}

void EvidenceView::updateButtons() {
  const QStringList digests = selectedDigests();
  m_attach->setEnabled(!digests.isEmpty());
  m_perModel->setEnabled(!digests.isEmpty());
  bool attached = false;
  for (const auto& r : m_runData) {
    attached |= digests.contains(qs(r.sha256)) && !setupOf(r, kCandidateSetupKey).empty();
  }
  m_detach->setEnabled(attached);
}

void EvidenceView::fillMetrics() {
  const QStringList headers = {"metric",     "value",  "interval", "unit",
                               "provenance", "source", "name"};
  m_metrics->setSortingEnabled(false);
  m_metrics->clear();
  m_metrics->setColumnCount(static_cast<int>(headers.size()));
  m_metrics->setHorizontalHeaderLabels(headers);
  // The picker's rows are the candidates in order: its current row is the one shown (a scan
  // comparing every id with the picker's text was 17 ms of 10^5 candidates).
  const int shown = m_candidate->currentIndex();
  const Candidate* c = shown >= 0 && static_cast<std::size_t>(shown) < m_cands->size()
                           ? &(*m_cands)[static_cast<std::size_t>(shown)]
                           : nullptr;
  m_metrics->setRowCount(c ? static_cast<int>(c->metrics.size()) : 0);
  if (!c) return;
  int row = 0;
  for (const auto& [name, m] : c->metrics) {
    const auto info = lookupMetric(name);
    auto* readable = new QTableWidgetItem(info ? qs(info->readable) : qs(name));
    if (info) readable->setToolTip(qs(info->description));
    m_metrics->setItem(row, 0, readable);
    auto* value = new QTableWidgetItem;
    value->setData(Qt::DisplayRole, m.value);
    m_metrics->setItem(row, 1, value);
    m_metrics->setItem(
        row, 2,
        new QTableWidgetItem(
            m.lo && m.hi ? QString("[%1, %2]").arg(significant(*m.lo, 5), significant(*m.hi, 5))
                         : QString()));
    m_metrics->setItem(row, 3, new QTableWidgetItem(info ? qs(info->unit) : QString()));
    QString kind = provenanceName(m.provenance.kind);
    if (isDerivedFigure(m.provenance)) kind += " (derived)";
    m_metrics->setItem(row, 4, new QTableWidgetItem(kind));
    auto* source = new QTableWidgetItem(sourceOf(m.provenance));
    QString tip = qs(m.provenance.note);
    if (!m.provenance.sourceFile.empty()) tip = qs(m.provenance.sourceFile) + "\n" + tip;
    if (!m.provenance.sha256.empty()) tip += "\nSHA-256 " + qs(m.provenance.sha256);
    if (m.n) tip += QString("\nn = %1").arg(*m.n);
    source->setToolTip(tip.trimmed());
    m_metrics->setItem(row, 5, source);
    m_metrics->setItem(row, 6, new QTableWidgetItem(qs(name)));
    ++row;
  }
  m_metrics->setSortingEnabled(true);
  m_metrics->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

}  // namespace qf::ui
