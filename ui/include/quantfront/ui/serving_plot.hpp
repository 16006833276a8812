#pragma once
/// The Serving plot: measured serving runs against offered load, one colour and marker per
/// candidate in every panel. Stacked panels share the load axis: output throughput (tok/s,
/// left) and goodput (req/s, right) with each candidate's modelled capacity as a dashed
/// line; TTFT and TPOT p50 and p99 (ms) with their bootstrap intervals as error bars; and the
/// generated length (mean output tokens per successful request), so a candidate that looks
/// fast because it stops early shows it in the same picture (and in every export). The
/// saturated point (highest tok/s) is ringed on the throughput panel, the batch-1 point
/// (lowest load) on the latency panels. Draws core's ServingSweeps; computes nothing.
#include <qcustomplot.h>
#include <QString>
#include <QStringList>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/label_layout.hpp>
#include <quantfront/ui/plot.hpp>

namespace qf::ui {

class ServingPlot : public Plot {
  Q_OBJECT
 public:
  /// The stacked panels, top to bottom.
  enum class Panel { Throughput, Ttft, Tpot, Length };
  /// The curves one candidate can have.
  enum class Series { OutputThroughput, Goodput, TtftP50, TtftP99, TpotP50, TpotP99, MeanLength };

  /// What the plot says when the session has no serving runs.
  static const QString kEmptyText;

  explicit ServingPlot(QWidget* parent = nullptr);

  /// Draws `sweeps` (servingSweeps of a session). The load axis is the kind most runs state
  /// (request rate or max concurrency; a tie goes to request rate); runs of the other kind are
  /// not drawn and notes() says how many. An infinite request rate is drawn right of the highest
  /// finite one, at a tick labelled "∞".
  void setData(const ServingSweeps& sweeps);

  /// Candidates (group keys) drawn, in order.
  [[nodiscard]] QStringList candidates() const { return m_candidates; }
  [[nodiscard]] int candidateCount() const { return static_cast<int>(m_candidates.size()); }
  /// Curves drawn with data (every Series of every candidate that has points for it).
  [[nodiscard]] int seriesCount() const;
  /// The curve of `candidate` for `s`; nullptr when it has none.
  [[nodiscard]] QCPGraph* series(const QString& candidate, Series s) const;
  /// The error bars of a latency curve; nullptr when it has none.
  [[nodiscard]] QCPErrorBars* errorBars(const QString& candidate, Series s) const;
  /// The modelled capacity line of `candidate` (tok/s); nullopt when none is drawn.
  [[nodiscard]] std::optional<double> capacityLine(const QString& candidate) const;
  /// The modelled curve of `candidate` on `p` (Throughput, Ttft or Tpot), calibrated or the
  /// datasheet roofline; nullptr when none is drawn.
  [[nodiscard]] QCPGraph* modelledCurve(const QString& candidate, Panel p, bool datasheet) const;
  /// The overtake marks drawn on the TPOT panel ("w4 overtakes bf16 at 3.2 req/s").
  [[nodiscard]] QStringList overtakeLabels() const { return m_overtakes; }
  /// The axis rect of a panel.
  [[nodiscard]] QCPAxisRect* panel(Panel p) const;
  /// The load axis: its kind and where a load is drawn on it.
  [[nodiscard]] LoadKind loadKind() const { return m_kind; }
  [[nodiscard]] double xOf(const OfferedLoad& load) const;
  /// The empty state's text while it is shown, else "".
  [[nodiscard]] QString emptyText() const;
  /// Fixed hints: the panels' heights follow the widget, so the layout's own minimum (which
  /// QCustomPlot reports) would keep the widget from ever getting smaller.
  [[nodiscard]] QSize minimumSizeHint() const override { return {480, 420}; }
  [[nodiscard]] QSize sizeHint() const override { return {900, 700}; }
  /// What is not drawn and why (also shown in red under the title).
  [[nodiscard]] QStringList notes() const { return m_notes; }
  /// The labels of the modelled capacity lines ("bf16: modelled 11606 tok/s at 52 seqs"; one
  /// above the scale says so), placed without overlaps on the throughput panel.
  [[nodiscard]] const PlotLabels& labels() const { return m_labels; }

 protected:
  /// Keeps every panel's axis fonts equal to the main x axis's before each layout, so the
  /// print theme (which restyles xAxis and yAxis) reaches all panels of an export, and gives
  /// the panels their shares of the height.
  void updateLayout() override;

 private:
  /// The load range drawn (1 to 64 when there is none: `empty`).
  struct LoadRange {
    double lo = 1, hi = 64;
    bool empty = true;
  };
  /// The value ranges of the points drawn, for the axes.
  struct ValueRanges {
    double tokLo = std::numeric_limits<double>::infinity(), tokMax = 0;
    double goodLo = std::numeric_limits<double>::infinity(), goodMax = 0;
    double ttftLo = std::numeric_limits<double>::infinity(), ttftHi = 0;
    double tpotLo = std::numeric_limits<double>::infinity(), tpotHi = 0;
    double lenMax = 0;
    bool anyGoodput = false;
  };
  /// A candidate's modelled capacity, drawn as a line once the throughput range is known.
  struct CapacityLine {
    QString name;
    ModelledCapacity capacity;
    QColor color;
  };
  /// One candidate's curves: its name, points at the drawn load kind, colour and marker.
  struct Curve {
    QString name;
    const std::vector<const ServingPoint*>* pts;
    QColor color;
    QCPScatterStyle::ScatterShape shape;
  };
  /// The load kind drawn (the one most points state); notes on the runs left out.
  QStringList chooseLoadKind(const ServingSweeps& sweeps);
  /// The load axes' ticks (an infinite rate right of the highest finite one) and range.
  LoadRange setLoadAxis(const ServingSweeps& sweeps);
  QCPGraph* addCurve(const Curve& c, Series s, QCPAxisRect* r, QCPAxis* y, bool filled,
                     Qt::PenStyle style,
                     const std::function<std::optional<double>(const ServingPoint&)>& value);
  /// A latency percentile's curve with its interval bars.
  void addLatency(const Curve& c, Series s, Panel pn, bool p50,
                  std::optional<MetricValue> ServingPoint::*member, ValueRanges& ranges);
  /// One candidate: its curves, hover points, regime rings and legend entry.
  void drawGroup(const ServingGroup& g, const std::vector<const ServingPoint*>& pts,
                 const QColor& color, QCPScatterStyle::ScatterShape shape, ValueRanges& ranges);
  void drawCapacities(const std::vector<CapacityLine>& capacities, const ValueRanges& ranges,
                      double xLo);
  /// The serving model's curves of one candidate (calibrated dash-dot, datasheet dash-dot-dot).
  void drawModelled(const ServingGroup& g, const QColor& color, ValueRanges& ranges);
  /// The calibrated curve's 80% interval as a shaded band on each panel.
  void drawBands(const ModelledServingCurve& curve, const QString& name, const QColor& color);
  /// Where one candidate's modelled TPOT overtakes another's, marked on the TPOT panel.
  void drawOvertakes(const ServingSweeps& sweeps);
  /// Places the overtake labels on the TPOT panel for its size now (after every layout): each
  /// beside its line, staggered down past the ones placed before, none over another; one
  /// with no room left is hidden (its line stays).
  void placeOvertakes();
  void drawKeys(bool anyGoodput);
  void fitAxes(const ValueRanges& ranges);
  void clearAll();
  void showEmpty(bool empty);
  void setNotes(const QStringList& notes);
  void onMouseMove(QMouseEvent* event);

  struct Drawn {
    double x = 0, y = 0;
    Panel panel = Panel::Throughput;
    QString text;
  };
  std::vector<Drawn> m_drawn;
  PlotLabels m_labels;
  QCPAxisRect* m_panels[4] = {};
  QCPTextElement* m_title = nullptr;
  QCPTextElement* m_noteRow = nullptr;
  QCPItemText* m_empty = nullptr;
  QCPMarginGroup* m_margins = nullptr;
  LoadKind m_kind = LoadKind::RequestRate;
  double m_infX = 0;
  QStringList m_candidates;
  QStringList m_notes;
  std::map<QString, std::map<Series, QCPGraph*>> m_series;
  std::map<QString, std::map<Series, QCPErrorBars*>> m_errorBars;
  std::map<QString, double> m_capacity;
  std::map<QString, std::map<std::pair<Panel, bool>, QCPGraph*>> m_modelled;
  QStringList m_overtakes;
  /// The overtake labels drawn: the item, its load (plot x) and whether it sits left of its
  /// line.
  struct OvertakeLabel {
    QCPItemText* item = nullptr;
    double x = 0;
    bool leftOfLine = false;
    TextSizeCache measured;  ///< its text's size, measured once per text and font
  };
  std::vector<OvertakeLabel> m_overtakeItems;
  bool m_anyModelled = false;
  /// No measured point of the load kind: the groups are the serving model's alone (the
  /// scenario's schemes), drawn on a log load axis with a legend entry each.
  bool m_modelledOnly = false;
  bool m_anyBand = false;  ///< some calibrated curve drew its interval band
};

}  // namespace qf::ui
