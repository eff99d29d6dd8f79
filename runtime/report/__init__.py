"""Human-facing report of a scored run: report.md, report.html (figures as inline SVG) and, on request,
PNG plots (matplotlib, Agg). See README.md."""
