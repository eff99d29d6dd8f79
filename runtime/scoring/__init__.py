"""Scoring: per-task rows, the stratified task-cluster bootstrap, the gate, report.json. See README.md."""

from runtime.scoring.score import ScoreResult, check_scoreable, score_result_set
from runtime.scoring.spec import ScoringSpec

__all__ = ["ScoreResult", "ScoringSpec", "check_scoreable", "score_result_set"]
