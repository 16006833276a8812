#include <nlohmann/json.hpp>
#include <quantfront/ui/scenario_panel.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <quantfront/core/model/catalog.hpp>
#include <quantfront/core/model/speculation.hpp>

#include "text.hpp"

namespace qf::ui {

namespace {
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

const QString kEditedSuffix = " (edited)";

QString number(double v) {
  return significant(v, 15);
}
QString number(const std::optional<double>& v) {
  return v ? number(*v) : QString();
}

/// The dialog's label of a GPU file key ("tensor_tflops.fp8"), for its error line.
QString gpuFieldLabel(const std::string& key) {
  if (key == "name") return "Name";
  if (key == "memory_gib") return "Memory (GiB)";
  if (key == "hbm_bandwidth_tbs") return "HBM bandwidth (TB/s)";
  if (key == "vector_fp32_tflops") return "Vector FP32 (TFLOPS)";
  if (key == "nvlink_gbs") return "NVLink (GB/s)";
  if (key == "price_per_hour") return "Price (USD per GPU-hour)";
  const std::string tensor = "tensor_tflops.";
  if (key.rfind(tensor, 0) == 0) {
    return QString("Tensor %1 (TFLOPS)").arg(qs(key.substr(tensor.size())).toUpper());
  }
  if (key == "tensor_tflops") return "Tensor peaks";
  return qs(key);
}

/// The edit dialog: one line per GPU figure, prefilled; OK checks the figures through core
/// and stays open on an error.
class GpuEditDialog : public QDialog {
 public:
  static constexpr int kReset = 2;  ///< done() code of "Reset to catalog"

  GpuEditDialog(const GpuSpec& gpu, bool edited, QWidget* parent) : QDialog(parent), m_base(gpu) {
    setWindowTitle("Edit GPU");
    setObjectName("gpuEditDialog");
    const GpuFieldTexts t = gpuFieldTexts(gpu);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        "The figures of this scenario's GPU. The edited copy is saved in the session; the "
        "catalog and GPU files are left as they are.",
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout();
    auto line = [&](const char* key, const QString& text, const QString& tip) {
      auto* e = new QLineEdit(text, this);
      e->setObjectName(key);
      e->setToolTip(tip);
      form->addRow(gpuFieldLabel(key), e);
      m_edits.emplace_back(key, e);
      return e;
    };
    m_name = line("name", t.name, "Shown in plots, tables and reports");
    m_memory = line("memory_gib", t.memoryGib, "Memory per GPU, GiB (2^30 bytes)");
    m_bandwidth = line("hbm_bandwidth_tbs", t.hbmBandwidthTBps,
                       "Memory bandwidth, TB/s (10^12 bytes/s): sets the memory floor");
    for (TensorPath p : kAllTensorPaths) {
      const std::string key = std::string("tensor_tflops.") + tensorPathName(p);
      m_tensor[static_cast<std::size_t>(p)] =
          line(key.c_str(), t.tensorTflops[static_cast<std::size_t>(p)],
               QString("Dense %1 tensor-core peak, TFLOPS; empty: the GPU has no %1 path "
                       "(schemes on it run on the bf16 fallback)")
                   .arg(tensorPathName(p)));
    }
    m_vector = line("vector_fp32_tflops", t.vectorFp32Tflops,
                    "Non-tensor FP32 peak, TFLOPS (an FMA counts two): sets the dequant cost");
    m_nvlink = line("nvlink_gbs", t.nvlinkGBps,
                    "GPU-to-GPU bandwidth, GB/s (10^9 bytes/s), for the tensor-parallel "
                    "all-reduce; empty: none");
    m_price = line("price_per_hour", t.pricePerGpuHourUsd,
                   "USD per GPU-hour, for queries per USD and cost reduction; empty: no price");
    layout->addLayout(form);
    m_error = new QLabel(this);
    m_error->setObjectName("gpuEditError");
    m_error->setWordWrap(true);
    m_error->setStyleSheet("color: #b00000;");
    layout->addWidget(m_error);
    auto* buttons =
        new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, Qt::Horizontal, this);
    auto* reset = buttons->addButton("Reset to catalog", QDialogButtonBox::ResetRole);
    reset->setObjectName("resetGpu");
    reset->setEnabled(edited);
    reset->setToolTip("Drop the edited copy: the catalog entry or GPU file is used again");
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &GpuEditDialog::tryAccept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(reset, &QPushButton::clicked, this, [this] { done(kReset); });
  }

  [[nodiscard]] GpuFieldTexts texts() const {
    GpuFieldTexts t;
    t.name = m_name->text();
    t.memoryGib = m_memory->text();
    t.hbmBandwidthTBps = m_bandwidth->text();
    for (std::size_t i = 0; i < m_tensor.size(); ++i) t.tensorTflops[i] = m_tensor[i]->text();
    t.vectorFp32Tflops = m_vector->text();
    t.nvlinkGBps = m_nvlink->text();
    t.pricePerGpuHourUsd = m_price->text();
    return t;
  }

 private:
  void tryAccept() {
    auto gpu = editedGpu(m_base, texts());
    if (gpu) {
      accept();
      return;
    }
    const Error& e = gpu.error();
    m_error->setText(QString("%1: %2").arg(gpuFieldLabel(e.field), qs(e.message)));
    for (const auto& [key, edit] : m_edits) {
      if (key == e.field) edit->setFocus();
    }
  }

  GpuSpec m_base;
  std::vector<std::pair<std::string, QLineEdit*>> m_edits;
  QLineEdit *m_name = nullptr, *m_memory = nullptr, *m_bandwidth = nullptr, *m_vector = nullptr,
            *m_nvlink = nullptr, *m_price = nullptr;
  std::array<QLineEdit*, kAllTensorPaths.size()> m_tensor{};
  QLabel* m_error = nullptr;
};

GpuEditChoice runGpuDialog(const GpuSpec& gpu, bool edited, QWidget* parent) {
  GpuEditDialog dialog(gpu, edited, parent);
  GpuEditChoice choice;
  const int result = dialog.exec();
  if (result == QDialog::Accepted) {
    choice.action = GpuEditChoice::Action::Apply;
    choice.texts = dialog.texts();
  } else if (result == GpuEditDialog::kReset) {
    choice.action = GpuEditChoice::Action::Reset;
  }
  return choice;
}
}  // namespace

GpuFieldTexts gpuFieldTexts(const GpuSpec& gpu) {
  GpuFieldTexts t;
  t.name = qs(gpu.name);
  t.memoryGib = number(gpu.memoryGib);
  t.hbmBandwidthTBps = number(gpu.hbmBandwidthTBps);
  for (std::size_t i = 0; i < t.tensorTflops.size(); ++i) {
    t.tensorTflops[i] = number(gpu.tensorTflops[i]);
  }
  t.vectorFp32Tflops = number(gpu.vectorFp32Tflops);
  t.nvlinkGBps = number(gpu.nvlinkGBps);
  t.pricePerGpuHourUsd = number(gpu.pricePerGpuHourUsd);
  return t;
}

Result<GpuSpec> editedGpu(const GpuSpec& base, const GpuFieldTexts& texts) {
  // A figure as typed: empty is absent, anything else must read as a number; the ranges are
  // the GPU file reader's (checkGpu below).
  auto figure = [](const QString& text, const std::string& key,
                   bool required) -> Result<std::optional<double>> {
    const QString v = text.trimmed();
    if (v.isEmpty()) {
      if (required) return Error{"", "", key, "required number is missing"};
      return std::optional<double>{};
    }
    bool ok = false;
    double x = QLocale::c().toDouble(v, &ok);
    if (!ok) x = QLocale().toDouble(v, &ok);
    if (!ok) return Error{"", "", key, "expected a number, found '" + v.toStdString() + "'"};
    return std::optional<double>{x};
  };
  GpuSpec g = base;
  g.name = texts.name.trimmed().toStdString();
  if (g.name.empty()) return Error{"", "", "name", "required text is missing"};
  const std::pair<const QString*, std::pair<const char*, double*>> required[] = {
      {&texts.memoryGib, {"memory_gib", &g.memoryGib}},
      {&texts.hbmBandwidthTBps, {"hbm_bandwidth_tbs", &g.hbmBandwidthTBps}},
      {&texts.vectorFp32Tflops, {"vector_fp32_tflops", &g.vectorFp32Tflops}}};
  for (const auto& [text, field] : required) {
    auto v = figure(*text, field.first, true);
    if (!v) return v.error();
    *field.second = **v;
  }
  for (TensorPath p : kAllTensorPaths) {
    const auto i = static_cast<std::size_t>(p);
    auto v =
        figure(texts.tensorTflops[i], std::string("tensor_tflops.") + tensorPathName(p), false);
    if (!v) return v.error();
    g.tensorTflops[i] = *v;
  }
  auto nvlink = figure(texts.nvlinkGBps, "nvlink_gbs", false);
  if (!nvlink) return nvlink.error();
  g.nvlinkGBps = *nvlink;
  auto price = figure(texts.pricePerGpuHourUsd, "price_per_hour", false);
  if (!price) return price.error();
  if (*price != base.pricePerGpuHourUsd) g.priceSource = *price ? "entered by hand" : "";
  g.pricePerGpuHourUsd = *price;
  if (auto e = checkGpu(g)) {
    e->position.clear();  // a dialog's field, not a place in a file
    return *e;
  }
  return g;
}

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent) {
  const Catalog& cat = Catalog::bundled();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(buildHardwareGroup(cat));
  layout->addWidget(buildSchemesGroup(cat));
  layout->addWidget(buildServingGroup());

  m_feedback = new QLabel(this);
  m_feedback->setObjectName("feedback");
  m_feedback->setWordWrap(true);
  m_feedback->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_feedback->setToolTip("What the model is, or why the scenario cannot be evaluated");
  layout->addWidget(m_feedback);
  layout->addStretch(1);

  setSpec(ScenarioSpec{});
  connectChanges();
}

QGroupBox* ScenarioPanel::buildHardwareGroup(const Catalog& cat) {
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
      "(peaks, bandwidth, price; a calibration block from qfront calibrate). "
      "\"(edited)\": the scenario uses an edited copy of its figures");
  m_editGpu = new QPushButton("Edit GPU…", hw);
  m_editGpu->setObjectName("editGpu");
  m_editGpu->setToolTip(
      "Edit this GPU's figures (memory, bandwidth, tensor peaks, NVLink, price) for this "
      "scenario; the edited copy is saved in the session");
  auto* gpuRow = new QHBoxLayout();
  gpuRow->addWidget(m_gpu, 1);
  gpuRow->addWidget(m_editGpu);
  hwForm->addRow("GPU", gpuRow);
  m_tp = new QSpinBox(hw);
  m_tp->setObjectName("tp");
  m_tp->setRange(1, 64);
  m_tp->setToolTip("Tensor-parallel degree: GPUs per replica");
  hwForm->addRow("GPUs (TP)", m_tp);
  m_datasheet = new QCheckBox("Ideal roofline (datasheet)", hw);
  m_datasheet->setObjectName("datasheet");
  m_datasheet->setToolTip(
      "Unchecked: the GPU file's calibration, else the bundled constants fitted to published "
      "end-to-end figures (per-step overhead, achieved bandwidth and compute). Checked: the "
      "datasheet's ideal roofline. Plot titles and exports say which is shown.");
  hwForm->addRow("Model constants", m_datasheet);
  return hw;
}

QGroupBox* ScenarioPanel::buildSchemesGroup(const Catalog& cat) {
  auto* sch = new QGroupBox("Schemes", this);
  auto* schLayout = new QVBoxLayout(sch);
  m_schemes = new QListWidget(sch);
  m_schemes->setObjectName("schemes");
  for (const auto& s : cat.schemes()) {
    auto* item = new QListWidgetItem(QString("%1  (%2 b/w, %3 path)")
                                         .arg(qs(s.id))
                                         .arg(fixedDecimals(s.bitsPerWeight(), 3))
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
  return sch;
}

QGroupBox* ScenarioPanel::buildServingGroup() {
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
  m_batchAt = new QSpinBox(srv);
  m_batchAt->setObjectName("batchAt");
  m_batchAt->setRange(0, 1 << 20);
  m_batchAt->setSpecialValueText("off");
  m_batchAt->setToolTip(
      "The batch you run at: marked \"B = N\" on the step-time and throughput plots; the "
      "Schemes table adds each scheme's step time, tokens/s and whether weights plus the KV "
      "of B sequences fit there");
  srvForm->addRow("My batch", m_batchAt);
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
  m_inputLen = new QSpinBox(srv);
  m_inputLen->setObjectName("inputLen");
  m_inputLen->setRange(0, 10'000'000);
  m_inputLen->setSingleStep(128);
  m_inputLen->setSpecialValueText("off");
  m_inputLen->setToolTip(
      "Prompt tokens of a static batch (as vLLM bench latency runs it): with output tokens, the "
      "Schemes table adds TTFT, TPOT and end-to-end latency at batch 1");
  srvForm->addRow("Prompt tokens", m_inputLen);
  m_outputLen = new QSpinBox(srv);
  m_outputLen->setObjectName("outputLen");
  m_outputLen->setRange(0, 10'000'000);
  m_outputLen->setSingleStep(64);
  m_outputLen->setSpecialValueText("off");
  m_outputLen->setToolTip("Output tokens of the static batch (0: no end-to-end figures)");
  srvForm->addRow("Output tokens", m_outputLen);
  m_specK = new QSpinBox(srv);
  m_specK->setObjectName("specDraftTokens");
  m_specK->setRange(0, kMaxDraftTokens);
  m_specK->setSpecialValueText("off");
  m_specK->setToolTip(
      "Speculative decoding: draft tokens per step. The step-time plot adds each scheme's time "
      "per accepted token (dash-dotted): the target verifies B × (k + 1) tokens a step, so the "
      "crossovers move k + 1 times lower in batch");
  srvForm->addRow("Speculation: draft tokens", m_specK);
  m_specAcceptance = new QDoubleSpinBox(srv);
  m_specAcceptance->setObjectName("specAcceptance");
  m_specAcceptance->setRange(0.001, 1.0);
  m_specAcceptance->setSingleStep(0.05);
  m_specAcceptance->setDecimals(3);
  m_specAcceptance->setToolTip(
      "Probability a draft token is accepted: a step yields (1 − α^(k+1)) / (1 − α) tokens");
  srvForm->addRow("Acceptance", m_specAcceptance);
  m_specDraft = new QComboBox(srv);
  m_specDraft->setObjectName("specDraft");
  m_specDraft->addItem("MTP layer of the target", QString("mtp"));
  for (const auto& m : Catalog::bundled().models())
    m_specDraft->addItem(qs(m.id) + " (bf16)", qs(m.id));
  m_specDraft->setToolTip(
      "The draft: the target's multi-token-prediction layer (one layer's cost per draft "
      "token) or a smaller catalog model run in bf16 on the same GPUs");
  srvForm->addRow("Draft", m_specDraft);
  return srv;
}

void ScenarioPanel::connectChanges() {
  // Coalesced: a spin box held down ticks many times a second; the window recomputes once
  // the values settle (one scenarioChanged per burst, not one per tick).
  m_coalesce.setSingleShot(true);
  m_coalesce.setInterval(kCoalesceMs);
  connect(this, &ScenarioPanel::scenarioChanged, this, [this] { ++m_changes; });
  connect(&m_coalesce, &QTimer::timeout, this, [this] { emit scenarioChanged(); });
  auto changed = [this] {
    if (!m_updating) m_coalesce.start();
  };
  for (QComboBox* box : {m_kvDtype, m_mixedLinear, m_mixedMoe, m_mixedLmHead, m_specDraft}) {
    connect(box, &QComboBox::currentIndexChanged, this, changed);
  }
  for (QSpinBox* box : {m_tp, m_batchMin, m_batchMax, m_batchAt, m_maxModelLen, m_context,
                        m_inputLen, m_outputLen, m_specK}) {
    connect(box, &QSpinBox::valueChanged, this, changed);
  }
  for (QDoubleSpinBox* box : {m_memUtil, m_reserve, m_specAcceptance}) {
    connect(box, &QDoubleSpinBox::valueChanged, this, changed);
  }
  connect(m_schemes, &QListWidget::itemChanged, this, changed);
  connect(m_datasheet, &QCheckBox::toggled, this, changed);
  // Another GPU chosen: the edited copy belonged to the one before.
  connect(m_gpu, &QComboBox::currentIndexChanged, this, [this](int index) {
    const QString id = m_gpu->itemData(index).toString();
    if (!m_gpuSpec || id == kBrowse || id.toStdString() == m_gpuSpecFor) return;
    m_gpuSpec.reset();
    m_gpuSpecFor.clear();
    updateGpuLabels();
  });
  connect(m_editGpu, &QPushButton::clicked, this, &ScenarioPanel::editGpu);
}

void ScenarioPanel::updateGpuLabels() {
  for (int i = 0; i < m_gpu->count(); ++i) {
    QString text = m_gpu->itemText(i);
    if (text.endsWith(kEditedSuffix)) text.chop(kEditedSuffix.size());
    if (m_gpuSpec && m_gpu->itemData(i).toString().toStdString() == m_gpuSpecFor) {
      text += kEditedSuffix;
    }
    m_gpu->setItemText(i, text);
  }
}

void ScenarioPanel::emitNow() {
  m_coalesce.stop();
  emit scenarioChanged();
}

void ScenarioPanel::setGpuEditor(GpuEditor editor) {
  m_gpuEditor = std::move(editor);
}

void ScenarioPanel::editGpu() {
  flushPendingChange();
  const ScenarioSpec current = spec();
  auto gpu = scenarioGpu(current);
  if (!gpu) {
    setFeedback(qs(gpu.error().str()), true);
    return;
  }
  const bool edited = current.gpuSpec.has_value();
  const GpuEditChoice choice =
      m_gpuEditor ? m_gpuEditor(*gpu, edited) : runGpuDialog(*gpu, edited, this);
  switch (choice.action) {
    case GpuEditChoice::Action::Cancel:
      return;
    case GpuEditChoice::Action::Reset:
      resetGpuToCatalog();
      return;
    case GpuEditChoice::Action::Apply:
      if (auto e = applyGpuEdit(choice.texts)) setFeedback(qs(e->str()), true);
      return;
  }
}

std::optional<Error> ScenarioPanel::applyGpuEdit(const GpuFieldTexts& texts) {
  flushPendingChange();
  const ScenarioSpec current = spec();
  auto base = scenarioGpu(current);
  if (!base) return base.error();
  auto gpu = editedGpu(*base, texts);
  if (!gpu) return gpu.error();
  if (*gpu == current.gpuSpec) return std::nullopt;
  // Figures equal to the catalog's (or the file's) are no edit.
  auto plain = Catalog::bundled().resolveGpu(current.gpu);
  if (plain && *plain == *gpu) {
    resetGpuToCatalog();
    return std::nullopt;
  }
  m_gpuSpec = std::move(*gpu);
  m_gpuSpecFor = current.gpu;
  updateGpuLabels();
  emitNow();
  return std::nullopt;
}

void ScenarioPanel::setModelName(const QString& name) {
  const int i = m_model->currentIndex();
  if (i < 0 || name.isEmpty()) return;
  const QString path = m_model->itemData(i).toString();
  // Catalog ids carry no path separator or .json; a config file always does.
  if (path == kBrowse || (!path.contains('/') && !path.endsWith(".json"))) return;
  m_model->setItemText(i, QString("%1 (%2)").arg(name, path.section('/', -1)));
  m_model->setItemData(i, path, Qt::ToolTipRole);
}

QString ScenarioPanel::modelLabel() const {
  return m_model->currentText();
}

bool ScenarioPanel::applyCalibratedGpu(const GpuSpec& gpu, const std::string& id) {
  flushPendingChange();
  ScenarioSpec next = spec();
  const int entry = m_gpu->findData(qs(id));
  if (entry < 0) return false;
  next.gpu = id;
  next.gpuSpec = gpu;
  next.datasheet = false;
  setSpec(next);
  emitNow();
  return true;
}

void ScenarioPanel::resetGpuToCatalog() {
  if (!m_gpuSpec) return;
  flushPendingChange();
  m_gpuSpec.reset();
  m_gpuSpecFor.clear();
  updateGpuLabels();
  emitNow();
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
                        .arg(fixedDecimals(s.bitsPerWeight(), 3))
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
  m_gpuSpec = spec.gpuSpec;
  m_gpuSpecFor = spec.gpuSpec ? spec.gpu : std::string();
  selectData(m_gpu, qs(spec.gpu));
  updateGpuLabels();
  m_tp->setValue(spec.tp);
  m_datasheet->setChecked(spec.datasheet);
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
  m_batchAt->setValue(static_cast<int>(std::min<std::int64_t>(spec.batchAt, 1 << 20)));
  m_maxModelLen->setValue(static_cast<int>(spec.maxModelLen));
  selectData(m_kvDtype, qs(spec.kvDtype));
  m_memUtil->setValue(spec.memUtil);
  m_reserve->setValue(spec.reserveGib);
  m_context->setValue(static_cast<int>(spec.contextTokens));
  m_inputLen->setValue(static_cast<int>(spec.inputLen));
  m_outputLen->setValue(static_cast<int>(spec.outputLen));
  m_specK->setValue(spec.specDraftTokens);
  m_specAcceptance->setValue(spec.specAcceptance);
  if (m_specDraft->findData(qs(spec.specDraft)) < 0)
    m_specDraft->addItem(qs(spec.specDraft), qs(spec.specDraft));
  selectData(m_specDraft, qs(spec.specDraft));
  m_updating = false;
}

ScenarioSpec ScenarioPanel::spec() const {
  ScenarioSpec s;
  s.model = m_model->currentData().toString().toStdString();
  s.gpu = m_gpu->currentData().toString().toStdString();
  if (s.gpu == m_gpuSpecFor) s.gpuSpec = m_gpuSpec;
  s.tp = m_tp->value();
  s.datasheet = m_datasheet->isChecked();
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
  s.batchAt = m_batchAt->value();
  s.maxModelLen = m_maxModelLen->value();
  s.kvDtype = m_kvDtype->currentData().toString().toStdString();
  s.memUtil = m_memUtil->value();
  s.reserveGib = m_reserve->value();
  s.contextTokens = m_context->value();
  s.inputLen = m_inputLen->value();
  s.outputLen = m_outputLen->value();
  // Off: the acceptance and draft a session keeps are the defaults (the widgets keep theirs).
  s.specDraftTokens = m_specK->value();
  if (s.specDraftTokens > 0) {
    s.specAcceptance = m_specAcceptance->value();
    s.specDraft = m_specDraft->currentData().toString().toStdString();
  }
  return s;
}

QString ScenarioPanel::feedbackText() const {
  return m_feedback->text();
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
