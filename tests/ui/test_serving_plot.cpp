// Offscreen: the Serving plot draws core's serving sweeps — throughput, goodput and modelled
// capacity; TTFT and TPOT p50/p99 with interval bars; generated length — one colour and
// marker per candidate, and says what to import when the session has no serving runs.
#include <catch2/catch.hpp>

#include <QBuffer>
#include <QDir>
#include <QImage>
#include <QPixmap>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>
#include <quantfront/core/import/importers.hpp>
#include <quantfront/core/session/attach_runs.hpp>
#include <quantfront/core/session/serving.hpp>
#include <quantfront/ui/plot_export.hpp>
#include <quantfront/ui/plot_style.hpp>
#include <quantfront/ui/serving_plot.hpp>

#include "support/qt_app.hpp"

using qf::ui::ServingPlot;
using Series = qf::ui::ServingPlot::Series;
using Panel = qf::ui::ServingPlot::Panel;

namespace {

const std::string kE2e = std::string(QF_TEST_DATA_DIR) + "/import/e2e";

/// Share of pixels that are not the background's white.
/// The bundled request-rate sweep (three checkpoints, 1 to 16 req/s and all at once), imported
/// and attached on an H100: its serving sweeps.
qf::ServingSweeps bundledSweeps() {
  qf::Session s;
  for (const char* tag : {"bf16", "fp8", "w4a16"}) {
    for (const char* rate : {"1", "2", "4", "8", "16", "inf"}) {
      auto rep = qf::importFile(std::string(QF_TEST_DATA_DIR) + "/import/sweep/vllm_serve_" + tag +
                                "_rate" + rate + ".json");
      REQUIRE(rep.ok());
      qf::mergeImport(s, *rep);
    }
  }
  qf::AttachOptions opts;
  opts.gpu = "h100-sxm";
  REQUIRE(qf::attachRunsToCandidates(s, opts).ok());
  return qf::servingSweeps(s);
}

double inkShare(const QImage& img) {
  qint64 ink = 0;
  for (int y = 0; y < img.height(); ++y) {
    for (int x = 0; x < img.width(); ++x) {
      if ((img.pixel(x, y) & 0xffffff) != 0xffffff) ++ink;
    }
  }
  return static_cast<double>(ink) / (static_cast<double>(img.width()) * img.height());
}

/// `plot` exported as a PNG at the default export size (the print theme, 300 dpi).
QImage exportPng(ServingPlot& plot) {
  QByteArray png;
  QBuffer buf(&png);
  buf.open(QIODevice::WriteOnly);
  const QString err = qf::ui::writePlot(&plot, qf::ui::ExportFormat::Png, qf::ui::kExportWidthPx,
                                        qf::ui::kExportHeightPx, 1.0, buf);
  CHECK(err.isEmpty());
  return QImage::fromData(png, "PNG");
}

/// The legend's entries, in order.
QStringList legendEntries(const ServingPlot& plot) {
  QStringList names;
  for (int i = 0; i < plot.legend->itemCount(); ++i) {
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i))) {
      names << item->plottable()->name();
    }
  }
  return names;
}

/// Saves `img` under $QF_TEST_PNG_DIR when it is set (to look at the plot by eye).
void keep(const QImage& img, const QString& name) {
  const QString dir = qEnvironmentVariable("QF_TEST_PNG_DIR");
  if (!dir.isEmpty()) img.save(QDir(dir).filePath(name));
}

/// One synthetic run of candidate `id` at `rate` req/s ("inf": all at once): 40 requests
/// whose TTFT and TPOT grow with the load; `outLen` tokens each (`early`: every third request
/// stops at a quarter of that).
qf::ImportedRun sweepRun(const std::string& id, const std::string& rate, double ttftMs,
                         double tpotMs, std::int64_t outLen, bool early) {
  const double r = rate == "inf" ? 32 : std::stod(rate);
  qf::ImportedRun run;
  run.format = "vllm-serve";
  run.kind = qf::RunKind::Serving;
  run.sourceFile = id + "_rate" + rate + ".json";
  run.sha256 = std::string(64, 'a');
  run.setup[qf::kCandidateSetupKey] = id;
  run.setup["request_rate"] = rate;
  run.setup["max_concurrency"] = "none";
  std::int64_t tokens = 0;
  for (int i = 0; i < 40; ++i) {
    qf::RequestRecord q;
    q.ttftS = ttftMs * 1e-3 * (1 + r / 6) * (1 + 0.04 * (i % 9));
    const double tpot = tpotMs * 1e-3 * (1 + r / 12) * (1 + 0.02 * (i % 5));
    q.outputLen = early && i % 3 == 0 ? outLen / 4 : outLen;
    q.inputLen = 512;
    q.latencyS = q.ttftS + tpot * static_cast<double>(q.outputLen - 1);
    tokens += q.outputLen;
    run.requests.push_back(q);
  }
  const double served = std::min(r, 1000 / (tpotMs * 1.6));
  run.metrics["request_throughput_req_s"] = served;
  run.metrics["output_throughput_tok_s"] = served * static_cast<double>(tokens) / 40;
  // Goodput: most requests meet the SLO at low load; fewer of the slower candidate's at high.
  run.metrics["request_goodput_req_s"] = served * (r < 8 ? 0.95 : tpotMs > 10 ? 0.45 : 0.8);
  run.metrics["completed"] = 40;
  run.metrics["failed"] = 0;
  return run;
}

qf::Session syntheticSweep() {
  qf::Session s;
  for (const auto& [id, scheme] :
       {std::pair{"llama-8b-bf16", "bf16"}, std::pair{"llama-8b-w4a16", "w4a16-g128"}}) {
    qf::Candidate c;
    c.id = id;
    c.model = "llama-3.1-8b";
    c.schemeLinear = scheme;
    c.gpu = "h100-sxm";
    s.candidates.push_back(c);
  }
  for (const char* rate : {"8", "1", "inf", "2", "4"}) {
    s.importedRuns.push_back(sweepRun("llama-8b-bf16", rate, 30, 12, 128, false));
    s.importedRuns.push_back(sweepRun("llama-8b-w4a16", rate, 38, 7, 128, true));
  }
  return s;
}

/// Checks every drawn point of `plot` against the core figures in `sw`.
void checkAgainstCore(const ServingPlot& plot, const qf::ServingSweeps& sw) {
  for (const auto& g : sw.groups) {
    const QString id = QString::fromStdString(g.key);
    INFO(g.key);
    std::vector<const qf::ServingPoint*> pts;
    for (const auto& p : g.points) {
      if (p.load.kind == plot.loadKind()) pts.push_back(&p);
    }
    auto check = [&](Series s, auto value) {
      QCPGraph* graph = plot.series(id, s);
      REQUIRE(graph);
      REQUIRE(graph->data()->size() == static_cast<int>(pts.size()));
      for (std::size_t i = 0; i < pts.size(); ++i) {
        const auto it = graph->data()->at(static_cast<int>(i));
        CHECK(it->key == plot.xOf(pts[i]->load));
        CHECK(it->value == value(*pts[i]));
      }
    };
    check(Series::OutputThroughput,
          [](const qf::ServingPoint& p) { return *p.outputThroughputTokS; });
    check(Series::TtftP50, [](const qf::ServingPoint& p) { return p.ttftP50Ms->value; });
    check(Series::TtftP99, [](const qf::ServingPoint& p) { return p.ttftP99Ms->value; });
    check(Series::TpotP50, [](const qf::ServingPoint& p) { return p.tpotP50Ms->value; });
    check(Series::TpotP99, [](const qf::ServingPoint& p) { return p.tpotP99Ms->value; });
    check(Series::MeanLength, [](const qf::ServingPoint& p) { return *p.meanOutputTokens; });
    // Interval bars: value − lo below, hi − value above.
    QCPErrorBars* bars = plot.errorBars(id, Series::TpotP99);
    REQUIRE(bars);
    REQUIRE(bars->dataCount() == static_cast<int>(pts.size()));
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto& m = *pts[i]->tpotP99Ms;
      const auto e = bars->data()->at(static_cast<int>(i));
      CHECK(e.errorMinus == Approx(m.value - *m.lo));
      CHECK(e.errorPlus == Approx(*m.hi - m.value));
    }
    // A capacity line, where drawn, is the engine's figure.
    REQUIRE(g.capacity.has_value());
    if (const auto line = plot.capacityLine(id)) CHECK(*line == g.capacity->tokensPerS);
    // One colour per candidate in every panel.
    const QColor c = plot.series(id, Series::OutputThroughput)->pen().color();
    for (Series s :
         {Series::TtftP50, Series::TtftP99, Series::TpotP50, Series::TpotP99, Series::MeanLength}) {
      CHECK(plot.series(id, s)->pen().color() == c);
      CHECK(plot.series(id, s)->scatterStyle().shape() ==
            plot.series(id, Series::OutputThroughput)->scatterStyle().shape());
    }
  }
}

}  // namespace

TEST_CASE("serving plot: three vLLM files, one point per candidate, as core computes them",
          "[ui][serving]") {
  qf::testing::app();
  qf::Session s;
  const std::vector<std::string> tags = {"bf16", "fp8", "w4a16"};
  for (const auto& tag : tags) {
    auto rep = qf::importFile(kE2e + "/vllm_serve_" + tag + ".json");
    REQUIRE(rep.ok());
    qf::mergeImport(s, *rep);
  }
  // The three files name three checkpoints: one candidate per model.
  qf::AttachOptions opts;
  opts.gpu = "h100-sxm";
  REQUIRE(qf::attachRunsToCandidates(s, opts).ok());
  REQUIRE(s.candidates.size() == 3);
  // The measured points and capacity labels alone (the modelled curves have their own test).
  qf::ServingOptions measuredOnly;
  measuredOnly.modelledCurves = false;
  const qf::ServingSweeps sw = qf::servingSweeps(s, measuredOnly);
  REQUIRE(sw.groups.size() == 3);

  ServingPlot plot;
  plot.resize(1400, 900);
  plot.setData(sw);
  CHECK(plot.emptyText().isEmpty());
  CHECK(plot.candidateCount() == 3);
  CHECK(plot.loadKind() == qf::LoadKind::Concurrency);  // rate inf, max concurrency 8
  CHECK(plot.notes().isEmpty());
  // Output tok/s, TTFT and TPOT p50/p99, mean length each; the files have no goodput.
  CHECK(plot.seriesCount() == 3 * 6);
  checkAgainstCore(plot, sw);
  // And against the files themselves.
  for (const auto& tag : tags) {
    const auto file = nlohmann::json::parse(std::ifstream(kE2e + "/vllm_serve_" + tag + ".json"));
    const QString id = QString::fromStdString(file.at("model_id").get<std::string>());
    INFO(tag);
    CHECK(plot.series(id, Series::Goodput) == nullptr);
    const auto out = plot.series(id, Series::OutputThroughput)->data()->at(0);
    CHECK(out->key == 8);
    CHECK(out->value == file.at("output_throughput").get<double>());
    CHECK(plot.series(id, Series::TtftP99)->data()->at(0)->value ==
          Approx(file.at("p99_ttft_ms").get<double>()));
    CHECK(plot.series(id, Series::TpotP50)->data()->at(0)->value ==
          Approx(file.at("median_tpot_ms").get<double>()));
    CHECK(plot.series(id, Series::MeanLength)->data()->at(0)->value ==
          file.at("total_output_tokens").get<double>() / file.at("completed").get<double>());
  }
  // The schemes tell the candidates apart: each keeps its scheme's colour of the other plots.
  CHECK(plot.series(QString::fromStdString(sw.groups[1].key), Series::TtftP50)->pen().color() ==
        qf::ui::schemeColor("w8a8-fp8"));
  // Three candidates and the keys (p50, p99, capacity, rings) in the legend.
  CHECK(plot.legend->visible());
  CHECK(legendEntries(plot) ==
        QStringList{
            QString::fromStdString(sw.groups[0].key), QString::fromStdString(sw.groups[1].key),
            QString::fromStdString(sw.groups[2].key), "solid, filled: tok/s, p50, mean length",
            "dashed, hollow: p99 (bars: 95% CI)", "ringed: saturated, batch-1 point"});
  // The modelled capacities are far above what the files measured at concurrency 8: named
  // at the top of the throughput panel, no line.
  CHECK(plot.labels().count() == 3);
  for (const auto& g : sw.groups) {
    CHECK_FALSE(plot.capacityLine(QString::fromStdString(g.key)).has_value());
  }
  CHECK(plot.panel(Panel::Length)->axis(QCPAxis::atBottom)->label().contains("max concurrency"));

  plot.replot();
  const QImage img = plot.grab().toImage();
  CHECK(img.width() == 1400);
  CHECK(inkShare(img) > 0.02);
  keep(img, "serving_e2e.png");
  // Exported at the default size, every capacity label still finds a place.
  const QImage exported = exportPng(plot);
  CHECK(plot.labels().hiddenCount() == 0);
  CHECK(inkShare(exported) > 0.02);
  keep(exported, "serving_e2e_export.png");
}

TEST_CASE("serving plot: a rate sweep of two candidates, infinite rate at the right",
          "[ui][serving]") {
  qf::testing::app();
  qf::Session s = syntheticSweep();
  const qf::ServingSweeps sw = qf::servingSweeps(s);
  REQUIRE(sw.groups.size() == 2);
  ServingPlot plot;
  plot.resize(1400, 900);
  plot.setData(sw);
  CHECK(plot.loadKind() == qf::LoadKind::RequestRate);
  CHECK(plot.candidates() == QStringList{"llama-8b-bf16", "llama-8b-w4a16"});
  CHECK(plot.seriesCount() == 2 * 7);  // goodput too
  checkAgainstCore(plot, sw);
  // Rates 1, 2, 4, 8 where they are; inf right of 8, at 16.
  QCPGraph* out = plot.series("llama-8b-bf16", Series::OutputThroughput);
  REQUIRE(out->data()->size() == 5);
  const double xs[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; ++i) CHECK(out->data()->at(i)->key == xs[i]);
  CHECK(plot.xOf({qf::LoadKind::RequestRate, std::numeric_limits<double>::infinity(), {}}) == 16);
  // Goodput on the right axis, as the files give it.
  QCPGraph* good = plot.series("llama-8b-w4a16", Series::Goodput);
  REQUIRE(good);
  CHECK(good->valueAxis() == plot.yAxis2);
  CHECK(good->data()->at(0)->value == Approx(0.95));  // 1 req/s served, 95% within SLO
  CHECK(plot.yAxis2->visible());
  // The early stopper's shorter answers show: 3/4 of its requests at 128 tokens, ~1/3 at 32.
  const double mean = plot.series("llama-8b-w4a16", Series::MeanLength)->data()->at(0)->value;
  CHECK(mean == Approx((26 * 128 + 14 * 32) / 40.0));
  CHECK(plot.series("llama-8b-bf16", Series::MeanLength)->data()->at(0)->value == 128);
  // Two colours, two markers.
  CHECK(out->pen().color() !=
        plot.series("llama-8b-w4a16", Series::OutputThroughput)->pen().color());
  CHECK(out->scatterStyle().shape() !=
        plot.series("llama-8b-w4a16", Series::OutputThroughput)->scatterStyle().shape());

  plot.replot();
  const QImage img = plot.grab().toImage();
  CHECK(inkShare(img) > 0.02);
  keep(img, "serving_sweep.png");
  // Laid out at 900 px high, the plot can still be made smaller.
  CHECK(plot.minimumSizeHint().height() < 500);

  // The export wears the print theme on every panel, and gives a picture.
  {
    const qf::ui::PrintTheme theme(&plot);
    plot.replot();
    CHECK(plot.panel(Panel::Tpot)->axis(QCPAxis::atLeft)->labelFont().pointSize() == 9);
    CHECK(plot.panel(Panel::Length)->axis(QCPAxis::atBottom)->tickLabelFont().pointSize() == 8);
  }
  const QImage exported = exportPng(plot);
  REQUIRE_FALSE(exported.isNull());
  CHECK(exported.width() == qf::ui::kExportWidthPx);
  CHECK(inkShare(exported) > 0.02);
  keep(exported, "serving_sweep_export.png");
  // The screen's fonts are back on every panel.
  plot.replot();
  CHECK(plot.panel(Panel::Tpot)->axis(QCPAxis::atLeft)->labelFont() == plot.xAxis->labelFont());
  CHECK(plot.xAxis->labelFont().pointSize() == 11);

  // A run at a max concurrency is another sweep: not drawn on a request-rate axis, and said.
  qf::ImportedRun conc = sweepRun("llama-8b-bf16", "inf", 30, 12, 128, false);
  conc.setup["max_concurrency"] = "16";
  conc.sourceFile = "conc16.json";
  s.importedRuns.push_back(conc);
  plot.setData(qf::servingSweeps(s));
  CHECK(plot.series("llama-8b-bf16", Series::OutputThroughput)->data()->size() == 5);
  REQUIRE(plot.notes().size() == 1);
  CHECK(plot.notes()[0].startsWith("1 run(s) at a max concurrency not drawn"));
}

TEST_CASE("serving plot: without serving runs it says what to import", "[ui][serving]") {
  qf::testing::app();
  ServingPlot plot;
  plot.resize(1400, 900);
  // A new plot and one given a session without serving runs both show the empty state.
  CHECK(plot.emptyText() == ServingPlot::kEmptyText);
  qf::Session s;
  qf::ImportedRun eval;
  eval.format = "lm-eval-results";
  eval.kind = qf::RunKind::EvalResults;
  eval.sourceFile = "results.json";
  s.importedRuns.push_back(eval);
  plot.setData(qf::servingSweeps(s));
  CHECK(plot.emptyText().contains("Import vLLM or SGLang serving results"));
  CHECK(plot.emptyText().contains("to see throughput and latency against load"));
  CHECK(plot.seriesCount() == 0);
  CHECK(plot.candidateCount() == 0);
  CHECK_FALSE(plot.legend->visible());
  plot.replot();
  const QImage img = plot.grab().toImage();
  CHECK(inkShare(img) > 0.005);
  keep(img, "serving_empty.png");
  // Data hides the empty state; no data brings it back.
  plot.setData(qf::servingSweeps(syntheticSweep()));
  CHECK(plot.emptyText().isEmpty());
  plot.setData({});
  CHECK(plot.emptyText() == ServingPlot::kEmptyText);
}

TEST_CASE("serving plot: the serving model's curves beside the measured sweeps",
          "[ui][serving][modelled]") {
  qf::testing::app();
  const qf::Session s = syntheticSweep();
  const qf::ServingSweeps sw = qf::servingSweeps(s);
  ServingPlot plot;
  plot.resize(1400, 900);
  plot.setData(sw);
  for (const auto& g : sw.groups) {
    const QString id = QString::fromStdString(g.key);
    INFO(g.key);
    REQUIRE(g.modelled.size() == 2);
    for (const auto& curve : g.modelled) {
      // Every modelled load drawn where the measured loads are: the same x mapping.
      QCPGraph* tok = plot.modelledCurve(id, Panel::Throughput, curve.datasheet);
      QCPGraph* tpot = plot.modelledCurve(id, Panel::Tpot, curve.datasheet);
      REQUIRE(tok);
      REQUIRE(tpot);
      REQUIRE(tok->data()->size() == static_cast<int>(curve.points.size()));
      for (std::size_t i = 0; i < curve.points.size(); ++i) {
        const auto& p = curve.points[i];
        CHECK(tok->data()->at(static_cast<int>(i))->key == plot.xOf(p.load));
        CHECK(tok->data()->at(static_cast<int>(i))->value == p.outputTokS);
        CHECK(tpot->data()->at(static_cast<int>(i))->value == p.tpotMs);
      }
      // No TTFT drawn at or past saturation.
      QCPGraph* ttft = plot.modelledCurve(id, Panel::Ttft, curve.datasheet);
      REQUIRE(ttft);
      int finite = 0;
      for (const auto& p : curve.points) finite += p.ttftMs ? 1 : 0;
      CHECK(ttft->data()->size() == finite);
      CHECK(finite < static_cast<int>(curve.points.size()));
      // Calibrated and datasheet told apart by line style.
      CHECK(tok->pen().style() == (curve.datasheet ? Qt::DashDotDotLine : Qt::DashDotLine));
    }
  }
  // The calibrated curve's 80% interval is a band around it on every panel (the bundled H100
  // fit has a record); the datasheet curve has none.
  int bands = 0;
  for (int i = 0; i < plot.graphCount(); ++i) {
    QCPGraph* gr = plot.graph(i);
    if (gr->property("qf_role").toString() != "modelled-band" || !gr->channelFillGraph()) continue;
    ++bands;
    QCPGraph* low = gr->channelFillGraph();
    REQUIRE(low->data()->size() == gr->data()->size());
    for (int k = 0; k < gr->data()->size(); ++k)
      CHECK(low->data()->at(k)->value < gr->data()->at(k)->value);
  }
  for (const auto& g : sw.groups) {
    for (const auto& curve : g.modelled) {
      for (const auto& p : curve.points) {
        // Below saturation the throughput is the offered load: known, no band.
        CHECK(p.outputTokSInterval.has_value() == (!curve.datasheet && p.saturated));
        CHECK(p.tpotMsInterval.has_value() == !curve.datasheet);
        if (!p.tpotMsInterval) continue;
        CHECK(p.tpotMsInterval->first < p.tpotMs);
        CHECK(p.tpotMsInterval->second > p.tpotMs);
      }
    }
  }
  CHECK(bands >= 2 * static_cast<int>(sw.groups.size()));
  // The legend keys name both, and the band.
  QStringList names;
  for (int i = 0; i < plot.graphCount(); ++i) names << plot.graph(i)->name();
  CHECK(names.contains("dash-dot: modelled, calibrated"));
  CHECK(names.contains("dash-dot-dot: modelled, datasheet"));
  CHECK(names.contains("shaded: the model's 80% interval (constants' spread)"));
  // One mark per overtake core found, named.
  REQUIRE(plot.overtakeLabels().size() == static_cast<int>(sw.overtakes.size()));
  for (int i = 0; i < plot.overtakeLabels().size(); ++i) {
    CHECK(plot.overtakeLabels()[i].contains(" overtakes "));
    CHECK(plot.overtakeLabels()[i].contains(QString::fromStdString(sw.overtakes[i].ahead)));
    CHECK(plot.overtakeLabels()[i].endsWith(QString::number(sw.overtakes[i].load, 'g', 3) +
                                            " req/s"));
  }
  plot.replot();
  keep(plot.grab().toImage(), "serving_modelled.png");
}

TEST_CASE("serving plot at 1280 x 720: overtake labels never cover each other, labels fit",
          "[ui][serving][labels]") {
  qf::testing::app();
  qf::ServingSweeps sw = bundledSweeps();
  REQUIRE_FALSE(sw.overtakes.empty());
  // Two more crossings close to the first, as three schemes' curves give on a small panel.
  for (double f : {1.1, 1.25}) {
    qf::ServingOvertake o = sw.overtakes.front();
    o.load *= f;
    sw.overtakes.push_back(o);
  }
  ServingPlot plot;
  plot.setData(sw);
  // The Serving tab's plot in a 1280 x 720 window: a TPOT panel about 70 px tall.
  plot.setViewport(QRect(0, 0, 860, 440));
  plot.replot(QCustomPlot::rpImmediateRefresh);
  std::vector<QRectF> boxes;
  QRect panel;
  for (int i = 0; i < plot.itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(plot.item(i));
    if (!label || label->property("qf_role").toString() != "overtake" || !label->visible())
      continue;
    panel = label->clipAxisRect()->rect();
    const QFontMetricsF fm(label->font());
    const QRectF text =
        fm.boundingRect(QRectF(0, 0, 4000, 4000), Qt::AlignLeft | Qt::AlignTop, label->text());
    boxes.emplace_back(label->position->pixelPosition(), text.size());
  }
  REQUIRE_FALSE(boxes.empty());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    CHECK(panel.contains(boxes[i].toAlignedRect().adjusted(1, 1, -1, -1)));
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      INFO(i << " and " << j);
      CHECK_FALSE(boxes[i].adjusted(1, 1, -1, -1).intersects(boxes[j].adjusted(1, 1, -1, -1)));
    }
  }
  // Every panel's y label fits along its panel (a short one when the long one would not).
  for (auto p :
       {ServingPlot::Panel::Throughput, ServingPlot::Panel::Ttft, ServingPlot::Panel::Tpot}) {
    QCPAxis* y = plot.panel(p)->axis(QCPAxis::atLeft);
    const QFontMetrics fm(y->labelFont());
    int longest = 0;
    for (const QString& line : y->label().split('\n'))
      longest = std::max(longest, fm.horizontalAdvance(line));
    INFO(y->label().toStdString());
    CHECK(longest <= plot.panel(p)->rect().height());
  }
}

TEST_CASE("serving plot: an overtake of the bundled sweep is marked and named",
          "[ui][serving][modelled]") {
  qf::testing::app();
  const qf::ServingSweeps sw = bundledSweeps();
  REQUIRE_FALSE(sw.overtakes.empty());
  ServingPlot plot;
  plot.resize(1400, 900);
  plot.setData(sw);
  REQUIRE(plot.overtakeLabels().size() == static_cast<int>(sw.overtakes.size()));
  // The size the window's Serving tab gives the plot at 1400x900.
  plot.setViewport(QRect(0, 0, 960, 640));
  plot.replot(QCustomPlot::rpImmediateRefresh);
  // Each label lies inside its panel, on whichever side of its line it is drawn.
  int shown = 0;
  for (int i = 0; i < plot.itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(plot.item(i));
    if (!label || label->property("qf_role").toString() != "overtake") continue;
    ++shown;
    const QRect panel = label->clipAxisRect()->rect();
    const QFontMetricsF fm(label->font());
    double width = 0;
    for (const QString& line : label->text().split('\n'))
      width = std::max(width, fm.horizontalAdvance(line));
    const double x = label->position->pixelPosition().x();
    const bool rightAligned = (label->positionAlignment() & Qt::AlignRight) != 0;
    INFO(label->text().toStdString());
    CHECK((rightAligned ? x - width : x) >= panel.left());
    CHECK((rightAligned ? x : x + width) <= panel.right());
  }
  CHECK(shown == plot.overtakeLabels().size());
  for (int i = 0; i < plot.overtakeLabels().size(); ++i) {
    const auto& o = sw.overtakes[i];
    INFO(plot.overtakeLabels()[i].toStdString());
    CHECK(plot.overtakeLabels()[i] == QString("%1 overtakes %2 at %3 req/s")
                                          .arg(QString::fromStdString(o.ahead),
                                               QString::fromStdString(o.behind),
                                               QString::number(o.load, 'g', 3)));
    // Between two finite rates of the grid, never at the saturated end.
    CHECK(o.load > 1);
    CHECK(std::isfinite(o.load));
    // Under load FP8 runs ahead of W4A16 on an H100 (arXiv:2411.02355 measures W8A8-FP8 at
    // 1.77x and W4A16 at 1.55x BF16's asynchronous throughput), never the reverse.
    const bool w4Behind = o.behind.find("w4a16") != std::string::npos;
    const bool fp8Ahead = o.ahead.find("FP8") != std::string::npos;
    CHECK((w4Behind && fp8Ahead));
  }
}
