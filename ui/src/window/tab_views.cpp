// The window's tabs in one place: each tab's widgets are constructed here and registered with
// the document parts it is drawn from and how it is drawn (buildTabViews); the document's
// changes reach every tab through feedTabViews. A costly tab (throughput, serving sweeps,
// end-to-end comparison) is drawn while in sight, and when shown or exported.
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include <quantfront/core/model/speculation.hpp>
#include <quantfront/core/session/evidence_edit.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/background.hpp>
#include <quantfront/ui/deploy_view.hpp>
#include <quantfront/ui/document.hpp>
#include <quantfront/ui/evidence_view.hpp>
#include <quantfront/ui/main_window.hpp>
#include <quantfront/ui/measured_view.hpp>
#include <quantfront/ui/pareto_view.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/plots.hpp>
#include <quantfront/ui/scenario_panel.hpp>
#include <quantfront/ui/serving_plot.hpp>
#include <quantfront/ui/table_fit.hpp>
#include <quantfront/ui/tabs.hpp>

#include "window_internal.hpp"

namespace qf::ui {

void MainWindow::buildTabViews() {
  // Adding a tab: its row in tabs.cpp, and its entry here (docs/architecture.md).
  m_stepPlot = new StepTimePlot(m_tabs);
  m_tabViews[Tab::Step] = {m_stepPlot,  m_stepPlot, nullptr,
                           kReportPart, false,      [this](unsigned) { drawStepPlot(); }};
  m_throughputPlot = new ThroughputPlot(m_tabs);
  m_tabViews[Tab::Throughput] = {
      m_throughputPlot, m_throughputPlot, nullptr, kReportPart, true, [this](unsigned) {
        const ScenarioSpec& spec = m_doc->reportSpec();
        m_throughputPlot->setReport(*m_doc->report(), spec.batchMin, spec.batchMax,
                                    static_cast<double>(spec.batchAt));
      }};
  // The serving sweeps (bootstraps over per-request records): in sight or exported only.
  buildServingTab();
  m_tabViews[Tab::Serving] = {m_servingTab, m_serving,
                              nullptr,      kRunsPart | kEvidencePart,
                              true,         [this](unsigned) { startServing(); }};
  buildSchemesTab();
  m_tabViews[Tab::Schemes] = {
      m_schemesTab, nullptr, m_schemesTable, kReportPart, false, [this](unsigned) {
        updateSchemesTable(static_cast<double>(m_doc->reportSpec().batchAt));
      }};
  m_pareto = new ParetoView(m_tabs);
  m_tabViews[Tab::Pareto] = {m_pareto, m_pareto->plot(),
                             nullptr,  kEvidencePart | kSelectionPart,
                             false,    [this](unsigned parts) { drawPareto(parts); }};
  // The Candidates table is the Pareto view's own: drawn with it.
  m_tabViews[Tab::Candidates] = {m_pareto->table(), nullptr, m_pareto->table(), 0, false, {}};
  m_evidence = new EvidenceView(m_tabs);
  m_tabViews[Tab::Evidence] = {
      m_evidence, nullptr, nullptr, kEvidencePart | kRunsPart, false, [this](unsigned) {
        m_evidence->setContents(m_doc->session().importedRuns, m_doc->allCandidates());
      }};
  // Its kernel overlay is drawn with the step-time plot's; the end-to-end comparison in sight.
  m_measured = new MeasuredView(m_tabs);
  m_tabViews[Tab::Measured] = {m_measured,
                               m_measured->exportPlot(),
                               m_measured->table(),
                               kReportPart | kRunsPart | kEvidencePart,
                               true,
                               [this](unsigned) { updateEndToEnd(); }};
  m_deploy = new DeployView(m_tabs);
  m_tabViews[Tab::Deploy] = {
      m_deploy, m_deploy->plot(),
      nullptr,  kReportPart,
      false,    [this](unsigned) { m_deploy->setModel(m_doc->report()->scenario.model); }};
}

const MainWindow::TabView& MainWindow::tabView(Tab tab) const {
  TabView& v = m_tabViews.at(tab);
  if (v.pending != 0 && v.draw) {
    const unsigned parts = v.pending;
    v.pending = 0;
    v.draw(parts);
  }
  return v;
}

void MainWindow::refeed(Tab tab, unsigned parts) {
  TabView& v = m_tabViews.at(tab);
  v.pending |= parts;
  if (!v.whenShown || m_tabs->currentWidget() == v.page) tabView(tab);
}

void MainWindow::feedTabViews(unsigned parts) {
  for (const TabSpec& spec : tabSpecs()) {
    const unsigned p = parts & m_tabViews.at(spec.id).feeds;
    if (p != 0) refeed(spec.id, p);
  }
}

ServingPlot* MainWindow::servingPlot() const {
  m_background->wait(Background::Lane::Serving);
  return m_serving;
}

const ServingSweeps& MainWindow::servingSweeps() const {
  m_background->wait(Background::Lane::Serving);
  return m_servingSweeps;
}

ThroughputPlot* MainWindow::throughputPlot() const {
  tabView(Tab::Throughput);
  return m_throughputPlot;
}

void MainWindow::drawStepPlot() {
  const ScenarioSpec& spec = m_doc->reportSpec();
  m_stepPlot->setReport(*m_doc->report(), spec.batchMin, spec.batchMax,
                        static_cast<double>(spec.batchAt), m_doc->intervals());
  updateSpeculation(spec);
  updateMeasurementOverlay(m_doc->resolvedScenario(), m_doc->assignments(), m_doc->batches());
}

void MainWindow::drawPareto(unsigned parts) {
  const Session& s = m_doc->session();
  const auto shown = [&] {
    return m_pareto->objectives() == s.view.objectives && m_pareto->gates() == s.view.gates;
  };
  if (parts & kEvidencePart) {
    // Shared with the document, not copied (a copy of 10^5 candidates is ~330 ms).
    auto visible = m_doc->visibleCandidates();
    if (parts & kSelectionPart) {
      m_pareto->setContents(std::move(visible), s.view.objectives, s.view.gates);
    } else {
      m_pareto->setCandidates(std::move(visible));
    }
  } else if (!shown()) {
    m_pareto->setSelection(s.view.objectives, s.view.gates);
  }
  // The rows show what they can of the objectives and gates given: that is the selection.
  if ((parts & kSelectionPart) && !shown()) {
    m_doc->adoptShownSelection(m_pareto->objectives(), m_pareto->gates());
  }
}

void MainWindow::buildSchemesTab() {
  m_schemesTab = new QWidget(m_tabs);
  auto* schemesLayout = new QVBoxLayout(m_schemesTab);
  m_schemesTable = new QTableWidget(m_schemesTab);
  m_schemesTable->setObjectName("schemesTable");
  m_schemesTable->setSortingEnabled(true);
  m_schemesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_crossoversTable = new QTableWidget(m_schemesTab);
  m_crossoversTable->setObjectName("crossoversTable");
  m_crossoversTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
  schemesLayout->addWidget(m_schemesTable, 3);
  schemesLayout->addWidget(
      new QLabel("Crossovers: where one scheme's step time overtakes "
                 "another's",
                 m_schemesTab));
  schemesLayout->addWidget(m_crossoversTable, 1);
}

void MainWindow::buildServingTab() {
  m_servingTab = new QWidget(m_tabs);
  auto* servingLayout = new QVBoxLayout(m_servingTab);
  servingLayout->setContentsMargins(0, 0, 0, 0);
  m_serving = new ServingPlot(m_servingTab);
  m_serving->setToolTip(QString());
  m_servingNotes = new QLabel(m_servingTab);
  m_servingNotes->setObjectName("servingNotes");
  m_servingNotes->setWordWrap(true);
  m_servingNotes->setStyleSheet("QLabel { color: #8a5a00; padding: 2px 6px; }");
  m_servingNotes->setVisible(false);
  auto* sloRow = new QHBoxLayout;
  sloRow->setContentsMargins(6, 4, 6, 0);
  sloRow->addWidget(new QLabel("Goodput SLO:", m_servingTab));
  auto sloBox = [&](const char* name, const QString& prefix, const QString& tip) {
    auto* box = new QDoubleSpinBox(m_servingTab);
    box->setObjectName(name);
    box->setRange(0, 600000);
    box->setDecimals(0);
    box->setSingleStep(10);
    box->setSuffix(" ms");
    box->setPrefix(prefix);
    box->setSpecialValueText(prefix + "off");
    box->setToolTip(tip);
    // Typing "250" is one change, not three recomputations of every run's bootstraps.
    box->setKeyboardTracking(false);
    sloRow->addWidget(box);
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] { refeed(Tab::Serving, kRunsPart); });
    return box;
  };
  m_sloTtft = sloBox("sloTtft", "TTFT ≤ ",
                     "Goodput counts the requests whose time to first token is within this "
                     "(computed from each run's per-request records; off: the file's own "
                     "goodput, if it has one)");
  m_sloTpot = sloBox("sloTpot", "TPOT ≤ ",
                     "Goodput counts the requests whose time per output token is within this "
                     "(computed from each run's per-request records; off: the file's own "
                     "goodput, if it has one)");
  sloRow->addStretch(1);
  servingLayout->addLayout(sloRow);
  servingLayout->addWidget(m_serving, 1);
  servingLayout->addWidget(m_servingNotes);
}

void MainWindow::updateSpeculation(const ScenarioSpec& spec) {
  if (!m_doc->report()) return;
  if (spec.specDraftTokens <= 0) {
    m_stepPlot->setSpeculation(*m_doc->report(), nullptr, {});
    return;
  }
  Speculation sp;
  sp.draftTokens = spec.specDraftTokens;
  sp.acceptance = spec.specAcceptance;
  QString why;
  std::optional<SpeculativeDraft> draft;
  if (auto e = validateSpeculation(sp)) {
    why = qs(e->message);
  } else if (spec.specDraft != "mtp") {
    // A draft model: its bf16 engine on the scenario's GPUs and TP.
    ScenarioSpec ds = spec;
    ds.model = spec.specDraft;
    auto dscen = resolveScenario(ds);
    auto bf16 = makeCandidates({"bf16"}, "", "", "");
    if (!dscen) {
      why = qs(dscen.error().str());
    } else if (!bf16) {
      why = qs(bf16.error().str());
    } else if (dscen->model.id == m_doc->report()->scenario.model.id) {
      why = "the draft is the target model itself";
    } else {
      dscen->contextTokens = m_doc->report()->scenario.contextTokens;
      dscen->efficiency = m_doc->report()->scenario.efficiency;
      auto eng = engineServing(*dscen, bf16->front());
      if (eng)
        draft = modelDraft(*eng, dscen->model.id, spec.tp);
      else
        why = qs(eng.error().str());
    }
  }
  if (!why.isEmpty()) {
    m_panel->setFeedback("Speculation not drawn: " + why, true);
    m_stepPlot->setSpeculation(*m_doc->report(), nullptr, {});
    return;
  }
  const SpeculativeCurves curves = speculativeCurves(
      *m_doc->report(), sp,
      draftPerScheme(draft, static_cast<double>(m_doc->report()->scenario.model.layers)));
  const QString label = QString("k %1, α %2, %3; %4 tokens a step")
                            .arg(sp.draftTokens)
                            .arg(fixedDecimals(sp.acceptance, 2))
                            .arg(qs(draft ? draft->label : std::string("mtp")))
                            .arg(fixedDecimals(curves.tokensPerStep, 2));
  m_stepPlot->setSpeculation(*m_doc->report(), &curves, label);
}

void MainWindow::updateSchemesTable(double batchAt) {
  // With the panel's batch, its answer first (step time, throughput and whether it fits there),
  // right after the scheme: it used to sit past a horizontal scroll.
  QStringList headers = {"scheme"};
  const bool atB = batchAt >= 1;
  if (atB) {
    const QString b = fixedDecimals(batchAt, 0);
    headers << QString("step ms at B=%1").arg(b) << QString("tok/s at B=%1").arg(b)
            << QString("fits at B=%1?").arg(b);
  }
  const int off = atB ? 3 : 0;  // the columns after the scheme's own figures move right
  // "memory ms (B=1, no t0)": the weights' stream alone; the plot's floor line adds t0.
  headers << "bits/weight"
          << "path"
          << "memory ms (B=1, no t0)"
          << "mma µs/seq"
          << "dequant ms"
          << "ridge B"
          << "weights GiB"
          << "max seqs"
          << "tok/s at capacity";
  // With the panel's prompt and output tokens: one request's end-to-end figures (batch 1).
  const double inLen = static_cast<double>(m_doc->report()->scenario.inputLen);
  const double outLen = static_cast<double>(m_doc->report()->scenario.outputLen);
  const bool e2e = inLen > 0 && outLen > 0;
  if (e2e)
    headers << "TTFT ms (B=1)"
            << "TPOT ms (B=1)"
            << "latency s (B=1)";
  m_schemesTable->setSortingEnabled(false);
  m_schemesTable->clear();
  m_schemesTable->setColumnCount(static_cast<int>(headers.size()));
  m_schemesTable->setHorizontalHeaderLabels(headers);
  m_schemesTable->horizontalHeaderItem(3 + off)->setToolTip(
      "The weights' stream at batch 1 at the calibrated bandwidth, without the "
      "per-step overhead t0: the step-time plot's floor line is this plus t0.");
  m_schemesTable->setRowCount(static_cast<int>(m_doc->report()->schemes.size()));
  int row = 0;
  auto num = [](double v, int prec) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, std::round(v * std::pow(10, prec)) / std::pow(10, prec));
    return item;
  };
  for (const auto& s : m_doc->report()->schemes) {
    m_schemesTable->setItem(row, 0, new QTableWidgetItem(qs(s.assignment.id)));
    m_schemesTable->setItem(row, 1 + off, num(s.bitsPerWeight, 3));
    auto* path = new QTableWidgetItem(qs(s.pathName));
    if (s.fallback) {
      path->setForeground(QColor(176, 0, 0));
      path->setToolTip(QString("%1 has no %2 tensor path: %3 runs on the bf16 fallback")
                           .arg(qs(m_doc->report()->scenario.gpu.name),
                                tensorPathName(s.assignment.linear.path), qs(s.assignment.id)));
    }
    m_schemesTable->setItem(row, 2 + off, path);
    m_schemesTable->setItem(row, 3 + off, num(s.memoryFloorMs, 3));
    m_schemesTable->setItem(row, 4 + off, num(s.mmaUsPerSeq, 3));
    m_schemesTable->setItem(row, 5 + off, num(s.dequantMs, 3));
    m_schemesTable->setItem(row, 6 + off,
                            s.ridgeBatch ? num(*s.ridgeBatch, 1) : new QTableWidgetItem("none"));
    m_schemesTable->setItem(row, 7 + off, num(s.capacity.weightsGib, 2));
    m_schemesTable->setItem(row, 8 + off, num(static_cast<double>(s.capacity.maxSeqs), 0));
    m_schemesTable->setItem(row, 9 + off, num(s.capacity.tokensPerSAtCapacity, 0));
    if (e2e) {
      const StaticBatchPrediction p = predictStaticBatch(s.curve, 1.0, inLen, outLen);
      m_schemesTable->setItem(row, 10 + off, num(p.ttftMs, 2));
      m_schemesTable->setItem(row, 11 + off, num(p.tpotMs, 3));
      m_schemesTable->setItem(row, 12 + off, num(p.e2eLatencyS, 3));
    }
    if (atB) {
      const int atColumn = 1;
      const SchemeAtBatch at = schemeAtBatch(m_doc->report()->scenario, s, batchAt);
      m_schemesTable->setItem(row, atColumn, num(at.stepMs, 3));
      m_schemesTable->setItem(row, atColumn + 1, num(at.tokensPerS, 0));
      auto* fits = new QTableWidgetItem(at.fits ? "yes" : "no");
      fits->setToolTip(QString("weights %1 GiB + KV %2 GiB (%3 sequences × %4 tokens) = %5 GiB "
                               "per GPU; budget %6 GiB")
                           .arg(fixedDecimals(s.capacity.weightsGib, 1))
                           .arg(fixedDecimals(at.kvGib, 1))
                           .arg(fixedDecimals(batchAt, 0))
                           .arg(at.kvTokens)
                           .arg(fixedDecimals(at.neededGib, 1))
                           .arg(fixedDecimals(at.budgetGib, 1)));
      if (!at.fits) fits->setForeground(QColor(176, 0, 0));
      m_schemesTable->setItem(row, atColumn + 2, fits);
    }
    ++row;
  }
  m_schemesTable->setSortingEnabled(true);
  fitColumnsWhenShown(m_schemesTable);

  m_crossoversTable->clear();
  m_crossoversTable->setColumnCount(4);
  m_crossoversTable->setHorizontalHeaderLabels(
      {"faster up to B", "faster there", "faster above", "in words"});
  m_crossoversTable->setRowCount(static_cast<int>(m_doc->report()->crossovers.size()));
  row = 0;
  for (std::size_t i = 0; i < m_doc->report()->crossovers.size(); ++i) {
    const CrossoverReport& c = m_doc->report()->crossovers[i];
    const std::string& other = c.schemes[0] == c.fasterBelow ? c.schemes[1] : c.schemes[0];
    m_crossoversTable->setItem(row, 0, num(lastBatchFaster(c), 0));
    m_crossoversTable->setItem(row, 1, new QTableWidgetItem(qs(c.fasterBelow)));
    m_crossoversTable->setItem(row, 2, new QTableWidgetItem(qs(other)));
    m_crossoversTable->setItem(
        row, 3, new QTableWidgetItem(crossoverText(c, tieOf(m_doc->intervals().get(), i))));
    ++row;
  }
  fitColumnsWhenShown(m_crossoversTable);
}

void MainWindow::updateServing() {
  startServing();
  m_background->wait(Background::Lane::Serving);
}

void MainWindow::startServing() {
  // The bootstraps over every run's per-request records take seconds for a large sweep: they
  // run off the GUI thread, on a copy of what they read.
  Session s = withoutHidden(m_doc->session());
  ServingOptions opts;
  if (m_sloTtft->value() > 0) opts.slo.ttftS = m_sloTtft->value() / 1e3;
  if (m_sloTpot->value() > 0) opts.slo.tpotS = m_sloTpot->value() / 1e3;
  m_background->run<Result<ServingSweeps>>(
      Background::Lane::Serving,
      [s = std::move(s), opts](const std::atomic<bool>&) {
        return guarded("serving runs", [&]() -> Result<ServingSweeps> {
          ServingSweeps sw = qf::servingSweeps(s, opts);
          if (!sw.groups.empty() || !sw.failedRuns.empty() || !opts.modelledCurves) return sw;
          // No sweep to draw: the serving model's curves for the scenario's schemes.
          std::string workload;
          ServingSweeps modelled = qf::scenarioServing(s, &workload);
          modelled.warnings.insert(
              modelled.warnings.begin(),
              "no serving runs imported: the serving model's curves for the scenario's schemes "
              "at " +
                  workload +
                  "; import vLLM or SGLang sweeps (File › Import results…) to "
                  "draw them beside the measurements");
          for (auto& w : sw.warnings) modelled.warnings.push_back(std::move(w));
          return modelled;
        });
      },
      [this, note = sloNote()](Result<ServingSweeps>&& sweeps) { showServing(sweeps, note); });
  if (m_background->busy(Background::Lane::Serving)) {
    const QString computing =
        "Computing the serving statistics (bootstraps over every run's requests)…";
    // In the notes line when it is shown already; else in the status bar: the notes line
    // appearing would resize the plot, drawn again at once (30 ms of input held).
    if (m_servingNotes->isVisible()) {
      m_servingNotes->setText(computing);
    } else {
      statusBar()->showMessage(computing);
      m_servingComputingShown = true;
    }
  }
}

QString MainWindow::sloNote() const {
  QStringList parts;
  if (m_sloTtft->value() > 0) parts << QString("TTFT ≤ %1 ms").arg(m_sloTtft->value());
  if (m_sloTpot->value() > 0) parts << QString("TPOT ≤ %1 ms").arg(m_sloTpot->value());
  if (parts.isEmpty()) return {};
  return "goodput: requests per second that produced output within " + parts.join(" and ") +
         " (from each run's per-request records)";
}

void MainWindow::showServing(Result<ServingSweeps>& sweeps, const QString& sloNote) {
  if (m_servingComputingShown) {
    statusBar()->clearMessage();
    m_servingComputingShown = false;
  }
  m_servingSweeps = sweeps ? std::move(*sweeps) : ServingSweeps{};
  m_serving->setData(m_servingSweeps);
  QStringList notes;
  if (!sweeps) notes << qs(sweeps.error().str());
  if (!sloNote.isEmpty()) notes << sloNote;
  for (const auto& w : m_servingSweeps.warnings) notes << qs(w);
  for (const auto& g : m_servingSweeps.groups) {
    for (const auto& w : g.warnings) notes << qs(g.key) + ": " + qs(w);
  }
  m_servingNotes->setText(notes.join("\n"));
  m_servingNotes->setVisible(!notes.isEmpty());
}

}  // namespace qf::ui
