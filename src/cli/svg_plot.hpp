// Line plots as self-contained SVG text: what `coreset sweep` and `coreset experiment` draw, so
// that a picture opens in any browser with nothing else installed (no Python, no library).
#pragma once

#include <string>
#include <vector>

namespace coreset::cli {

struct PlotSeries {
  std::string name;  ///< the legend's label
  std::vector<double> x;
  std::vector<double> y;
  /// Optional band around the line (e.g. a percentile range), one low and high per x; empty:
  /// none.
  std::vector<double> low;
  std::vector<double> high;
};

struct LinePlot {
  std::string title;
  std::string subtitle;  ///< a second, smaller title line; empty: none
  std::string x_label;
  std::string y_label;
  std::vector<PlotSeries> series;
  int width = 860;
  int height = 520;
};

/// The plot as an SVG document. An axis is logarithmic when all its values are > 0 and span at
/// least a factor of 10 (budgets k, errors and KLs usually do), else linear. On a logarithmic
/// axis points <= 0 (a KL of exactly 0, say) cannot be drawn: they are left out, the line is
/// broken there, and the legend says how many were left out. Non-finite values are left out
/// the same way.
std::string render_svg_line_plot(const LinePlot& plot);

}  // namespace coreset::cli
