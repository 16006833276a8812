#pragma once
/// The Pareto plot: two objectives with the frontier classification (frontier line, dominated
/// points faded, gated-out struck, interval bars, uncertain band). It draws a FrontierResult
/// computed by core; the Pareto tab (pareto_view.hpp) feeds it.
#include <qcustomplot.h>
#include <QHash>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <quantfront/core/analysis/frontier.hpp>
#include <quantfront/core/analysis/frontier_analysis.hpp>
#include <quantfront/core/base/records.hpp>
#include <quantfront/ui/label_layout.hpp>
#include <quantfront/ui/plot.hpp>

namespace qf::ui {

/// The uncertain band's legend entry: its name and, on a second line, what it means.
inline constexpr char kUncertainBandName[] =
    "uncertain band (intervals: 95% measured, 80% modelled)\n  inside: not clearly dominated, "
    "within the uncertainty";

/// The legend labels of the colour quintiles, each "lo – hi" (or one value when lo == hi),
/// ranges in increasing order: to the fewest significant digits, at least three, at which no
/// range's ends read alike and no range's end reads like the next range's start.
QStringList colourBinLabels(const std::vector<std::pair<double, double>>& ranges);

/// Scatter of two objectives with the frontier classification.
class ParetoPlot : public Plot {
  Q_OBJECT
 public:
  /// Names offered to the label layout (frontier first, then uncertain, gated out, dominated).
  static constexpr std::size_t kMaxLabels = 200;
  explicit ParetoPlot(QWidget* parent = nullptr);
  ~ParetoPlot() override;
  using SharedCandidates = std::shared_ptr<const std::vector<Candidate>>;
  using SharedVerdicts = std::shared_ptr<const std::map<std::string, CandidateVerdict>>;
  /// What setData works out from the candidates before it draws: each class's points sorted
  /// along x with their intervals, the ids by index, the names offered to the label layout,
  /// the frontier per model and the colour quintiles. Pure data, so a large set's is made on
  /// a worker thread (prepare) while the window keeps handling input (pareto_plot.cpp).
  struct Prepared;
  using SharedPrepared = std::shared_ptr<const Prepared>;
  [[nodiscard]] static SharedPrepared prepare(
      const std::vector<Candidate>& cands, const std::map<std::string, CandidateVerdict>& verdicts,
      const Objective& x, const Objective& y, const std::string& colourMetric);
  /// Draws `cands` classed by `verdicts` (analyseFrontier's) on objectives x and y. The plot
  /// shares both with its caller (10^5 candidates are not copied); they must not change.
  /// `prepared`, when made by prepare() from the same candidates, verdicts, objectives and
  /// the plot's colour metric, is drawn as it is; else it is made here.
  void setData(SharedCandidates cands, SharedVerdicts verdicts, const Objective& x,
               const Objective& y, SharedPrepared prepared = {});
  /// The same from the caller's own containers (copied).
  void setData(const std::vector<Candidate>& cands,
               const std::map<std::string, CandidateVerdict>& verdicts, const Objective& x,
               const Objective& y);
  /// Points drawn per class (Verdict order): frontier, uncertain, dominated, gated out,
  /// undecided, not scored.
  [[nodiscard]] std::array<int, 6> classCounts() const;

  /// The candidates' names, placed without overlaps.
  [[nodiscard]] const PlotLabels& labels() const { return m_labels; }
  /// The candidate drawn nearest to pixel `pos`, within 12 px; empty when none.
  [[nodiscard]] QString candidateAt(const QPointF& pos) const;
  /// The hover text of candidate `id`: its verdict and why (who dominates it, which gate it
  /// fails), the plotted objectives' figures (and the colour metric's), then its other metrics
  /// up to kHoverMetrics, each with value, interval and provenance; the rest are counted (the
  /// Candidates tab lists them), so that the text stays on screen.
  /// Where describe() reads a dominated or uncertain candidate's detail when setData's
  /// verdicts leave it unworded (a large set's dominator lists are read on demand); empty:
  /// the verdicts' own. Cleared by nothing but another call.
  void setDetailSource(std::function<std::optional<std::string>(const std::string&)> source) {
    m_detailSource = std::move(source);
  }
  [[nodiscard]] QString describe(const QString& id) const;
  static constexpr int kHoverMetrics = 12;
  /// Rings the candidate `id` (empty: no ring).
  void highlight(const QString& id);
  /// A third objective shown as colour: each drawn candidate that has `metric` gets an inner
  /// dot coloured by the quintile its value falls in (viridis, legend with the ranges).
  /// Empty: none. Takes effect at the next setData.
  void setColourMetric(const std::string& metric) { m_colourMetric = metric; }
  /// Candidates coloured by the third objective in the last setData.
  [[nodiscard]] int colouredPointCount() const;
  /// The uncertain bands (uncertainBands' for the plotted objectives) drawn at the next
  /// setData as translucent areas behind the points; empty: none.
  void setUncertainBands(std::vector<UncertainBand> bands) { m_bands = std::move(bands); }
  /// The band areas the last setData drew, one per model group; the first carries the legend
  /// entry kUncertainBandName.
  [[nodiscard]] const std::vector<QCPCurve*>& bandCurves() const { return m_bandCurves; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 signals:
  /// The user clicked the point of candidate `id`.
  void candidateClicked(const QString& id);

 private:
  static constexpr int kClasses = 6;  ///< one per Verdict, in its order
  /// One class's points to draw (Verdict order), sorted along x, with their intervals
  /// (distances below and above the value).
  struct ClassArrays {
    QVector<double> x, y, xMinus, xPlus, yMinus, yPlus;
  };
  struct ColourBin {
    QVector<double> x, y;
    double lo = 0, hi = 0;
    std::size_t colour = 0;  ///< viridis stop, 0-4
  };
  void resetDrawing(SharedCandidates cands, SharedPrepared prepared);
  void setTitles(const Objective& x, const Objective& y);
  void drawBands();
  /// One class's points with their interval bars.
  void drawClass(int k, const ClassArrays& points);
  void drawColourBins();
  void drawLabels();
  void drawFrontierLines();
  /// The legend below the axes (two entries a row) or, where that would leave the axes less
  /// than half the plot's height and there is width to spare, beside them (one a row).
  void placeLegend();
  SharedPrepared m_prepared;
  std::string m_colourMetric;
  std::vector<UncertainBand> m_bands;
  std::vector<QCPCurve*> m_bandCurves;
  SharedCandidates m_cands = std::make_shared<const std::vector<Candidate>>();
  /// As the last setData drew them.
  SharedVerdicts m_verdicts = std::make_shared<const std::map<std::string, CandidateVerdict>>();
  std::function<std::optional<std::string>(const std::string&)> m_detailSource;
  std::string m_xMetric, m_yMetric;
  QCPGraph* m_ring = nullptr;
  PlotLabels m_labels;
  QCPTextElement* m_title = nullptr;
  QCPLayoutGrid* m_legendBelow = nullptr;  ///< spacer, legend, spacer in a row
  QCPLayoutGrid* m_legendSide = nullptr;   ///< spacer, legend, spacer in a column
  bool m_legendAtSide = false;
};

}  // namespace qf::ui
