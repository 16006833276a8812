#include <quantfront/ui/tabs.hpp>

#include <array>

namespace qf::ui {

namespace {
// The session file keeps the tab it was saved on (docs/session-format.md): the Schemes tab is
// saved as the step-time view, and a session saved on Measured vs model reopens on step time.
constexpr std::array kTabs = {
    TabSpec{Tab::Step, "step", "step-time", "Step time vs batch", nullptr, TabExport::Plot,
            "step-time", true},
    TabSpec{Tab::Throughput, "throughput", "throughput", "Throughput && capacity", nullptr,
            TabExport::Plot, "throughput", true},
    TabSpec{Tab::Serving, "serving", "serving", "Serving",
            "Imported vLLM / SGLang serving runs per candidate against offered load: throughput, "
            "goodput, TTFT and TPOT percentiles with intervals, generated length, modelled "
            "capacity",
            TabExport::Plot, "serving", true},
    TabSpec{Tab::Schemes, "schemes", "schemes", "Schemes", nullptr, TabExport::Table, "step-time",
            false},
    TabSpec{Tab::Pareto, "pareto", "pareto", "Pareto", nullptr, TabExport::Plot, "pareto", true},
    TabSpec{Tab::Candidates, "candidates", "candidates", "Candidates", nullptr, TabExport::Table,
            "candidates", true},
    TabSpec{Tab::Evidence, "evidence", "evidence", "Evidence",
            "Imported runs, attaching them to candidates, and the provenance of every metric of "
            "a candidate",
            TabExport::None, "evidence", true},
    TabSpec{Tab::Measured, "measured", "measured", "Measured vs model", nullptr, TabExport::Plot,
            "measured", false},
    TabSpec{Tab::Deploy, "deploy", "deploy", "Deploy",
            "What to deploy for a workload under TTFT/TPOT targets: every GPU x count x scheme x "
            "KV dtype x batch cap at the serving steady state, cost per million output tokens",
            TabExport::Plot, "deploy", true},
};
}  // namespace

std::span<const TabSpec> tabSpecs() {
  return kTabs;
}

const TabSpec* tabByKey(const QString& key) {
  for (const TabSpec& t : kTabs) {
    if (key == t.key) return &t;
  }
  return nullptr;
}

const TabSpec* tabByView(const QString& view) {
  for (const TabSpec& t : kTabs) {
    if (t.exports != TabExport::None && view == t.view) return &t;
  }
  return nullptr;
}

QString tabOfSavedView(const std::string& saved) {
  for (const TabSpec& t : kTabs) {
    if (t.reopens && saved == t.savedAs) return t.key;
  }
  return "step";
}

QStringList tabKeys() {
  QStringList keys;
  for (const TabSpec& t : kTabs) keys << t.key;
  return keys;
}

QStringList plotTabKeys() {
  QStringList keys;
  for (const TabSpec& t : kTabs) {
    if (t.exports == TabExport::Plot) keys << t.key;
  }
  return keys;
}

QStringList exportedViews(TabExport what) {
  QStringList views;
  for (const TabSpec& t : kTabs) {
    if (t.exports == what) views << t.view;
  }
  return views;
}

QStringList exportViewNames() {
  return exportedViews(TabExport::Plot) + exportedViews(TabExport::Table) + QStringList{"report"};
}

}  // namespace qf::ui
