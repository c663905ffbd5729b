"""How sure a verdict is: the model's own error as a margin on each neighbour's SLA.

At its latest validation the model's neighbour p99 during the load was a median factor off the
rig's (``workloads.profile.ModelError``, in each profile). A p99 within its SLA by less than that
factor (``p99 x factor > SLA``) could be over it on the real cluster: such a pass, or such a pick, is
*marginal*, and says so with the factor used. ``--margin`` sets the factor (1: no margin); by
default it is the scenario's profile's. A study prefers the picks that hold with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from simulator.contract.explain import sla_figure
from workloads import CostProfile, ScenarioError


@dataclass(frozen=True)
class Margin:
    factor: float = 1.0
    source: str = "no margin"

    @classmethod
    def of(cls, profile: CostProfile | str | None, given: float | None = None) -> "Margin":
        """``given`` (``--margin``), else the profile's neighbour p99 error, else none."""
        if given is not None:
            if given < 1:
                raise ScenarioError("--margin", f"a margin is a factor of at least 1 (1: none), got {given:g}")
            return cls(given, "--margin")
        if isinstance(profile, str):
            try:
                profile = CostProfile.load(profile)
            except ScenarioError:   # a profile file that is not here: no figure to take
                return cls()
        error = profile.error if profile is not None else None
        return cls(error.neighbour_p99_during, error.describe()) if error is not None else cls()

    def holds(self, p99_ms: float, sla_ms: float) -> bool:
        """Whether ``p99_ms`` keeps its SLA with the margin: ``p99 x factor <= SLA``."""
        return p99_ms * self.factor <= sla_ms

    def holds_constraints(self, constraints: dict[str, float]) -> bool:
        """A trial's constraints (``sla:NAME`` is p99 / SLA - 1) all met, each SLA with the margin."""
        return all((value + 1.0) * self.factor <= 1.0 if key.startswith("sla:") else value <= 0
                   for key, value in constraints.items())

    def marginal(self, tenants: Iterable[tuple[str, float | None, float | None]]) -> str:
        """The sentence saying which neighbours within their SLA are within the margin of it, or ``""``."""
        if self.factor <= 1:
            return ""
        close = [(name, p99, sla) for name, p99, sla in tenants
                 if p99 is not None and sla is not None and p99 <= sla and not self.holds(p99, sla)]
        if not close:
            return ""
        figures = ", ".join(f"{name} {p99:,.2f} ms x {self.factor:g} = {p99 * self.factor:,.1f} ms > SLA {sla_figure(sla)} ms"
                            for name, p99, sla in close)
        return (f"marginal: within the model's error of the SLA ({figures}); the factor: {self.source}; "
                "--margin 1 judges without it")


def tenants_of(figures: dict[str, Any]) -> list[tuple[str, float | None, float | None]]:
    """(name, p99 during, SLA) of a trial's or a night's figures (``tenants``: a mapping by name)."""
    return [(name, t.get("p99_ms_during"), t.get("sla_p99_ms")) for name, t in figures.get("tenants", {}).items()]
