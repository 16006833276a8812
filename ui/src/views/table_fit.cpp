#include <quantfront/ui/table_fit.hpp>

#include <QEvent>
#include <QHeaderView>
#include <QTableView>

namespace qf::ui {

namespace {

constexpr const char* kPending = "qf_fit_columns_pending";

/// Fits the watched table's columns at its next Show, then stops watching.
class FitOnShow : public QObject {
 public:
  explicit FitOnShow(QTableView* table) : QObject(table), m_table(table) {
    table->installEventFilter(this);
  }
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (watched == m_table && e->type() == QEvent::Show) {
      m_table->removeEventFilter(this);
      m_table->setProperty(kPending, false);
      m_table->resizeColumnsToContents();
      deleteLater();
    }
    return false;
  }

 private:
  QTableView* m_table;
};

}  // namespace

void fitColumnsWhenShown(QTableView* table) {
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  if (table->isVisible()) {
    table->resizeColumnsToContents();
    return;
  }
  if (table->property(kPending).toBool()) return;
  table->setProperty(kPending, true);
  new FitOnShow(table);
}

}  // namespace qf::ui
