#pragma once
/// The scenario panel: model, GPU and count, schemes (uniform and one mixed per layer kind),
/// batch range and the batch run at, KV dtype, max model length, memory utilisation and reserve,
/// context.
#include <QString>
#include <QTimer>
#include <QWidget>

#include <array>
#include <functional>
#include <optional>
#include <string>

#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

class QCheckBox;
class QComboBox;
class QSpinBox;
class QDoubleSpinBox;
class QListWidget;
class QLabel;
class QPushButton;
class QGroupBox;

namespace qf {
class Catalog;
}  // namespace qf

namespace qf::ui {

/// The "Edit GPU" dialog's fields as typed: numbers in the units of a GPU file, empty for an
/// absent optional figure (a tensor path the GPU lacks, no NVLink, no price).
struct GpuFieldTexts {
  QString name;
  QString memoryGib;
  QString hbmBandwidthTBps;
  std::array<QString, kAllTensorPaths.size()> tensorTflops;  ///< indexed by TensorPath
  QString vectorFp32Tflops;
  QString nvlinkGBps;
  QString pricePerGpuHourUsd;
};

/// The fields showing `gpu`.
GpuFieldTexts gpuFieldTexts(const GpuSpec& gpu);

/// The edited GPU (ScenarioSpec::gpuSpec) from `texts` over `base`, whose id, sources and
/// calibration are kept; checked against the GPU file reader's ranges (checkGpu). Errors
/// name the field (its GPU file key) and the text at fault.
Result<GpuSpec> editedGpu(const GpuSpec& base, const GpuFieldTexts& texts);

/// What the GPU editor decided.
struct GpuEditChoice {
  enum class Action { Cancel, Apply, Reset };
  Action action = Action::Cancel;
  GpuFieldTexts texts;  ///< Apply: the fields as accepted
};
/// Shows the scenario's GPU (`edited`: it is an edited copy) and returns the choice.
using GpuEditor = std::function<GpuEditChoice(const GpuSpec& current, bool edited)>;

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);
  /// Shows `spec` without emitting scenarioChanged.
  void setSpec(const ScenarioSpec& spec);
  [[nodiscard]] ScenarioSpec spec() const;
  /// Feedback line under the inputs (model facts or the current error).
  void setFeedback(const QString& text, bool isError);
  /// The feedback line as shown (model facts, or what could not be computed).
  [[nodiscard]] QString feedbackText() const;
  /// Checks or unchecks one uniform scheme (emits scenarioChanged).
  void setSchemeChecked(const QString& id, bool checked);
  /// Labels the model entry of a config file by the model it holds, "<name> (<file>)", not the
  /// file's name alone (catalog entries keep their labels).
  void setModelName(const QString& name);
  /// The model box's label of the current entry (tests).
  [[nodiscard]] QString modelLabel() const;
  /// Labels each scheme for `gpu`: a scheme whose tensor path the GPU lacks says
  /// "fallback", as the legend does.
  void setGpu(const GpuSpec& gpu);
  /// The scheme list's label of `id` (tests).
  [[nodiscard]] QString schemeLabel(const QString& id) const;
  /// Emits now the scenarioChanged that a burst of edits has pending (no-op when none).
  void flushPendingChange();
  /// Edits closer together than this (ms) are one change.
  static constexpr int kCoalesceMs = 40;
  /// How many scenarioChanged signals were emitted (for tests and benchmarks).
  [[nodiscard]] int changeCount() const { return m_changes; }
  /// What "Edit GPU…" does: asks the editor (the dialog, or the one setGpuEditor gave) and
  /// applies its choice.
  void editGpu();
  /// Replaces the dialog "Edit GPU…" opens (tests); an empty function restores it.
  void setGpuEditor(GpuEditor editor);
  /// Makes the fields the scenario's edited GPU and emits scenarioChanged. On an invalid field
  /// returns the error (naming the field) and changes nothing.
  std::optional<Error> applyGpuEdit(const GpuFieldTexts& texts);
  /// Drops the edited GPU: the catalog entry or file is used again (emits scenarioChanged
  /// when there was one).
  void resetGpuToCatalog();
  /// Makes `gpu` (a copy carrying a fitted calibration block) the scenario's GPU, for the
  /// entry `id` (selected when another one is), with the datasheet roofline off so that the
  /// calibration applies; emits scenarioChanged. False (nothing changed) when no entry is `id`.
  bool applyCalibratedGpu(const GpuSpec& gpu, const std::string& id);

 signals:
  void scenarioChanged();

 private:
  /// The model, GPU (with Edit GPU…) and tensor-parallel degree.
  QGroupBox* buildHardwareGroup(const Catalog& cat);
  /// The uniform schemes to compare and the mixed candidate's scheme per layer kind.
  QGroupBox* buildSchemesGroup(const Catalog& cat);
  /// Batch range, max model length, KV dtype, memory budget, context.
  QGroupBox* buildServingGroup();
  /// Every control's edit reaches scenarioChanged, coalesced.
  void connectChanges();
  void addFileEntry(QComboBox* box, const QString& title, const QString& filter);
  /// Marks the GPU entry the edited copy belongs to "(edited)", and no other.
  void updateGpuLabels();
  void emitNow();
  GpuEditor m_gpuEditor;
  std::optional<GpuSpec> m_gpuSpec;  ///< the edited GPU, none for the catalog's figures
  std::string m_gpuSpecFor;          ///< the GPU combo's entry it was edited from
  QPushButton* m_editGpu = nullptr;
  QTimer m_coalesce;
  int m_changes = 0;
  QComboBox* m_model = nullptr;
  QComboBox* m_gpu = nullptr;
  QSpinBox* m_tp = nullptr;
  QCheckBox* m_datasheet = nullptr;  ///< the ideal roofline instead of the calibrated constants
  QSpinBox* m_inputLen = nullptr;    ///< static batch prompt tokens, 0: off
  QSpinBox* m_outputLen = nullptr;   ///< static batch output tokens, 0: off
  QListWidget* m_schemes = nullptr;
  QComboBox* m_mixedLinear = nullptr;
  QComboBox* m_mixedMoe = nullptr;
  QComboBox* m_mixedLmHead = nullptr;
  QSpinBox* m_batchMin = nullptr;
  QSpinBox* m_batchMax = nullptr;
  QSpinBox* m_batchAt = nullptr;  ///< the batch marked on the plots, 0: off
  QSpinBox* m_maxModelLen = nullptr;
  QComboBox* m_kvDtype = nullptr;
  QDoubleSpinBox* m_memUtil = nullptr;
  QDoubleSpinBox* m_reserve = nullptr;
  QSpinBox* m_context = nullptr;
  QSpinBox* m_specK = nullptr;  ///< speculative decoding: draft tokens, 0 = off
  QDoubleSpinBox* m_specAcceptance = nullptr;
  QComboBox* m_specDraft = nullptr;
  QLabel* m_feedback = nullptr;
  bool m_updating = false;
};

}  // namespace qf::ui
