#pragma once
/// The candidates' ids as a list model for a picker (the Pareto tab's baseline, the Evidence
/// tab's candidate): it shares the view's candidates and makes an id's text only when the
/// picker draws or reads it, so 10^5 candidates cost no strings up front (making them took
/// 25-30 ms of the GUI thread, adding them as items 177 ms).
#include <QAbstractListModel>
#include <QString>
#include <memory>
#include <vector>

#include <quantfront/core/base/records.hpp>

namespace qf::ui {

class CandidateIdList : public QAbstractListModel {
 public:
  /// `noneText`, when not empty, is a first row whose id is empty ("(none)").
  explicit CandidateIdList(QString noneText, QObject* parent = nullptr);
  void setCandidates(std::shared_ptr<const std::vector<Candidate>> cands);
  /// The row of candidate `id`; an empty or unknown id is the none row when there is one,
  /// else -1.
  [[nodiscard]] int rowOf(const QString& id) const;
  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  /// The id as Qt::DisplayRole, Qt::EditRole and Qt::UserRole (a picker's item data).
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;

 private:
  [[nodiscard]] int first() const { return m_none.isEmpty() ? 0 : 1; }
  QString m_none;
  std::shared_ptr<const std::vector<Candidate>> m_cands;
};

}  // namespace qf::ui
