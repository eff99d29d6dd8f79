"""Agents: a Protocol, a registry, the deterministic reference agent and the adversarial test agent."""

from runtime.agents.protocol import (
    Agent,
    AgentView,
    BadOutput,
    CannotProceed,
    Decision,
    FinalAnswer,
    ToolCall,
)
from runtime.agents.registry import agent_names, make_agent, register_agent

__all__ = [
    "Agent",
    "AgentView",
    "BadOutput",
    "CannotProceed",
    "Decision",
    "FinalAnswer",
    "ToolCall",
    "agent_names",
    "make_agent",
    "register_agent",
]
