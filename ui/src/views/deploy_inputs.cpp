// The Deploy tab's inputs (deploy_view.hpp): the model, workload, load and SLO fields, the
// speculation row, and the GPU and scheme lists the search runs over.
#include <quantfront/ui/deploy_view.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/cost.hpp>

#include "text.hpp"

namespace qf::ui {

QWidget* DeployView::buildInputs() {
  auto* inputs = new QWidget(this);
  auto* form = new QFormLayout;
  m_useCase = new QComboBox(inputs);
  m_useCase->addItem("Custom lengths", QString());
  if (auto cases = bundledUseCases()) {
    for (const auto& u : *cases) {
      m_useCase->addItem(
          QString("%1 (%2 → %3 tokens)").arg(qs(u.name)).arg(u.prefillTokens).arg(u.decodeTokens),
          qs(u.id));
    }
  }
  m_useCase->setToolTip("A use case of the bundled presets sets the prompt and output lengths");
  m_inputLen = new QSpinBox(inputs);
  m_inputLen->setRange(1, 1'000'000);
  m_inputLen->setValue(1024);
  m_outputLen = new QSpinBox(inputs);
  m_outputLen->setRange(1, 1'000'000);
  m_outputLen->setValue(128);
  m_sloTtft = new QDoubleSpinBox(inputs);
  m_sloTtft->setRange(0, 1e7);
  m_sloTtft->setDecimals(0);
  m_sloTtft->setSpecialValueText("none");
  m_sloTtft->setSuffix(" ms");
  m_sloTpot = new QDoubleSpinBox(inputs);
  m_sloTpot->setRange(0, 1e6);
  m_sloTpot->setDecimals(1);
  m_sloTpot->setSpecialValueText("none");
  m_sloTpot->setSuffix(" ms");
  m_load = new QComboBox(inputs);
  m_load->addItem("Saturated (max throughput)", "max");
  m_load->addItem("Synchronous (one request at a time)", "sync");
  m_load->addItem("Request rate", "rate");
  m_rate = new QDoubleSpinBox(inputs);
  m_rate->setRange(0.01, 1e6);
  m_rate->setValue(10);
  m_rate->setSuffix(" req/s");
  m_rate->setEnabled(false);
  m_axis = new QComboBox(inputs);
  m_axis->addItem("TPOT", "tpot");
  m_axis->addItem("TTFT", "ttft");
  m_maxGpus = new QSpinBox(inputs);
  m_maxGpus->setRange(1, 128);
  m_maxGpus->setValue(8);
  m_perKind = new QCheckBox("a scheme per layer kind", inputs);
  QLayout* spec = buildSpeculation(inputs);
  m_disaggregated = new QCheckBox("also split prefill and decode pools", inputs);
  m_disaggregated->setObjectName("deployDisaggregated");
  m_disaggregated->setToolTip(
      "Also search disaggregated deployments: a prefill pool and a decode pool, each with its "
      "own GPU, schemes, TP and replicas, one KV dtype, the KV moved between them (as qfront "
      "search --disaggregated). Split deployments are drawn hollow.");
  m_twoBatchOverlap = new QCheckBox("MoE: also two-batch overlap", inputs);
  m_twoBatchOverlap->setObjectName("deployTwoBatchOverlap");
  m_twoBatchOverlap->setToolTip(
      "MoE models: also try each DP-attention layout with EP over every GPU of the replica "
      "with two-batch overlap, its all-to-all under a second micro-batch's work (SGLang "
      "--enable-two-batch-overlap, vLLM --enable-dbo; qfront search --two-batch-overlap)");
  auto* pools = new QVBoxLayout;
  pools->setSpacing(0);
  pools->addWidget(m_disaggregated);
  pools->addWidget(m_twoBatchOverlap);
  m_kvBf16 = new QCheckBox("bf16", inputs);
  m_kvFp8 = new QCheckBox("fp8", inputs);
  m_kvBf16->setChecked(true);
  m_kvFp8->setChecked(true);
  auto* kv = new QHBoxLayout;
  kv->addWidget(m_kvBf16);
  kv->addWidget(m_kvFp8);
  buildGpuList(inputs);
  m_applyGates = new QCheckBox("apply the session's quality gates", inputs);
  m_applyGates->setChecked(true);
  m_applyGates->setToolTip(
      "Search only schemes whose candidates of this model pass the Pareto tab's gates, as "
      "qfront search --gate does");
  buildSchemeList(inputs);
  form->addRow("Use case", m_useCase);
  form->addRow("Prompt tokens", m_inputLen);
  form->addRow("Output tokens", m_outputLen);
  form->addRow("SLO TTFT", m_sloTtft);
  form->addRow("SLO TPOT", m_sloTpot);
  form->addRow("Load", m_load);
  form->addRow("Rate", m_rate);
  form->addRow("Latency axis", m_axis);
  form->addRow("Most GPUs", m_maxGpus);
  form->addRow("Schemes", m_perKind);
  form->addRow("KV cache", kv);
  form->addRow("Speculation", spec);
  form->addRow("Pools", pools);
  auto* left = new QVBoxLayout(inputs);
  left->addLayout(form);
  left->addWidget(new QLabel("GPUs (priced ones)", inputs));
  left->addWidget(m_dataCentre);
  left->addWidget(m_gpus, 1);
  left->addWidget(new QLabel("Schemes", inputs));
  left->addWidget(m_schemes, 1);
  left->addWidget(m_applyGates);
  m_run = new QPushButton("Search", inputs);
  m_run->setToolTip(
      "Evaluate every GPU × count × TP/replica split × scheme × KV dtype × batch "
      "cap that fits, at the analytic steady state");
  left->addWidget(m_run);
  inputs->setMaximumWidth(360);
  return inputs;
}

QLayout* DeployView::buildSpeculation(QWidget* inputs) {
  // Speculation as qfront search prices it: k draft tokens a step from the model's MTP layer
  // or a draft model, at an acceptance rate.
  const Catalog& cat = Catalog::bundled();
  m_specK = new QSpinBox(inputs);
  m_specK->setObjectName("deploySpecK");
  m_specK->setRange(0, 15);
  m_specK->setSpecialValueText("off");
  m_specK->setSuffix(" draft tokens");
  m_specK->setToolTip(
      "Speculative decoding on every deployment: each step verifies B·(k + 1) tokens, so the "
      "decode GEMMs run at k + 1 times the batch (as qfront search --spec-k)");
  m_specAcceptance = new QDoubleSpinBox(inputs);
  m_specAcceptance->setObjectName("deploySpecAcceptance");
  m_specAcceptance->setRange(0.01, 1.0);
  m_specAcceptance->setSingleStep(0.05);
  m_specAcceptance->setDecimals(2);
  m_specAcceptance->setValue(0.7);
  m_specAcceptance->setPrefix("acceptance ");
  m_specAcceptance->setEnabled(false);
  m_specAcceptance->setToolTip("The chance each draft token is accepted (0, 1]");
  connect(m_specK, &QSpinBox::valueChanged, this,
          [this](int k) { m_specAcceptance->setEnabled(k > 0); });
  // The draft: the model's own MTP layer, or a catalog model run in bf16 beside it.
  m_specDraft = new QComboBox(inputs);
  m_specDraft->setObjectName("deploySpecDraft");
  m_specDraft->addItem("MTP layer", QString());
  for (const auto& m : cat.models()) m_specDraft->addItem(qs(m.id), qs(m.id));
  m_specDraft->setEnabled(false);
  m_specDraft->setToolTip(
      "What drafts: the model's own MTP layer, or a smaller catalog model run in bf16 on each "
      "replica's GPUs (as qfront search --spec-draft)");
  connect(m_specK, &QSpinBox::valueChanged, this,
          [this](int k) { m_specDraft->setEnabled(k > 0); });
  auto* row = new QHBoxLayout;
  row->addWidget(m_specK);
  row->addWidget(m_specAcceptance);
  row->addWidget(m_specDraft);
  return row;
}

void DeployView::buildGpuList(QWidget* inputs) {
  const Catalog& cat = Catalog::bundled();
  m_gpus = new QListWidget(inputs);
  m_gpus->setMinimumHeight(140);  // its rows stay readable when the column scrolls
  for (const auto& g : cat.gpus()) {
    auto* item = new QListWidgetItem(qs(g.name), m_gpus);
    item->setData(Qt::UserRole, qs(g.id));
    const bool priced = g.pricePerGpuHourUsd && *g.pricePerGpuHourUsd > 0;
    item->setFlags(priced ? (Qt::ItemIsUserCheckable | Qt::ItemIsEnabled) : Qt::NoItemFlags);
    const bool dataCentre = cat.gpuSegment(g.id) == "data-centre";
    item->setData(Qt::UserRole + 1, dataCentre);
    item->setCheckState(priced && dataCentre ? Qt::Checked : Qt::Unchecked);
    if (priced && !dataCentre) item->setFlags(Qt::ItemIsUserCheckable);  // until the filter is off
    item->setToolTip(priced ? QString("%1 USD per GPU-hour (%2)")
                                  .arg(fixedDecimals(*g.pricePerGpuHourUsd, 2))
                                  .arg(qs(g.priceSource))
                            : "no price per GPU-hour: not searched");
  }
  m_dataCentre = new QCheckBox("data-centre GPUs only", inputs);
  m_dataCentre->setChecked(true);
  m_dataCentre->setToolTip(
      "Workstation and consumer cards (RTX A6000, RTX 4090/5090) are left out of the search "
      "unless this is off");
  connect(m_dataCentre, &QCheckBox::toggled, this, [this](bool only) {
    for (int i = 0; i < m_gpus->count(); ++i) {
      auto* item = m_gpus->item(i);
      if (item->data(Qt::UserRole + 1).toBool() || item->flags() == Qt::NoItemFlags) continue;
      item->setFlags(only ? Qt::ItemIsUserCheckable : Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
      if (only) item->setCheckState(Qt::Unchecked);
    }
  });
}

void DeployView::buildSchemeList(QWidget* inputs) {
  const Catalog& cat = Catalog::bundled();
  m_schemes = new QListWidget(inputs);
  m_schemes->setMinimumHeight(120);
  const auto ticked = cat.schemesDefaultFor("deploy");  // the catalog's "default_for"
  for (const auto& s : cat.schemes()) {
    auto* item = new QListWidgetItem(qs(s.id), m_schemes);
    item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
    const bool common = std::find(ticked.begin(), ticked.end(), s.id) != ticked.end();
    item->setCheckState(common ? Qt::Checked : Qt::Unchecked);
  }
}

}  // namespace qf::ui
