// The Deploy tab's view: a search over the catalog's priced GPUs for Llama-3-8B, the frontier
// drawn one point per configuration and listed row for row, the hover naming the whole
// configuration, "Add as candidate" emitting the selected deployment, and refusals said.
#include <catch2/catch.hpp>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/ui/deploy_view.hpp>

#include "support/qt_app.hpp"

namespace {

/// Ticks one GPU (of those that can be ticked) and one scheme, and nothing else.
void tickOnly(qf::ui::DeployView& v, const QString& gpu, const QString& scheme) {
  for (int i = 0; i < v.gpuList()->count(); ++i) {
    auto* item = v.gpuList()->item(i);
    if (item->flags() == Qt::NoItemFlags) continue;
    item->setCheckState(item->data(Qt::UserRole).toString() == gpu ? Qt::Checked : Qt::Unchecked);
  }
  for (int i = 0; i < v.schemeList()->count(); ++i) {
    auto* item = v.schemeList()->item(i);
    item->setCheckState(item->text() == scheme ? Qt::Checked : Qt::Unchecked);
  }
}

}  // namespace

TEST_CASE("the Deploy view searches, draws and lists the frontier", "[ui][deploy]") {
  qf::testing::app();
  qf::ui::DeployView v;
  auto model = qf::Catalog::bundled().resolveModel("llama-3-8b");
  REQUIRE(model.ok());
  v.setModel(*model);
  v.sloTpotBox()->setValue(40);
  REQUIRE(v.search());
  const auto& r = *v.result();
  REQUIRE_FALSE(r.frontier.empty());
  CHECK(r.evaluated > 1000);
  REQUIRE(r.best.has_value());
  // Every frontier point is drawn once (the staircase and the ring aside) and listed once.
  int points = 0;
  for (int g = 0; g < v.plot()->graphCount(); ++g) {
    const auto* graph = v.plot()->graph(g);
    if (graph->name() == "frontier" || graph->name() == "cheapest feasible") continue;
    points += graph->dataCount();
  }
  CHECK(points == static_cast<int>(r.frontier.size()));
  CHECK(v.table()->rowCount() == static_cast<int>(r.frontier.size()));
  for (const auto& c : r.frontier) CHECK(c.tpotMs <= 40.0);
  CHECK(v.status().contains("feasible"));
  CHECK(v.status().contains("Cheapest"));
  // The hover names the configuration; the table's first row is the frontier's first.
  const auto& f0 = r.frontier.front();
  CHECK(v.hoverText(0).contains(QString::fromStdString(f0.gpu)));
  CHECK(v.hoverText(0).contains("USD per million output tokens"));
  CHECK(v.table()->item(0, 0)->text() == QString::fromStdString(f0.gpu));
  // Add as candidate: the selected row's deployment, with its figures as modelled metrics.
  QSignalSpy spy(&v, &qf::ui::DeployView::addCandidateRequested);
  v.selectRow(0);
  auto c = v.selectedCandidate();
  REQUIRE(c.has_value());
  CHECK(c->gpu == f0.gpu);
  CHECK(c->gpuCount == f0.gpuCount);
  CHECK(c->model == "llama-3-8b");
  CHECK(c->metrics.at("usd_per_million_output_tokens").value == f0.usdPerMillionOutputTokens);
  CHECK(c->metrics.at("deploy_tpot_ms").provenance.kind == qf::ProvenanceKind::Modelled);
  auto* add = v.findChild<QPushButton*>();
  for (auto* b : v.findChildren<QPushButton*>()) {
    if (b->text() == "Add as candidate") add = b;
  }
  REQUIRE(add != nullptr);
  REQUIRE(add->isEnabled());
  add->click();
  REQUIRE(spy.count() == 1);
  CHECK(spy.at(0).at(0).value<qf::Candidate>().id == c->id);
  // The selected row's launch line, per engine, with the batch cap the model priced it at.
  const QString vllm = v.launchText();
  CHECK(vllm.startsWith("vllm serve "));
  CHECK(vllm.contains(QString("--tensor-parallel-size %1").arg(f0.tp)));
  CHECK(vllm.contains(QString("--max-num-seqs %1").arg(f0.maxBatch)));
  v.launchEngineBox()->setCurrentIndex(v.launchEngineBox()->findData("trtllm"));
  CHECK(v.launchText().startsWith("trtllm-serve "));
  CHECK(v.launchText().contains(QString("--max_batch_size %1").arg(f0.maxBatch)));
}

TEST_CASE("the Deploy view says why it did not search or found nothing", "[ui][deploy]") {
  qf::testing::app();
  qf::ui::DeployView v;
  auto model = qf::Catalog::bundled().resolveModel("llama-3-8b");
  REQUIRE(model.ok());
  v.setModel(*model);
  for (int i = 0; i < v.gpuList()->count(); ++i) v.gpuList()->item(i)->setCheckState(Qt::Unchecked);
  CHECK_FALSE(v.search());
  CHECK(v.status().contains("no GPU is ticked"));
  for (int i = 0; i < v.gpuList()->count(); ++i) {
    auto* item = v.gpuList()->item(i);
    if (item->flags() & Qt::ItemIsUserCheckable) item->setCheckState(Qt::Checked);
  }
  v.sloTpotBox()->setValue(0.1);  // no GPU decodes a token of an 8B model in 0.1 ms
  CHECK_FALSE(v.search());
  CHECK(v.status().contains("none feasible"));
  CHECK(v.table()->rowCount() == 0);
}

TEST_CASE("the Deploy view searches data-centre GPUs and applies the session's gates",
          "[ui][deploy]") {
  qf::testing::app();
  qf::ui::DeployView v;
  v.setModel(*qf::Catalog::bundled().resolveModel("llama-3-8b"));
  // Consumer and workstation cards are off and greyed while the filter is on (the catalog's
  // "segment"); turning it off lets the user tick them.
  auto itemOf = [&](const char* id) -> QListWidgetItem* {
    for (int i = 0; i < v.gpuList()->count(); ++i)
      if (v.gpuList()->item(i)->data(Qt::UserRole).toString() == id) return v.gpuList()->item(i);
    return nullptr;
  };
  REQUIRE(v.dataCentreOnlyBox()->isChecked());
  for (const char* id : {"rtx-4090", "rtx-5090", "a6000"}) {
    INFO(id);
    REQUIRE(itemOf(id) != nullptr);
    CHECK(itemOf(id)->checkState() == Qt::Unchecked);
    CHECK_FALSE(itemOf(id)->flags().testFlag(Qt::ItemIsEnabled));
  }
  CHECK(itemOf("h100-sxm")->checkState() == Qt::Checked);
  REQUIRE(v.search());
  for (const auto& c : v.result()->frontier) {
    CHECK(qf::Catalog::bundled().gpuSegment(c.gpu) == "data-centre");
  }
  v.dataCentreOnlyBox()->setChecked(false);
  CHECK(itemOf("rtx-4090")->flags().testFlag(Qt::ItemIsEnabled));
  v.dataCentreOnlyBox()->setChecked(true);

  // The session's gates: only the schemes a passing candidate has are searched.
  v.setGateSource([](const std::string& model) -> qf::Result<qf::DeployGate> {
    CHECK(model == "llama-3-8b");
    qf::DeployGate g;
    g.passes = [](const qf::DeployConfig& c) { return c.linear == "w8a8-fp8"; };
    g.passingSchemes = {"w8a8-fp8"};
    return g;
  });
  REQUIRE(v.search());
  REQUIRE_FALSE(v.result()->frontier.empty());
  for (const auto& c : v.result()->frontier) CHECK(c.linear == "w8a8-fp8");
  CHECK(v.status().contains("Gated by the session: schemes passing w8a8-fp8"));
  // Without gates to apply, the search runs ungated and says why.
  v.setGateSource([](const std::string&) -> qf::Result<qf::DeployGate> {
    return qf::Error{"", "", "gates", "no quality gates are set (Pareto tab)"};
  });
  REQUIRE(v.search());
  CHECK(v.status().contains("Gates not applied: no quality gates are set"));
  bool other = false;
  for (const auto& c : v.result()->frontier) other = other || c.linear != "w8a8-fp8";
  CHECK(other);
  // Unticked: not asked at all.
  v.applyGatesBox()->setChecked(false);
  REQUIRE(v.search());
  CHECK_FALSE(v.status().contains("Gates"));
}

TEST_CASE("the Deploy view searches with MTP speculation as qfront search --spec-k does",
          "[ui][deploy][speculation]") {
  qf::testing::app();
  qf::ui::DeployView v;
  auto model = qf::Catalog::bundled().resolveModel("llama-3.1-8b");
  REQUIRE(model.ok());
  v.setModel(*model);
  v.loadBox()->setCurrentIndex(v.loadBox()->findData("sync"));
  REQUIRE(v.search());
  const double plain = v.result()->best->tpotMs;
  CHECK_FALSE(v.specAcceptanceBox()->isEnabled());  // off: no acceptance to set
  v.specTokensBox()->setValue(3);
  CHECK(v.specAcceptanceBox()->isEnabled());
  v.specAcceptanceBox()->setValue(0.7);
  REQUIRE(v.search());
  const double speculated = v.result()->best->tpotMs;
  // k 3 at acceptance 0.7: 1 + 0.7 + 0.49 + 0.343 = 2.53 tokens a step for one step of four
  // tokens' verification: time per output token falls, by less than 2.53x.
  const qf::Speculation sp{3, 0.7};
  CHECK(qf::expectedTokensPerStep(sp) == Approx(2.533));
  CHECK(speculated < plain);
  CHECK(speculated > plain / qf::expectedTokensPerStep(sp));
  CHECK(v.status().contains("Speculation: MTP, k 3, acceptance 0.70, 2.53 tokens a step"));
  // The launch line says how to turn it on, with the verify tokens the budget must hold.
  CHECK(v.launchText().contains("enable the engine's MTP speculative decoding"));
  CHECK(v.launchText().contains("batch cap x 4"));
  // Off again: the plain search's answer, with its intervals.
  v.specTokensBox()->setValue(0);
  REQUIRE(v.search());
  CHECK(v.result()->best->tpotMs == Approx(plain));
  CHECK_FALSE(v.status().contains("Speculation"));
  CHECK_FALSE(v.launchText().contains("speculative"));
}

TEST_CASE("the Deploy view searches off the GUI thread and shows only the newest search",
          "[ui][deploy][background]") {
  qf::testing::app();
  qf::ui::DeployView v;
  v.setModel(*qf::Catalog::bundled().resolveModel("llama-3-8b"));
  QSignalSpy spy(&v, &qf::ui::DeployView::searched);
  QPushButton* run = nullptr;
  for (auto* b : v.findChildren<QPushButton*>()) {
    if (b->text() == "Search") run = b;
  }
  REQUIRE(run != nullptr);
  // Search returns at once: the result waits for the event loop, where the widgets live.
  v.maxGpusBox()->setValue(8);
  run->click();
  CHECK(v.searching());
  CHECK_FALSE(v.result().has_value());
  CHECK(v.status().isEmpty());
  // A newer search before the first is shown: the first's result is dropped when it ends.
  v.maxGpusBox()->setValue(1);
  run->click();
  REQUIRE(QTest::qWaitFor([&] { return !v.searching(); }, 30000));
  QTest::qWait(500);  // the first search ends later (a larger space): it must change nothing
  REQUIRE(spy.count() == 1);
  CHECK(spy.front().front().toBool());
  REQUIRE(v.result().has_value());
  REQUIRE_FALSE(v.result()->frontier.empty());
  for (const auto& c : v.result()->frontier) CHECK(c.gpuCount == 1);
  // The table, the plot and the launch line follow the shown result.
  CHECK(v.table()->rowCount() == static_cast<int>(v.result()->frontier.size()));
  CHECK_FALSE(v.launchText().isEmpty());
  // A refused search goes through the same lane and supersedes a search still running.
  v.maxGpusBox()->setValue(8);
  run->click();
  for (int i = 0; i < v.gpuList()->count(); ++i) v.gpuList()->item(i)->setCheckState(Qt::Unchecked);
  run->click();
  REQUIRE(QTest::qWaitFor([&] { return !v.searching(); }, 30000));
  QTest::qWait(500);
  CHECK(spy.count() == 2);
  CHECK_FALSE(spy.back().front().toBool());
  CHECK(v.status().contains("no GPU is ticked"));
  CHECK_FALSE(v.result().has_value());
  CHECK(v.table()->rowCount() == 0);
}

TEST_CASE("the Deploy view searches split prefill and decode pools and draws them hollow",
          "[ui][deploy][disaggregated]") {
  qf::testing::app();
  qf::ui::DeployView v;
  v.setModel(*qf::Catalog::bundled().resolveModel("llama-3.1-70b"));
  tickOnly(v, "h100-sxm", "w8a8-fp8");
  // Long prompts, short outputs (qfront search --disaggregated's case in the CLI tests).
  v.inputLenBox()->setValue(4096);
  v.outputLenBox()->setValue(256);
  v.loadBox()->setCurrentIndex(v.loadBox()->findData("rate"));
  v.rateBox()->setValue(2);
  v.sloTpotBox()->setValue(60);
  v.maxGpusBox()->setValue(8);
  REQUIRE_FALSE(v.disaggregatedBox()->isChecked());  // off by default, as in the CLI
  REQUIRE(v.search());
  const double aggregatedBest = v.result()->best->usdPerMillionOutputTokens;
  for (const auto& c : v.result()->frontier) CHECK_FALSE(c.disaggregated());
  v.disaggregatedBox()->setChecked(true);
  REQUIRE(v.search());
  const auto& r = *v.result();
  CHECK(r.best->usdPerMillionOutputTokens <= aggregatedBest * (1 + 1e-12));
  int split = 0;
  for (int row = 0; row < static_cast<int>(r.frontier.size()); ++row) {
    const auto& c = r.frontier[static_cast<std::size_t>(row)];
    const QString cell = v.table()->item(row, 2)->text();
    if (!c.disaggregated()) {
      CHECK_FALSE(cell.startsWith("decode"));
      continue;
    }
    ++split;
    CHECK(cell == QString("decode %1 × %2, prefill %3 × %4")
                      .arg(c.tp)
                      .arg(c.replicas)
                      .arg(c.prefillTp)
                      .arg(c.prefillReplicas));
    // Its figures carry their interval (the split pools' own), in the table and the hover.
    CHECK(v.table()->item(row, 7)->text().contains("–"));
    const QString hover = v.hoverText(row);
    CHECK(hover.contains("decode pool TP"));
    CHECK(hover.contains("prefill pool TP"));
    CHECK(hover.contains("KV moved to the decode pool in"));
    CHECK(hover.contains("80% intervals"));
  }
  REQUIRE(split > 0);
  // Split deployments are their own legend entries, drawn hollow; aggregated ones filled.
  int hollow = 0, hollowPoints = 0;
  for (int g = 0; g < v.plot()->graphCount(); ++g) {
    const auto* graph = v.plot()->graph(g);
    if (graph->name() == "frontier" || graph->name() == "cheapest feasible") continue;
    const bool isSplit = graph->name().endsWith(", split pools");
    CHECK((graph->scatterStyle().brush().color() == QColor(Qt::white)) == isSplit);
    // A disc ignores its brush (always filled): a hollow point is never one.
    if (isSplit) CHECK(graph->scatterStyle().shape() != QCPScatterStyle::ssDisc);
    if (isSplit) {
      ++hollow;
      hollowPoints += graph->dataCount();
    }
  }
  CHECK(hollow > 0);
  CHECK(hollowPoints == split);
}

TEST_CASE("the Deploy view speculates with a draft model as qfront search --spec-draft does",
          "[ui][deploy][speculation]") {
  qf::testing::app();
  qf::ui::DeployView v;
  v.setModel(*qf::Catalog::bundled().resolveModel("llama-3.1-70b"));
  v.loadBox()->setCurrentIndex(v.loadBox()->findData("sync"));
  CHECK_FALSE(v.specDraftBox()->isEnabled());  // no speculation: no draft to choose
  v.specTokensBox()->setValue(3);
  CHECK(v.specDraftBox()->isEnabled());
  v.specAcceptanceBox()->setValue(0.8);
  REQUIRE(v.search());
  const double mtp = v.result()->best->tpotMs;
  v.specDraftBox()->setCurrentIndex(v.specDraftBox()->findData("llama-3.1-8b"));
  REQUIRE(v.search());
  CHECK(v.status().contains("Speculation: draft model llama-3.1-8b, k 3"));
  // Three 8B draft steps cost more than three passes of one MTP layer.
  CHECK(v.result()->best->tpotMs > mtp);
  CHECK(v.launchText().contains("num_speculative_tokens"));
  // The candidate says which draft priced it.
  v.selectRow(0);
  const auto c = v.selectedCandidate();
  REQUIRE(c.has_value());
  CHECK(QString::fromStdString(c->id).endsWith("-draft-llama-3.1-8b-k3"));
  // A draft as large as the target is refused, with the reason.
  v.specDraftBox()->setCurrentIndex(v.specDraftBox()->findData("llama-3.1-405b"));
  CHECK_FALSE(v.search());
  CHECK(v.status().contains("a draft must be smaller than its target"));
}

TEST_CASE("the Deploy tab tries two-batch overlap when asked and says which deployments run it",
          "[ui][deploy][moe]") {
  qf::testing::app();
  qf::ui::DeployView v;
  v.setModel(*qf::Catalog::bundled().resolveModel("deepseek-v3"));
  tickOnly(v, "h100-sxm", "w8a8-fp8");
  v.inputLenBox()->setValue(2000);
  v.outputLenBox()->setValue(1000);
  v.sloTpotBox()->setValue(100);
  v.maxGpusBox()->setValue(16);
  REQUIRE_FALSE(v.twoBatchOverlapBox()->isChecked());  // off by default, as in the CLI
  REQUIRE(v.search());
  for (const auto& c : v.result()->frontier) CHECK_FALSE(c.twoBatchOverlap);
  const double without = v.result()->best->usdPerMillionOutputTokens;
  v.twoBatchOverlapBox()->setChecked(true);
  REQUIRE(v.search());
  const auto& r = *v.result();
  // Across two nodes the all-to-all crosses the network: hidden, the largest batches cost less.
  CHECK(r.best->usdPerMillionOutputTokens < without);
  int overlapped = 0;
  for (int row = 0; row < static_cast<int>(r.frontier.size()); ++row) {
    const auto& c = r.frontier[static_cast<std::size_t>(row)];
    if (!c.twoBatchOverlap) continue;
    ++overlapped;
    CHECK(c.dpAttention);
    CHECK(c.ep == c.tp);
    CHECK(v.table()->item(row, 2)->text().contains("two-batch overlap"));
    CHECK(v.hoverText(row).contains("two-batch overlap"));
  }
  CHECK(overlapped > 0);
  // A dense model's search ignores the box (the CLI refuses the option for one).
  v.setModel(*qf::Catalog::bundled().resolveModel("llama-3.1-8b"));
  REQUIRE(v.twoBatchOverlapBox()->isChecked());
  CHECK(v.search());
  CHECK_FALSE(v.result()->frontier.empty());
}
