// The Candidates tab's item model: cells made on request from the candidates and verdicts.
#include <quantfront/ui/candidates_model.hpp>

#include <QColor>
#include <QFont>
#include <set>

#include "../text.hpp"

namespace qf::ui {

CandidatesModel::CandidatesModel(QObject* parent) : QAbstractTableModel(parent) {}

CandidatesModel::SharedRows CandidatesModel::prepareRows(
    std::shared_ptr<const std::vector<Candidate>> cands) {
  auto rows = std::make_shared<Rows>();
  std::set<std::string> names;
  if (cands) {
    rows->text.reserve(cands->size());
    rows->rowOf.reserve(static_cast<qsizetype>(cands->size()));
    for (const auto& c : *cands) {
      for (const auto& [name, v] : c.metrics) names.insert(name);
      std::string schemes = c.schemeLinear;
      if (!c.schemeMoe.empty()) schemes += ", moe=" + c.schemeMoe;
      if (!c.schemeLmHead.empty()) schemes += ", lm_head=" + c.schemeLmHead;
      rows->text.push_back({qs(c.id), qs(c.model), qs(schemes),
                            QString("%1 ×%2").arg(qs(c.gpu)).arg(c.gpuCount), qs(c.engine)});
      rows->rowOf.insert(rows->text.back().id, static_cast<int>(rows->text.size()) - 1);
    }
  }
  rows->metrics.assign(names.begin(), names.end());
  rows->source = std::move(cands);
  return rows;
}

void CandidatesModel::reset(const std::vector<Candidate>* cands,
                            const std::map<std::string, CandidateVerdict>* verdicts,
                            DetailSource detail, SharedRows rows) {
  // Rows made from other candidates are made again; a null `cands` shows none.
  if (!rows || rows->source.get() != cands) {
    rows = prepareRows(
        cands ? std::shared_ptr<const std::vector<Candidate>>(std::shared_ptr<const void>(), cands)
              : nullptr);
  }
  beginResetModel();
  m_cands = cands;
  m_verdicts = verdicts;
  m_detail = std::move(detail);
  m_rows = std::move(rows);
  m_headers = QStringList{"id", "status", "model", "schemes", "GPU", "engine"};
  for (const auto& n : m_rows->metrics) m_headers << qs(n);
  endResetModel();
}

int CandidatesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows->text.size());
}

int CandidatesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
}

QVariant CandidatesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 &&
      section < m_headers.size()) {
    return m_headers[section];
  }
  return QAbstractTableModel::headerData(section, orientation, role);
}

int CandidatesModel::rowOf(const QString& id) const {
  return m_rows->rowOf.value(id, -1);
}

QString CandidatesModel::idAt(int row) const {
  return row >= 0 && row < static_cast<int>(m_rows->text.size())
             ? m_rows->text[static_cast<std::size_t>(row)].id
             : QString();
}

std::string CandidatesModel::detailOf(const std::string& id, const CandidateVerdict& v) const {
  const bool listed = v.verdict == Verdict::Dominated || v.verdict == Verdict::Uncertain;
  if (listed && m_detail) {
    if (auto d = m_detail(id)) return *d;
  }
  return v.detail;
}

QVariant CandidatesModel::statusData(const Candidate& c, int role) const {
  const auto none = [role] { return role == Qt::DisplayRole ? QVariant(QString()) : QVariant(); };
  if (!m_verdicts) return none();
  const auto it = m_verdicts->find(c.id);
  if (it == m_verdicts->end()) return none();
  const Verdict v = it->second.verdict;
  const bool flagged = v == Verdict::GatedOut || v == Verdict::Undecided || v == Verdict::NotScored;
  switch (role) {
    case Qt::DisplayRole:
      return flagged ? QString("%1: %2").arg(verdictName(v), qs(it->second.detail).section(": ", 1))
                     : QString(verdictName(v));
    case Qt::ToolTipRole:
      return qs(detailOf(c.id, it->second));
    case Qt::FontRole:
      if (flagged) {
        QFont f;
        f.setStrikeOut(v == Verdict::GatedOut);
        return f;
      }
      return {};
    case Qt::ForegroundRole:
      if (!flagged) return {};
      return v == Verdict::GatedOut    ? QColor(176, 0, 0)
             : v == Verdict::Undecided ? QColor(213, 94, 0)
                                       : QColor(110, 110, 110);
    default:
      return {};
  }
}

QVariant CandidatesModel::metricData(const Candidate& c, const std::string& metric,
                                     int role) const {
  const auto m = c.metrics.find(metric);
  if (m == c.metrics.end()) return {};
  const auto& p = m->second.provenance;
  switch (role) {
    case Qt::DisplayRole:
      return m->second.value;
    case Qt::ToolTipRole: {
      QString tip = QString("%1 — %2").arg(provenanceName(p.kind));
      tip = tip.arg(qs(!p.citation.empty()     ? p.citation
                       : !p.sourceFile.empty() ? p.sourceFile
                                               : p.note));
      if (m->second.lo && m->second.hi)
        tip += QString("\ninterval [%1, %2]").arg(*m->second.lo).arg(*m->second.hi);
      return tip;
    }
    case Qt::FontRole:
      if (p.kind == ProvenanceKind::Published) {
        QFont f;
        f.setItalic(true);
        return f;
      }
      return {};
    case Qt::ForegroundRole:
      return p.kind == ProvenanceKind::Modelled ? QVariant(QColor(0, 90, 160)) : QVariant();
    default:
      return {};
  }
}

QVariant CandidatesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_cands || index.row() >= static_cast<int>(m_rows->text.size()) ||
      static_cast<std::size_t>(index.row()) >= m_cands->size()) {
    return {};
  }
  const Candidate& c = (*m_cands)[static_cast<std::size_t>(index.row())];
  const RowText& t = m_rows->text[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  if (col == StatusColumn) return statusData(c, role);
  if (col >= kFirstMetricColumn) {
    const auto k = static_cast<std::size_t>(col - kFirstMetricColumn);
    return k < m_rows->metrics.size() ? metricData(c, m_rows->metrics[k], role) : QVariant();
  }
  if (role != Qt::DisplayRole) return {};
  switch (col) {
    case IdColumn:
      return t.id;
    case ModelColumn:
      return t.model;
    case SchemesColumn:
      return t.schemes;
    case GpuColumn:
      return t.gpu;
    case EngineColumn:
      return t.engine;
    default:
      return {};
  }
}

}  // namespace qf::ui
