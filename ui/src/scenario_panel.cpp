#include <nlohmann/json.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <quantfront/core/model/catalog.hpp>

namespace qf::ui {

namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
constexpr const char* kBrowse = "__browse__";

void selectData(QComboBox* box, const QString& value) {
  int idx = box->findData(value);
  if (idx < 0 && !value.isEmpty()) {
    // A user file: keep it selectable, labelled by its name.
    box->insertItem(box->count() - 1, value.section('/', -1), value);
    idx = box->findData(value);
  }
  if (idx >= 0) box->setCurrentIndex(idx);
}
}  // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
  const Catalog& cat = Catalog::bundled();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  auto* hw = new QGroupBox("Model and hardware", this);
  auto* hwForm = new QFormLayout(hw);
  m_model = new QComboBox(hw);
  m_model->setObjectName("model");
  for (const auto& m : cat.models()) m_model->addItem(qs(m.id), qs(m.id));
  addFileEntry(m_model, "Open a Hugging Face config.json", "JSON (*.json)");
  m_model->setToolTip(
      "The model: a catalog entry, or \"Open file…\" for any Hugging Face "
      "config.json (dense, MoE, MLA; a quantization_config is reported). "
      "Dropping a config.json on the window does the same.");
  hwForm->addRow("Model", m_model);
  m_gpu = new QComboBox(hw);
  m_gpu->setObjectName("gpu");
  for (const auto& g : cat.gpus()) m_gpu->addItem(qs(g.name), qs(g.id));
  addFileEntry(m_gpu, "Open a GPU JSON file", "JSON (*.json)");
  m_gpu->setToolTip(
      "The GPU: a catalog datasheet, or \"Open file…\" for a GPU JSON file "
      "(peaks, bandwidth, price; a calibration block from qfront calibrate)");
  hwForm->addRow("GPU", m_gpu);
  m_tp = new QSpinBox(hw);
  m_tp->setObjectName("tp");
  m_tp->setRange(1, 64);
  m_tp->setToolTip("Tensor-parallel degree: GPUs per replica");
  hwForm->addRow("GPUs (TP)", m_tp);
  layout->addWidget(hw);

  auto* sch = new QGroupBox("Schemes", this);
  auto* schLayout = new QVBoxLayout(sch);
  m_schemes = new QListWidget(sch);
  m_schemes->setObjectName("schemes");
  for (const auto& s : cat.schemes()) {
    auto* item = new QListWidgetItem(QString("%1  (%2 b/w, %3 path)")
                                         .arg(qs(s.id))
                                         .arg(s.bitsPerWeight(), 0, 'f', 3)
                                         .arg(tensorPathName(s.path)),
                                     m_schemes);
    item->setData(Qt::UserRole, qs(s.id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
    item->setToolTip(qs(s.name + "\nc = " + std::to_string(s.c) + ": " + s.cNote));
  }
  m_schemes->setMaximumHeight(170);
  m_schemes->setToolTip(
      "Uniform schemes to compare: one curve each. A scheme whose tensor "
      "path the GPU lacks runs on the bf16 fallback and says so.");
  schLayout->addWidget(m_schemes);
  auto* mixedForm = new QFormLayout();
  auto mkKind = [&](const char* name) {
    auto* box = new QComboBox(sch);
    box->setObjectName(name);
    box->addItem("(inherit)", QString());
    for (const auto& s : cat.schemes()) box->addItem(qs(s.id), qs(s.id));
    return box;
  };
  m_mixedLinear = mkKind("mixedLinear");
  m_mixedLinear->setItemText(0, "(no mixed candidate)");
  m_mixedMoe = mkKind("mixedMoe");
  m_mixedLmHead = mkKind("mixedLmHead");
  m_mixedLinear->setToolTip(
      "A mixed candidate: this scheme on the linear layers (none: no "
      "mixed candidate)");
  m_mixedMoe->setToolTip(
      "The mixed candidate's scheme on the MoE experts (inherit: the "
      "linear layers' scheme)");
  m_mixedLmHead->setToolTip(
      "The mixed candidate's scheme on the LM head (inherit: the linear "
      "layers' scheme)");
  mixedForm->addRow("Mixed: linear", m_mixedLinear);
  mixedForm->addRow("Mixed: MoE experts", m_mixedMoe);
  mixedForm->addRow("Mixed: LM head", m_mixedLmHead);
  schLayout->addLayout(mixedForm);
  layout->addWidget(sch);

  auto* srv = new QGroupBox("Serving", this);
  auto* srvForm = new QFormLayout(srv);
  m_batchMin = new QSpinBox(srv);
  m_batchMin->setObjectName("batchMin");
  m_batchMin->setRange(1, 1 << 20);
  m_batchMax = new QSpinBox(srv);
  m_batchMax->setObjectName("batchMax");
  m_batchMax->setRange(1, 1 << 20);
  m_batchMin->setToolTip("Smallest batch plotted: concurrent decoding sequences");
  m_batchMax->setToolTip("Largest batch plotted (log axis)");
  srvForm->addRow("Batch from", m_batchMin);
  srvForm->addRow("Batch to", m_batchMax);
  m_maxModelLen = new QSpinBox(srv);
  m_maxModelLen->setObjectName("maxModelLen");
  m_maxModelLen->setRange(1, 10'000'000);
  m_maxModelLen->setSingleStep(1024);
  m_maxModelLen->setToolTip(
      "Tokens of KV cache reserved per sequence (vLLM --max-model-len): "
      "sets how many sequences fit");
  srvForm->addRow("Max model length", m_maxModelLen);
  m_kvDtype = new QComboBox(srv);
  m_kvDtype->setObjectName("kvDtype");
  m_kvDtype->addItem("bf16", "bf16");
  m_kvDtype->addItem("fp8", "fp8");
  m_kvDtype->setToolTip(
      "KV cache element type (vLLM --kv-cache-dtype): fp8 halves the KV "
      "bytes per sequence");
  srvForm->addRow("KV cache dtype", m_kvDtype);
  m_memUtil = new QDoubleSpinBox(srv);
  m_memUtil->setObjectName("memUtil");
  m_memUtil->setRange(0.05, 1.0);
  m_memUtil->setSingleStep(0.01);
  m_memUtil->setDecimals(2);
  m_memUtil->setToolTip(
      "Fraction of GPU memory the engine may use (vLLM "
      "--gpu-memory-utilization): budget = memory × u − reserve");
  srvForm->addRow("Memory utilisation", m_memUtil);
  m_reserve = new QDoubleSpinBox(srv);
  m_reserve->setObjectName("reserveGib");
  m_reserve->setRange(0, 1024);
  m_reserve->setSuffix(" GiB");
  m_reserve->setDecimals(1);
  m_reserve->setToolTip(
      "Memory kept back from the budget for activations, CUDA graphs and "
      "non-torch allocations");
  srvForm->addRow("Reserve", m_reserve);
  m_context = new QSpinBox(srv);
  m_context->setObjectName("context");
  m_context->setRange(0, 10'000'000);
  m_context->setSingleStep(1024);
  m_context->setSpecialValueText("off");
  m_context->setToolTip("Adds the KV-cache read and attention math at this context length");
  srvForm->addRow("Context tokens", m_context);
  layout->addWidget(srv);

  m_feedback = new QLabel(this);
  m_feedback->setObjectName("feedback");
  m_feedback->setWordWrap(true);
  m_feedback->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_feedback->setToolTip("What the model is, or why the scenario cannot be evaluated");
  layout->addWidget(m_feedback);
  layout->addStretch(1);

  setSpec(ScenarioSpec{});
  // Coalesced: a spin box held down ticks many times a second; the window recomputes once
  // the values settle (one scenarioChanged per burst, not one per tick).
  m_coalesce.setSingleShot(true);
  m_coalesce.setInterval(kCoalesceMs);
  connect(this, &ScenarioPanel::scenarioChanged, this, [this] { ++m_changes; });
  connect(&m_coalesce, &QTimer::timeout, this, [this] { emit scenarioChanged(); });
  auto changed = [this] {
    if (!m_updating) m_coalesce.start();
  };
  for (QComboBox* box : {m_kvDtype, m_mixedLinear, m_mixedMoe, m_mixedLmHead}) {
    connect(box, &QComboBox::currentIndexChanged, this, changed);
  }
  for (QSpinBox* box : {m_tp, m_batchMin, m_batchMax, m_maxModelLen, m_context}) {
    connect(box, &QSpinBox::valueChanged, this, changed);
  }
  for (QDoubleSpinBox* box : {m_memUtil, m_reserve}) {
    connect(box, &QDoubleSpinBox::valueChanged, this, changed);
  }
  connect(m_schemes, &QListWidget::itemChanged, this, changed);
}

void ScenarioPanel::addFileEntry(QComboBox* box, const QString& title, const QString& filter) {
  box->addItem("Open file…", kBrowse);
  // The entry chosen before "Open file…": a cancelled dialog goes back to it.
  box->setProperty("qf_previous", 0);
  connect(box, &QComboBox::currentIndexChanged, this, [box](int index) {
    if (index >= 0 && box->itemData(index).toString() != kBrowse) {
      box->setProperty("qf_previous", index);
    }
  });
  connect(box, &QComboBox::activated, this, [this, box, title, filter](int index) {
    if (box->itemData(index).toString() != kBrowse) {
      if (!m_updating) emit scenarioChanged();
      return;
    }
    const QString path = QFileDialog::getOpenFileName(this, title, QString(), filter);
    m_updating = true;
    if (path.isEmpty()) {
      box->setCurrentIndex(box->property("qf_previous").toInt());
      m_updating = false;
      return;  // cancelled: nothing changed
    }
    selectData(box, path);
    m_updating = false;
    emit scenarioChanged();
  });
}

void ScenarioPanel::setGpu(const GpuSpec& gpu) {
  const Catalog& cat = Catalog::bundled();
  const QSignalBlocker block(m_schemes);
  for (int i = 0; i < m_schemes->count(); ++i) {
    QListWidgetItem* item = m_schemes->item(i);
    const std::string id = item->data(Qt::UserRole).toString().toStdString();
    for (const auto& s : cat.schemes()) {
      if (s.id != id) continue;
      const bool fallback = !gpu.hasPath(s.path);
      item->setText(QString("%1  (%2 b/w, %3)")
                        .arg(qs(s.id))
                        .arg(s.bitsPerWeight(), 0, 'f', 3)
                        .arg(fallback ? QString("fallback: no %1 path").arg(tensorPathName(s.path))
                                      : QString("%1 path").arg(tensorPathName(s.path))));
      item->setForeground(fallback ? QColor(176, 0, 0) : palette().color(QPalette::Text));
      QString tip = qs(s.name + "\nc = " + std::to_string(s.c) + ": " + s.cNote);
      if (fallback) {
        tip += QString("\n%1 has no %2 tensor path: this scheme runs on the bf16 fallback")
                   .arg(qs(gpu.name), tensorPathName(s.path));
      }
      item->setToolTip(tip);
    }
  }
}

QString ScenarioPanel::schemeLabel(const QString& id) const {
  for (int i = 0; i < m_schemes->count(); ++i) {
    if (m_schemes->item(i)->data(Qt::UserRole).toString() == id) return m_schemes->item(i)->text();
  }
  return {};
}

void ScenarioPanel::flushPendingChange() {
  if (!m_coalesce.isActive()) return;
  m_coalesce.stop();
  emit scenarioChanged();
}

void ScenarioPanel::setSpec(const ScenarioSpec& spec) {
  m_updating = true;
  selectData(m_model, qs(spec.model));
  selectData(m_gpu, qs(spec.gpu));
  m_tp->setValue(spec.tp);
  for (int i = 0; i < m_schemes->count(); ++i) {
    QListWidgetItem* item = m_schemes->item(i);
    const std::string id = item->data(Qt::UserRole).toString().toStdString();
    const bool on = std::find(spec.schemes.begin(), spec.schemes.end(), id) != spec.schemes.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  selectData(m_mixedLinear, qs(spec.mixedLinear));
  selectData(m_mixedMoe, qs(spec.mixedMoe));
  selectData(m_mixedLmHead, qs(spec.mixedLmHead));
  m_batchMin->setValue(static_cast<int>(spec.batchMin));
  m_batchMax->setValue(static_cast<int>(spec.batchMax));
  m_maxModelLen->setValue(static_cast<int>(spec.maxModelLen));
  selectData(m_kvDtype, qs(spec.kvDtype));
  m_memUtil->setValue(spec.memUtil);
  m_reserve->setValue(spec.reserveGib);
  m_context->setValue(static_cast<int>(spec.contextTokens));
  m_updating = false;
}

ScenarioSpec ScenarioPanel::spec() const {
  ScenarioSpec s;
  s.model = m_model->currentData().toString().toStdString();
  s.gpu = m_gpu->currentData().toString().toStdString();
  s.tp = m_tp->value();
  s.schemes.clear();
  for (int i = 0; i < m_schemes->count(); ++i) {
    const QListWidgetItem* item = m_schemes->item(i);
    if (item->checkState() == Qt::Checked) {
      s.schemes.push_back(item->data(Qt::UserRole).toString().toStdString());
    }
  }
  s.mixedLinear = m_mixedLinear->currentData().toString().toStdString();
  s.mixedMoe = s.mixedLinear.empty() ? "" : m_mixedMoe->currentData().toString().toStdString();
  s.mixedLmHead =
      s.mixedLinear.empty() ? "" : m_mixedLmHead->currentData().toString().toStdString();
  s.batchMin = m_batchMin->value();
  s.batchMax = std::max(m_batchMin->value(), m_batchMax->value());
  s.maxModelLen = m_maxModelLen->value();
  s.kvDtype = m_kvDtype->currentData().toString().toStdString();
  s.memUtil = m_memUtil->value();
  s.reserveGib = m_reserve->value();
  s.contextTokens = m_context->value();
  return s;
}

void ScenarioPanel::setFeedback(const QString& text, bool isError) {
  m_feedback->setText(text);
  m_feedback->setStyleSheet(isError ? "color: #b00000;" : "color: #404040;");
}

void ScenarioPanel::setSchemeChecked(const QString& id, bool checked) {
  for (int i = 0; i < m_schemes->count(); ++i) {
    QListWidgetItem* item = m_schemes->item(i);
    if (item->data(Qt::UserRole).toString() == id) {
      item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
  }
  flushPendingChange();
}

}  // namespace qf::ui
