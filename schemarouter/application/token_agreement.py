"""Does the server's reported prompt size agree with the engine's count? Per model turn, per mode.

The engine counts every prompt with its frozen recipe (cl100k_base, spec/engine.yaml); a server counts
with its own model's tokenizer and template. The two can only agree within a tolerance, stated here
per mode for llama-cpp-python with Gemma 3 270M, with why (measured on tests/fixtures/llm/engine_turns,
see its README). A ratio below ``low`` means the server saw less than was counted (what issue #15
found: 12,956 server tokens against 39,259 counted, the tool schemas missing from the prompt).

Both llama.cpp templates wrap every message in chatml markers, ``<|im_start|>ROLE\n`` and
``<|im_end|>\n``: 15 Gemma tokens a message (``make llm-test`` checks this with the GGUF's vocabulary),
where the engine's recipe charges 4 (3 of overhead and the role). The comparison takes that known
difference off the server's count, ``(15 - 4) * messages``, and compares what remains, the messages'
own text, with the engine's count.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from runtime.engine.trace import EpisodeTrace, read_trace
from runtime.run.store import EpisodeStore

TEMPLATE_TOKENS_PER_MESSAGE = 15  # chatml markers in Gemma 3's tokens
RECIPE_TOKENS_PER_MESSAGE = 4  # spec/engine.yaml per_message_overhead 3, plus the role's one token


def compared_ratio(server: int, engine: int, messages: int) -> float:
    """The server's count less the template's known per-message markers, over the engine's count."""
    markers = (TEMPLATE_TOKENS_PER_MESSAGE - RECIPE_TOKENS_PER_MESSAGE) * messages
    return (server - markers) / engine


@dataclass(frozen=True)
class Tolerance:
    low: float
    high: float
    why: str

    def holds(self, ratio: float) -> bool:
        return self.low <= ratio <= self.high


TOLERANCES: Mapping[str, Tolerance] = {
    "constrained": Tolerance(
        0.90,
        1.30,
        "(server prompt_tokens - chatml markers) / engine input_tokens. Gemma 3's tokenizer gives 13-20% "
        "more tokens than cl100k_base on the same texts, and the transcript's two framing lines (about 25 "
        "tokens a prompt) are outside the engine's recipe",
    ),
    "native": Tolerance(
        0.90,
        1.50,
        "as constrained, plus chatml-function-calling's preamble and its HTML escaping of message text "
        '(" becomes &#34;), which grows with the history; the descriptions it drops are a recorded warning',
    ),
}


def mode_of(constrained: bool) -> str:
    return "constrained" if constrained else "native"


class Agreement(TypedDict):
    """How many model turns agree within the tolerance, the ratios' spread and the token totals."""

    turns: int
    within: int
    tolerance: list[float]
    ratio_min: float | None
    ratio_median: float | None
    ratio_max: float | None
    engine_tokens: int
    server_tokens: int
    outside: list[str]


class ModeAgreement(Agreement):
    """An ``Agreement`` under one mode (``constrained`` or ``native``)."""

    mode: str


@dataclass(frozen=True)
class TurnTokens:
    label: str
    engine: int
    server: int
    messages: int

    @property
    def ratio(self) -> float:
        return compared_ratio(self.server, self.engine, self.messages)


def turn_tokens(traces: Iterable[EpisodeTrace]) -> list[TurnTokens]:
    """Every model turn that carries the server's usage, beside the engine's count of that prompt."""
    out = []
    for trace in traces:
        for turn in trace.turns:
            usage = (turn.model_call or {}).get("usage")
            server = usage.get("prompt_tokens") if isinstance(usage, dict) else None
            if isinstance(server, int) and turn.input_tokens:
                label = f"{trace.task_id} | {trace.condition} | {trace.catalog} | turn {turn.turn}"
                # System, user, and two messages (call, result) for every earlier turn of the episode.
                messages = 2 + 2 * (turn.turn - 1)
                out.append(TurnTokens(label, turn.input_tokens, server, messages))
    return out


def agreement(turns: list[TurnTokens], tolerance: Tolerance) -> Agreement:
    ratios = [t.ratio for t in turns]
    return {
        "turns": len(turns),
        "within": sum(1 for r in ratios if tolerance.holds(r)),
        "tolerance": [tolerance.low, tolerance.high],
        "ratio_min": round(min(ratios), 3) if ratios else None,
        "ratio_median": round(statistics.median(ratios), 3) if ratios else None,
        "ratio_max": round(max(ratios), 3) if ratios else None,
        "engine_tokens": sum(t.engine for t in turns),
        "server_tokens": sum(t.server for t in turns),
        "outside": [t.label for t in turns if not tolerance.holds(t.ratio)][:10],
    }


def run_agreement(run_dir: Path, *, constrained: bool) -> ModeAgreement:
    """The agreement over every committed episode of a run directory."""
    with EpisodeStore(run_dir, readonly=True) as store:
        stored = (store.read_trace(k) for k in sorted(store.committed_keys()))
        traces = [read_trace(text) for text in stored if text is not None]
    mode = mode_of(constrained)
    return {"mode": mode, **agreement(turn_tokens(traces), TOLERANCES[mode])}


def agreement_line(summary: ModeAgreement) -> str:
    low, high = summary["tolerance"]
    return (
        f"token agreement ({summary['mode']}): {summary['within']} of {summary['turns']} turns within "
        f"(server - chatml markers)/engine [{low}, {high}]; ratio min {summary['ratio_min']}, "
        f"median {summary['ratio_median']}, max {summary['ratio_max']}; "
        f"server {summary['server_tokens']:,} vs engine {summary['engine_tokens']:,} prompt tokens"
    )
