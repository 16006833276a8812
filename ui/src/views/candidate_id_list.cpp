// A picker's list of candidate ids over the shared candidates (candidate_id_list.hpp).
#include <quantfront/ui/candidate_id_list.hpp>

#include "text.hpp"

namespace qf::ui {

CandidateIdList::CandidateIdList(QString noneText, QObject* parent)
    : QAbstractListModel(parent), m_none(std::move(noneText)) {}

void CandidateIdList::setCandidates(std::shared_ptr<const std::vector<Candidate>> cands) {
  beginResetModel();
  m_cands = std::move(cands);
  endResetModel();
}

int CandidateIdList::rowOf(const QString& id) const {
  const int none = m_none.isEmpty() ? -1 : 0;
  if (id.isEmpty() || !m_cands) return none;
  const std::string wanted = id.toStdString();
  for (std::size_t i = 0; i < m_cands->size(); ++i) {
    if ((*m_cands)[i].id == wanted) return static_cast<int>(i) + first();
  }
  return none;
}

int CandidateIdList::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return first() + (m_cands ? static_cast<int>(m_cands->size()) : 0);
}

QVariant CandidateIdList::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::UserRole) return {};
  if (index.row() < first()) return role == Qt::UserRole ? QString() : m_none;
  return qs((*m_cands)[static_cast<std::size_t>(index.row() - first())].id);
}

}  // namespace qf::ui
