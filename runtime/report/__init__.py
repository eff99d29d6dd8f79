"""Human-facing report of a scored run: report.md and PNG plots (matplotlib, Agg). See README.md."""
