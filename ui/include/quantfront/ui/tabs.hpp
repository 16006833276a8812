#pragma once
/// The window's tabs, in tab-bar order: the one table that the tab bar, the export views
/// (File › Export, quantfront --export VIEW), the command line (--tab) and the session's
/// view.tab read. No widgets here: the command line checks its options before a window exists.
#include <QString>
#include <QStringList>
#include <span>
#include <string>

namespace qf::ui {

enum class Tab {
  Step,
  Throughput,
  Serving,
  Schemes,
  Pareto,
  Candidates,
  Evidence,
  Measured,
  Deploy
};

/// What a tab exports: its plot (PNG, PDF, SVG), its table (CSV) or nothing.
enum class TabExport { None, Plot, Table };

struct TabSpec {
  Tab id;
  const char* key;      ///< the tab's name: --tab, MainWindow::showTab, currentTabKey
  const char* view;     ///< the name it is exported under (--export VIEW, exportView)
  const char* title;    ///< the tab bar's text
  const char* toolTip;  ///< the tab bar's tooltip (nullptr: none)
  TabExport exports;
  const char* savedAs;  ///< what a session saved on this tab stores as its view.tab
  bool reopens;         ///< a session whose view.tab is `savedAs` opens on this tab
};

/// Every tab, in tab-bar order.
[[nodiscard]] std::span<const TabSpec> tabSpecs();
/// The tab of a key ("step", ...), nullptr when none.
[[nodiscard]] const TabSpec* tabByKey(const QString& key);
/// The tab exported under `view` ("step-time", ...), nullptr when none.
[[nodiscard]] const TabSpec* tabByView(const QString& view);
/// The key of the tab a session saved with view.tab `saved` opens on ("step" when none).
[[nodiscard]] QString tabOfSavedView(const std::string& saved);
/// Every tab's key, in tab-bar order.
[[nodiscard]] QStringList tabKeys();
/// The keys of the tabs that export a plot, in tab-bar order.
[[nodiscard]] QStringList plotTabKeys();
/// The export names of the tabs that export `what`, in tab-bar order.
[[nodiscard]] QStringList exportedViews(TabExport what);
/// Every export view: the plots, the tables, then "report" (the review report).
[[nodiscard]] QStringList exportViewNames();

}  // namespace qf::ui
