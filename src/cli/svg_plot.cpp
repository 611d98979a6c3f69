#include "cli/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace coreset::cli {
namespace {

// Colour-blind-safe (Okabe-Ito), distinct in greyscale print too.
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr int kColourCount = sizeof(kColours) / sizeof(kColours[0]);

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

// A tick label: plain decimals in the readable range, else scientific.
std::string tick_label(double value) {
  char buffer[32];
  const double magnitude = std::fabs(value);
  if (value == 0.0) {
    return "0";
  }
  if (magnitude >= 1e-4 && magnitude < 1e6) {
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.0e", value);
  }
  return buffer;
}

// One axis: its range, its scale and its ticks.
struct Axis {
  bool log = false;
  double low = 0.0;  // in axis units (log10 of the value on a log axis)
  double high = 1.0;
  std::vector<double> ticks;  // values, not axis units

  double unit(double value) const { return log ? std::log10(value) : value; }
  bool drawable(double value) const { return std::isfinite(value) && (!log || value > 0.0); }
  double fraction(double value) const { return (unit(value) - low) / (high - low); }
};

Axis make_axis(const std::vector<double>& values) {
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  bool positive = true;
  for (const double v : values) {
    if (std::isfinite(v)) {
      low = std::min(low, v);
      high = std::max(high, v);
      positive = positive && v > 0.0;
    }
  }
  Axis axis;
  if (!(low <= high)) {  // nothing drawable: a linear 0 to 1 (a log axis from 0 never ends)
    low = 0.0;
    high = 1.0;
    positive = false;
  }
  axis.log = positive && high >= 10.0 * low;
  if (axis.log) {
    axis.low = std::floor(std::log10(low));
    axis.high = std::ceil(std::log10(high));
    if (axis.high <= axis.low) {
      axis.high = axis.low + 1.0;
    }
    const bool few_decades = axis.high - axis.low <= 2.0;
    for (double e = axis.low; e <= axis.high; ++e) {
      for (const double m : {1.0, 2.0, 5.0}) {
        const double value = m * std::pow(10.0, e);
        if ((m == 1.0 || few_decades) && std::log10(value) <= axis.high + 1e-9) {
          axis.ticks.push_back(value);
        }
      }
    }
    return axis;
  }
  if (high - low < 1e-300) {
    const double pad = low == 0.0 ? 1.0 : std::fabs(low) * 0.1;
    low -= pad;
    high += pad;
  }
  // Nice steps of 1, 2 or 5 x 10^m, about six ticks.
  const double raw = (high - low) / 6.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) {
      break;
    }
  }
  axis.low = std::floor(low / step) * step;
  axis.high = std::ceil(high / step) * step;
  for (double t = axis.low; t <= axis.high + step * 1e-9; t += step) {
    axis.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return axis;
}

}  // namespace

std::string render_svg_line_plot(const LinePlot& plot) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const PlotSeries& s : plot.series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
    ys.insert(ys.end(), s.low.begin(), s.low.end());
    ys.insert(ys.end(), s.high.begin(), s.high.end());
  }
  Axis x_axis = make_axis(xs);
  Axis y_axis = make_axis(ys);
  // A log axis drops the values <= 0; its range comes from the drawable ones only.
  if (y_axis.log) {
    std::vector<double> positive;
    for (const double v : ys) {
      if (v > 0.0) {
        positive.push_back(v);
      }
    }
    y_axis = make_axis(positive);
  }

  // The legend lives to the right of the plot, as wide as its longest label needs (about 7.5
  // pixels per character at 13 px; the dropped-point note adds up to 16 characters).
  std::size_t longest = 0;
  for (const PlotSeries& s : plot.series) {
    longest = std::max(longest, s.name.size() + 16);
  }
  const double legend_width =
      std::min(0.45 * plot.width, 60.0 + 7.5 * static_cast<double>(longest));
  const double left = 90.0;
  const double right = plot.width - legend_width;
  const double top = plot.subtitle.empty() ? 50.0 : 68.0;
  const double bottom = plot.height - 60.0;
  const auto px = [&](double x) { return left + x_axis.fraction(x) * (right - left); };
  const auto py = [&](double y) { return bottom - y_axis.fraction(y) * (bottom - top); };

  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(plot.width) +
         "\" height=\"" + std::to_string(plot.height) + "\" viewBox=\"0 0 " +
         std::to_string(plot.width) + " " + std::to_string(plot.height) +
         "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" font-size=\"13\">\n";
  svg += "<title>" + escape(plot.title) + "</title>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(plot.width / 2.0) +
         "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
         escape(plot.title) + "</text>\n";
  if (!plot.subtitle.empty()) {
    svg += "<text x=\"" + number(plot.width / 2.0) +
           "\" y=\"44\" text-anchor=\"middle\" font-size=\"12\" fill=\"#444\">" +
           escape(plot.subtitle) + "</text>\n";
  }

  // Grid and ticks.
  svg += "<g stroke=\"#ddd\" stroke-width=\"1\">\n";
  for (const double t : x_axis.ticks) {
    svg += "<line x1=\"" + number(px(t)) + "\" y1=\"" + number(top) + "\" x2=\"" + number(px(t)) +
           "\" y2=\"" + number(bottom) + "\"/>\n";
  }
  for (const double t : y_axis.ticks) {
    svg += "<line x1=\"" + number(left) + "\" y1=\"" + number(py(t)) + "\" x2=\"" + number(right) +
           "\" y2=\"" + number(py(t)) + "\"/>\n";
  }
  svg += "</g>\n";
  svg += "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" +
         number(right - left) + "\" height=\"" + number(bottom - top) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
  svg += "<g fill=\"#222\" font-size=\"12\">\n";
  for (const double t : x_axis.ticks) {
    svg += "<text x=\"" + number(px(t)) + "\" y=\"" + number(bottom + 18) +
           "\" text-anchor=\"middle\">" + tick_label(t) + "</text>\n";
  }
  for (const double t : y_axis.ticks) {
    svg += "<text x=\"" + number(left - 8) + "\" y=\"" + number(py(t) + 4) +
           "\" text-anchor=\"end\">" + tick_label(t) + "</text>\n";
  }
  svg += "</g>\n";
  const std::string x_label = plot.x_label + (x_axis.log ? " (log scale)" : "");
  const std::string y_label = plot.y_label + (y_axis.log ? " (log scale)" : "");
  svg += "<text x=\"" + number((left + right) / 2) + "\" y=\"" + number(plot.height - 18.0) +
         "\" text-anchor=\"middle\">" + escape(x_label) + "</text>\n";
  svg += "<text transform=\"translate(22," + number((top + bottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + escape(y_label) + "</text>\n";

  // Bands, then lines and points, then the legend.
  double legend_y = top + 10.0;
  for (std::size_t s = 0; s < plot.series.size(); ++s) {
    const PlotSeries& series = plot.series[s];
    const std::string colour = kColours[s % kColourCount];
    const std::size_t count = std::min(series.x.size(), series.y.size());
    if (series.low.size() == count && series.high.size() == count && count > 0) {
      std::string upper;
      std::string lower;
      for (std::size_t i = 0; i < count; ++i) {
        if (x_axis.drawable(series.x[i]) && y_axis.drawable(series.low[i]) &&
            y_axis.drawable(series.high[i])) {
          upper += number(px(series.x[i])) + "," + number(py(series.high[i])) + " ";
          lower = number(px(series.x[i])) + "," + number(py(series.low[i])) + " " + lower;
        }
      }
      if (!upper.empty()) {
        svg += "<polygon points=\"" + upper + lower + "\" fill=\"" + colour +
               "\" fill-opacity=\"0.15\" stroke=\"none\"/>\n";
      }
    }
    std::string path;
    std::string points;
    int dropped = 0;
    bool pen_down = false;
    for (std::size_t i = 0; i < count; ++i) {
      if (!x_axis.drawable(series.x[i]) || !y_axis.drawable(series.y[i])) {
        ++dropped;
        pen_down = false;  // break the line where a point cannot be drawn
        continue;
      }
      const std::string at = number(px(series.x[i])) + "," + number(py(series.y[i]));
      path += (pen_down ? " L" : " M") + at;
      pen_down = true;
      points += "<circle cx=\"" + number(px(series.x[i])) + "\" cy=\"" + number(py(series.y[i])) +
                "\" r=\"3.5\"/>";
    }
    svg += "<g fill=\"" + colour + "\" stroke=\"" + colour + "\">\n";
    if (!path.empty()) {
      svg += "<path d=\"" + path + "\" fill=\"none\" stroke-width=\"2\"/>\n";
    }
    svg += points + "\n</g>\n";
    std::string label = series.name;
    if (dropped > 0) {
      label += " (" + std::to_string(dropped) + " not drawn)";
    }
    const double lx = right + 16.0;
    svg += "<line x1=\"" + number(lx) + "\" y1=\"" + number(legend_y) + "\" x2=\"" +
           number(lx + 24) + "\" y2=\"" + number(legend_y) + "\" stroke=\"" + colour +
           "\" stroke-width=\"2\"/><circle cx=\"" + number(lx + 12) + "\" cy=\"" +
           number(legend_y) + "\" r=\"3.5\" fill=\"" + colour + "\"/>\n";
    svg += "<text x=\"" + number(lx + 32) + "\" y=\"" + number(legend_y + 4) + "\">" +
           escape(label) + "</text>\n";
    legend_y += 22.0;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace coreset::cli
