"""A policy's proof (``quietload policy``) -> a section of the report: the worst night it was proven for,
each neighbour's p99 against its SLA with the policy and the same night without it, and the classes
with their rules. Figures are taken as the proof file holds them (each at its worst held-out seed)."""
from __future__ import annotations

from html import escape
from typing import Any

from reports.kit.tables import format_ms, html_table, markdown_table
from simulator.contract.judgement import over
from workloads.units import format_seeds
from workloads.settings import BATCH_SIZE_CONFIG, COMPRESSION_TYPE_CONFIG, LINGER_MS_CONFIG

NIGHT_HEADER = ["neighbour", "SLA p99", "p99 during, with the policy", "within SLA", "p99 during, without", "within SLA"]
CLASS_HEADER = ["class", "client.id", "linger.ms at least", "batch.size at least", COMPRESSION_TYPE_CONFIG, "acks",
                "producer_byte_rate per broker, at most", "request_percentage per broker, at most", "proven for"]


def _within(tenant: dict[str, Any]) -> str:
    """Within its SLA on every seed, as the proof says (else by its worst p99 against the SLA shown)."""
    within = tenant.get("within_sla")
    if within is None:
        p99, sla = tenant.get("p99_ms_during"), tenant.get("sla_p99_ms")
        within = None if p99 is None or sla is None else not over(p99, sla)
    return "-" if within is None else ("yes" if within else "NO")


def night_rows(proof: dict[str, Any]) -> list[list[str]]:
    without = {t["name"]: t for t in proof["without_policy"]["tenants"]}
    rows = []
    for tenant in proof["with_policy"]["tenants"]:
        other = without.get(tenant["name"], {})
        rows.append([tenant["name"], format_ms(tenant["sla_p99_ms"]), format_ms(tenant["p99_ms_during"]),
                     _within(tenant), format_ms(other.get("p99_ms_during")), _within(other)])
    with_policy, without_policy = proof["with_policy"], proof["without_policy"]
    rows.append(["the night's load", "", f"{with_policy['load_seconds']:,.1f} s", "", f"{without_policy['load_seconds']:,.1f} s", ""])
    rows.append(["produce requests", "", f"{with_policy['produce_requests']:,}", "", f"{without_policy['produce_requests']:,}", ""])
    return rows


def class_rows(proof: dict[str, Any]) -> list[list[str]]:
    rows = []
    for job_class in proof["policy"].get("classes", []):
        producer, quota, proven = job_class.get("producer", {}), job_class.get("quota", {}), job_class.get("proven")
        rows.append([job_class["name"], ", ".join(job_class.get("match", {}).get("client.id", [])),
                     str(producer.get(LINGER_MS_CONFIG, "-")), str(producer.get(BATCH_SIZE_CONFIG, "-")),
                     ", ".join(producer.get(COMPRESSION_TYPE_CONFIG, [])) or "-", str(producer.get("acks", "-")),
                     str(quota.get("producer_byte_rate", "-")), str(quota.get("request_percentage", "-")),
                     f"{proven['jobs_at_once']} at once, seeds {proven.get('seeds', '-')}" if proven else "not proven"])
    return rows


def _headline(proof: dict[str, Any]) -> list[str]:
    verdict = "holds every neighbour's SLA" if proof["held"] else "does NOT hold every neighbour's SLA"
    jobs = proof["jobs"]
    return [f"The policy {verdict} on the worst night the scenario allows: {len(jobs)} job{'s' if len(jobs) != 1 else ''} "
            f"at once ({', '.join(jobs)}; {proof['jobs_at_once']} of each class), every one at the policy's bounds, "
            f"on held-out model {format_seeds(proof['held_out_seeds'])} (each figure at its worst seed; "
            f"the search ran {proof['trials']} trials on {format_seeds(proof['model_seeds'])})",
            "Without the policy: the same night with the jobs' own settings and quotas"]


def render_policy_markdown(proof: dict[str, Any]) -> str:
    return "\n".join([f"## Policy: {proof['scenario']}", "", *(f"{line}." for line in _headline(proof)), "",
                      *markdown_table(NIGHT_HEADER, night_rows(proof)), "",
                      *markdown_table(CLASS_HEADER, class_rows(proof)), "", *(f"- {note}" for note in proof["notes"]), ""])


def render_policy_html(proof: dict[str, Any]) -> str:
    return "\n".join([f"<h2>Policy: {escape(proof['scenario'])}</h2>", *(f"<p>{escape(line)}.</p>" for line in _headline(proof)),
                      html_table(NIGHT_HEADER, night_rows(proof)), html_table(CLASS_HEADER, class_rows(proof)),
                      "<ul>", *(f"<li>{escape(note)}</li>" for note in proof["notes"]), "</ul>"])
