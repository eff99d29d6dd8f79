"""Gate statistics: ``@statistic(name, compares=...)`` registers how a criterion's value is read; see
``registry.py``."""

from __future__ import annotations

from runtime.scoring.statistics.registry import (
    RegisteredStatistic,
    StatisticInput,
    registered_statistics,
    statistic,
)

__all__ = ["RegisteredStatistic", "StatisticInput", "registered_statistics", "statistic"]
