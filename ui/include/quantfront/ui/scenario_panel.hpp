#pragma once
/// The scenario panel: model, GPU and count, schemes (uniform and one mixed per layer kind),
/// batch range, KV dtype, max model length, memory utilisation and reserve, context.
#include <QTimer>
#include <QWidget>

#include <quantfront/core/model/hardware.hpp>
#include <quantfront/core/model/scenario_spec.hpp>

class QComboBox;
class QSpinBox;
class QDoubleSpinBox;
class QListWidget;
class QLabel;

namespace qf::ui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);
  /// Shows `spec` without emitting scenarioChanged.
  void setSpec(const ScenarioSpec& spec);
  [[nodiscard]] ScenarioSpec spec() const;
  /// Feedback line under the inputs (model facts or the current error).
  void setFeedback(const QString& text, bool isError);
  /// Checks or unchecks one uniform scheme (emits scenarioChanged).
  void setSchemeChecked(const QString& id, bool checked);
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

 signals:
  void scenarioChanged();

 private:
  void addFileEntry(QComboBox* box, const QString& title, const QString& filter);
  QTimer m_coalesce;
  int m_changes = 0;
  QComboBox* m_model = nullptr;
  QComboBox* m_gpu = nullptr;
  QSpinBox* m_tp = nullptr;
  QListWidget* m_schemes = nullptr;
  QComboBox* m_mixedLinear = nullptr;
  QComboBox* m_mixedMoe = nullptr;
  QComboBox* m_mixedLmHead = nullptr;
  QSpinBox* m_batchMin = nullptr;
  QSpinBox* m_batchMax = nullptr;
  QSpinBox* m_maxModelLen = nullptr;
  QComboBox* m_kvDtype = nullptr;
  QDoubleSpinBox* m_memUtil = nullptr;
  QDoubleSpinBox* m_reserve = nullptr;
  QSpinBox* m_context = nullptr;
  QLabel* m_feedback = nullptr;
  bool m_updating = false;
};

}  // namespace qf::ui
