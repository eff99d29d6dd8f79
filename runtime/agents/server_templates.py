"""What known server chat templates do to a request, so a run can say what its model did not see.

A run names the server's template with ``--server-template`` (identity: it decides what the model
sees). For a known template, the agent works around what it can and the run manifest and report carry
a warning for what it cannot. An unknown or unnamed template gives no warning: nothing is claimed.

llama-cpp-python 0.3.36, read from ``llama_cpp/llama_chat_format.py`` and confirmed by the recorded
fixtures (``tests/fixtures/llm/README.md``):

* ``chatml-function-calling`` renders each tool's name and parameters but not its description, has
  no branch for ``role: tool`` (the result's content is dropped) and HTML-escapes message text.
  Native mode carries tool results as user text (``transcript.tool_results_as_text``) to keep them.
* ``chatml`` renders system, user and assistant text as given and drops any other role; with
  constrained decoding the transcript has no other role, so the model sees the whole prompt.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TemplateFacts:
    renders_tools: bool = True  # the native ``tools`` field reaches the prompt
    drops_tool_descriptions: bool = False
    drops_tool_results: bool = False
    escapes_html: bool = False


KNOWN_TEMPLATES: dict[str, TemplateFacts] = {
    "chatml-function-calling": TemplateFacts(
        drops_tool_descriptions=True, drops_tool_results=True, escapes_html=True
    ),
    "chatml": TemplateFacts(renders_tools=False, drops_tool_results=True),
}


def results_as_text_needed(template: str | None, *, constrained: bool) -> bool:
    """Whether native mode must carry tool results as user text for this template."""
    facts = KNOWN_TEMPLATES.get(template or "")
    return bool(facts and facts.drops_tool_results and not constrained)


def template_warnings(template: str | None, *, constrained: bool) -> list[str]:
    """What the model does not see, or sees otherwise than counted, under ``template``."""
    facts = KNOWN_TEMPLATES.get(template or "")
    if facts is None:
        return []
    warnings = []
    if facts.drops_tool_descriptions and not constrained:
        warnings.append(
            f"server template {template}: tool descriptions are not rendered; the model sees each tool's "
            "name and parameters only, while the engine counts the whole schema"
        )
    if facts.escapes_html:
        warnings.append(
            f'server template {template}: message text is HTML-escaped (" becomes &#34;), so the server '
            "counts more prompt tokens than the engine"
        )
    if not constrained and not facts.renders_tools:
        warnings.append(
            f"server template {template}: the tools field is not rendered, so the model sees no tool; "
            "use constrained decoding"
        )
    return warnings
