UV_VERSION := 0.13.9
# Prefer python3.11; fall back to python3 (checked to be 3.11 below).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
# uv installs into our own .venv and never downloads a Python.
UV := UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON_DOWNLOADS=never $(VENV)/bin/uv

.PHONY: venv native browser test test-pythons demo bench readme-path interceptor clean

MODEL_SOURCES := $(wildcard simulator/model/*.py)
CORE_SOURCES := core/Cargo.toml core/Cargo.lock core/build.py $(wildcard core/src/*.rs)

$(VENV)/.stamp: pyproject.toml uv.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
		|| { echo "error: need Python 3.11, got $(PYTHON)" >&2; exit 1; }
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	$(UV) sync --frozen --group dev --all-extras
	touch $@

venv: $(VENV)/.stamp

# The event core (core/, Rust with PyO3) built into simulator/_core for the venv's Python: needs cargo.
.build/core/stamp: $(VENV)/.stamp $(CORE_SOURCES)
	$(VENV)/bin/python core/build.py
	touch $@

# The model's hot modules compiled with mypyc (used only while they match their sources).
.build/mypyc/manifest: $(VENV)/.stamp $(MODEL_SOURCES) simulator/_core.pyi simulator/contract/histograms.py simulator/contract/_compiled.py
	$(VENV)/bin/python -c "from simulator.model._native import build; raise SystemExit(build())"

native: .build/core/stamp .build/mypyc/manifest

# The report's first-screen test opens report.html in a real browser: Debian's chromium, headless.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null \
		|| { apt-get update -qq && apt-get install -y -qq chromium; } \
		|| { echo "error: the report's browser test needs chromium (Debian: apt-get install chromium)" >&2; exit 1; }

test: native browser
	$(VENV)/bin/python -m pytest

# The model alone (pip install . without extras: no Java, Maven, Spark, Kafka client, boto3 or
# psycopg) on each of TEST_PYTHONS, with the locked versions, running the tests that need
# nothing else; one venv per version under .build/.
TEST_PYTHONS ?= 3.12 3.13
test-pythons: $(VENV)/.stamp browser
	@set -e; for v in $(TEST_PYTHONS); do \
	  py=$$(PYENV_VERSION=$$(pyenv versions --bare 2>/dev/null | grep "^$$v\." | tail -1) \
	        python$$v -c 'import sys; print(sys.executable)' 2>/dev/null) \
	    || { echo "error: no python$$v on this machine" >&2; exit 1; }; \
	  env=.build/py$$v; echo "== Python $$v ($$py): model-only install in $$env"; \
	  $(VENV)/bin/uv venv -q --allow-existing --python "$$py" $$env; \
	  $(VENV)/bin/uv export -q --frozen --all-groups --all-extras --no-hashes --no-emit-project -o $$env/constraints.txt; \
	  VIRTUAL_ENV=$$env UV_PYTHON_DOWNLOADS=never $(VENV)/bin/uv pip install -q -c $$env/constraints.txt . pytest xmlschema; \
	  $$env/bin/python -m pytest -m "not live" -q -p no:cacheprovider \
	    --ignore=tests/simulator/live --ignore=tests/tuner/test_postgres_storage.py \
	    --ignore=tests/tuner/test_snippets_live.py --ignore=tests/workloads/imports/test_import_files.py \
	    --ignore=tests/workloads/imports/test_cloudwatch_localstack.py \
	    --ignore=tests/quietload/test_cli_import_bad_input.py \
	    --deselect tests/tuner/test_capacity.py::test_the_spark_engine_gives_the_same_plan; \
	done

# The append-trace producer interceptor's jar (interceptor/, Maven): .build/interceptor/<hash>/quietload-append-trace.jar
interceptor: $(VENV)/.stamp
	@$(VENV)/bin/python -c "from simulator.live.jars import interceptor_jar; print(interceptor_jar(print))"

demo: native
	$(VENV)/bin/quietload simulate workloads/catalog/paypay-glue-2gb.yaml

# The README's commands in order in a fresh clone, each timed and checked against what the README shows.
readme-path: native
	$(VENV)/bin/python bench/readme_path.py --live

bench: native
	$(VENV)/bin/python bench/sim_speed.py

clean:
	rm -rf $(VENV) .build .pytest_cache
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
