#pragma once
/// Column widths fitted to a table's contents when someone can see them: sizing every cell is
/// the costliest part of refilling a table, and a table on a hidden tab was paying it on
/// every scenario edit.
class QTableView;

namespace qf::ui {

/// Fits the columns to their contents now if the table is visible, else the next time it is
/// shown (once; a later call while still hidden changes nothing). The user may resize a
/// column afterwards (the header is interactive).
void fitColumnsWhenShown(QTableView* table);

}  // namespace qf::ui
