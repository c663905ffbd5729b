"""Scenarios: frozen value objects for clusters, datasets, batch jobs and tenants, loaded strictly from YAML."""
from pathlib import Path

from workloads.errors import ScenarioError
from workloads.producer import Client, ProducerConfig, client_defaults
from workloads.profile import CostProfile
from workloads.scenario import (BatchJob, Broker, Cluster, Dataset, FileGroup, Gate, Jitter, Quota, Scenario, Spark,
                                Tenant, Topic, Windows)

CATALOG = Path(__file__).parent / "catalog"

__all__ = ["BatchJob", "Broker", "CATALOG", "Client", "Cluster", "CostProfile", "Dataset", "FileGroup", "Gate", "Jitter",
           "ProducerConfig", "Quota", "Scenario", "ScenarioError", "Spark", "Tenant", "Topic", "Windows", "client_defaults"]
