UV_VERSION := 0.13.9
# Prefer python3.11; fall back to python3 (checked to be 3.11 below).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
# uv installs into our own .venv and never downloads a Python.
UV := UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON_DOWNLOADS=never $(VENV)/bin/uv

.PHONY: venv native test demo bench clean

MODEL_SOURCES := $(wildcard simulator/model/*.py)

$(VENV)/.stamp: pyproject.toml uv.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
		|| { echo "error: need Python 3.11, got $(PYTHON)" >&2; exit 1; }
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) sync --frozen --group dev
	touch $@

venv: $(VENV)/.stamp

# The model's hot modules compiled with mypyc (used only while they match their sources).
.build/mypyc/manifest: $(VENV)/.stamp $(MODEL_SOURCES)
	$(VENV)/bin/python -c "from simulator.model._native import build; raise SystemExit(build())"

native: .build/mypyc/manifest

test: native
	$(VENV)/bin/python -m pytest

demo: native
	$(VENV)/bin/quietload simulate workloads/catalog/paypay-glue-2gb.yaml

bench: native
	$(VENV)/bin/python bench/sim_speed.py

clean:
	rm -rf $(VENV) .build .pytest_cache
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
