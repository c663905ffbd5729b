"""The Prometheus text format the JMX exporter serves, as plain samples: the live stack scrapes it and
quietload import reads it (34 lines; no client library needed for this much)."""
from __future__ import annotations

import re

_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text format -> ``{'name{label="value",...}': value}`` with labels sorted."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if "{" in line:
            name, labels, value = line[:line.index("{")], line[line.index("{") + 1:line.rindex("}")], line[line.rindex("}") + 1:]
            pairs = sorted(_LABEL.findall(labels))
            name += "{" + ",".join(f'{k}="{v}"' for k, v in pairs) + "}"
        else:
            name, value = line.split(maxsplit=1)
        samples[name] = float(value.split()[0])
    return samples


def sample_labels(sample: str) -> dict[str, str]:
    """A sample's labels by name (``name{a="1",b="2"}`` -> ``{"a": "1", "b": "2"}``)."""
    return dict(_LABEL.findall(sample.partition("{")[2]))


def metric_sum(metrics: dict[str, float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (e.g. over protocol versions)."""
    wanted = set(labels.items())
    return sum(value for key, value in metrics.items() if key.partition("{")[0] == name
               and wanted <= set(_LABEL.findall(key.partition("{")[2])))
