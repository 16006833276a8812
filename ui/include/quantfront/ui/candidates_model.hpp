#pragma once
/// The Candidates tab's rows as an item model: one row per candidate (id, status, model,
/// schemes, GPU, engine, then one column per metric any candidate carries, sorted by name).
/// Cells are made when a view asks for them, so 10^5 candidates load in the time it takes to
/// index their names, where a table of items built every cell up front.
#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/records.hpp>

namespace qf::ui {

class CandidatesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// The fixed columns; metric columns follow from kFirstMetricColumn.
  enum Column {
    IdColumn,
    StatusColumn,
    ModelColumn,
    SchemesColumn,
    GpuColumn,
    EngineColumn,
    kFirstMetricColumn
  };
  /// A candidate's verdict detail when the verdict map leaves it empty (a large set's
  /// dominator lists are read on demand); nullopt keeps the map's.
  using DetailSource = std::function<std::optional<std::string>(const std::string& id)>;

  /// The texts a row shows, made once per set of candidates (sorting asks for them many
  /// times), with the row of each id and the metric columns. Pure data: a large set's are
  /// made on a worker thread (prepareRows) and handed to reset().
  struct RowText {
    QString id, model, schemes, gpu, engine;
  };
  struct Rows {
    std::shared_ptr<const std::vector<Candidate>> source;  ///< what they were made from
    std::vector<RowText> text;
    std::vector<std::string> metrics;  ///< metric columns, sorted
    QHash<QString, int> rowOf;
  };
  using SharedRows = std::shared_ptr<const Rows>;
  [[nodiscard]] static SharedRows prepareRows(std::shared_ptr<const std::vector<Candidate>> cands);

  explicit CandidatesModel(QObject* parent = nullptr);
  /// Shows `cands` (kept by reference: they must outlive the next reset) with `verdicts`.
  /// `rows`, when made from `cands` (prepareRows), are used as they are; else the rows are
  /// made here.
  void reset(const std::vector<Candidate>* cands,
             const std::map<std::string, CandidateVerdict>* verdicts, DetailSource detail = {},
             SharedRows rows = {});

  [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;
  /// The row of candidate `id` (in this model, not a sorted view), or -1.
  [[nodiscard]] int rowOf(const QString& id) const;
  /// The candidate id of `row`; empty out of range.
  [[nodiscard]] QString idAt(int row) const;
  /// The rows shown (shared: a caller holding them decides where they are let go).
  [[nodiscard]] SharedRows rows() const { return m_rows; }

 private:
  [[nodiscard]] QVariant statusData(const Candidate& c, int role) const;
  [[nodiscard]] QVariant metricData(const Candidate& c, const std::string& metric, int role) const;
  [[nodiscard]] std::string detailOf(const std::string& id, const CandidateVerdict& v) const;

  const std::vector<Candidate>* m_cands = nullptr;
  const std::map<std::string, CandidateVerdict>* m_verdicts = nullptr;
  DetailSource m_detail;
  SharedRows m_rows = std::make_shared<const Rows>();
  QStringList m_headers;
};

}  // namespace qf::ui
