"""The wheel carries the event core compiled from ``core/`` (Rust) for the Python that builds it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).resolve().parent


class CoreBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        spec = importlib.util.spec_from_file_location("core_build", ROOT / "core" / "build.py")
        core_build = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(core_build)
        extension = core_build.build()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(extension)] = str(extension.relative_to(ROOT))
