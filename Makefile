# `make run` and `make test` do all the set-up a fresh machine needs.
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 9443
# `make run` prints the demo's passwords: it listens on this machine alone unless HOST says
# otherwise (HOST=0.0.0.0 for every interface).
HOST ?= 127.0.0.1
WORKERS ?= 2
FLASK := $(BIN)/flask --app wsgi

.PHONY: install install-serving xmlsec1 browser run worker demo-ldap test lint format bench clean

$(BIN)/activate:
	python3 -m venv $(VENV)

# Two sets of packages, each installed once (its stamp file says so; a changed pyproject.toml
# installs again): what serving needs (`make run`, `make worker`), then the test, lint and
# bench tools (the `dev` extra), so that the first page of a fresh machine waits for no
# browser driver or fuzzer. `make test` after `make run` installs only the tools.
$(VENV)/.installed-serving: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-serving
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

# SAML sign-in (pysaml2) checks and makes XML signatures with Debian's xmlsec1 program.
install-serving: $(VENV)/.installed-serving xmlsec1
install: $(VENV)/.installed-dev xmlsec1

xmlsec1:
	@command -v xmlsec1 >/dev/null || { \
		echo "Installing Debian's xmlsec1 for SAML sign-in"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq xmlsec1 >/dev/null; }

# The browser tests drive Debian's Chromium (a browser download is not possible here).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@[ -n "$$SKIP_BROWSER_TESTS" ] || test -x $(CHROMIUM) || { \
		echo "Installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The web server and the worker together (app/Procfile, run by honcho); Ctrl-C stops both.
# Sign-in and invitation links name this server unless PUBLIC_BASE_URL says otherwise.
RUN_BASE_URL = $(or $(PUBLIC_BASE_URL),$(if $(TLS_CERT),https,http)://localhost:$(PORT))
# The demo's own directory (`make demo-ldap`) listens on 127.0.0.1, which the service connects
# to on a tenant's behalf only when allowed: this demo server allows that one address.
RUN_ALLOW_NETWORKS = $(or $(OUTBOUND_ALLOW_NETWORKS),127.0.0.1/32)
run: install-serving
	$(FLASK) db upgrade
	PUBLIC_BASE_URL="$(RUN_BASE_URL)" $(FLASK) demo seed
	PATH="$(abspath $(BIN)):$$PATH" HOST=$(HOST) WORKERS=$(WORKERS) PUBLIC_BASE_URL="$(RUN_BASE_URL)" \
		OUTBOUND_ALLOW_NETWORKS="$(RUN_ALLOW_NETWORKS)" \
		GUNICORN_TLS="$(if $(TLS_CERT),--certfile $(TLS_CERT) --keyfile $(TLS_KEY))" \
		$(BIN)/honcho -f app/Procfile -d . start -p $(PORT)

# A demo LDAP directory (Debian's slapd, installed when missing) holding the demo agents, for
# `make run` in another terminal: the demo tenant's agents then sign in with the directory
# passwords it prints (docs/sign-in.md). Ctrl-C stops it.
SLAPD ?= /usr/sbin/slapd
demo-ldap: install-serving
	@test -x $(SLAPD) || { echo "Installing Debian's slapd for the demo directory"; \
		echo "slapd slapd/no_configuration boolean true" | $(SUDO) debconf-set-selections; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq slapd >/dev/null; }
	$(FLASK) db upgrade
	PUBLIC_BASE_URL="$(RUN_BASE_URL)" $(FLASK) demo seed >/dev/null
	OUTBOUND_ALLOW_NETWORKS="$(RUN_ALLOW_NETWORKS)" PUBLIC_BASE_URL="$(RUN_BASE_URL)" \
		$(FLASK) demo directory

# The worker alone (another host, or beside a web server started some other way).
worker: install-serving
	$(FLASK) db upgrade
	$(FLASK) worker

# The whole suite on SQLite, then again on PostgreSQL when TEST_DATABASE_URL is set.
# Two processes share the tests (pytest-xdist; a file's tests stay together): PYTEST_WORKERS=0
# runs them in this process. A worker that crashes ends the run at once, the test it was
# running named: replacing it can leave xdist's loadfile scheduler waiting forever. The
# slowest files are handed out first, in the order tests/conftest.py gives them (by
# tests/file_weights.json), so the two processes end together.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	--max-worker-restart=0 --durations=15
test: install browser
	env -u TEST_DATABASE_URL $(PYTEST)
	@if [ -n "$$TEST_DATABASE_URL" ]; then \
		echo "== again on $$TEST_DATABASE_URL"; $(PYTEST); fi

# Style (ruff), then the import graph: no cycle in app/, and the layers' contracts of
# pyproject.toml (services never import a door, models never import services, ...).
lint: install
	$(BIN)/ruff check app tests bench wsgi.py
	$(BIN)/ruff format --check app tests bench wsgi.py
	$(BIN)/python .ci/import_cycles.py app
	$(BIN)/lint-imports --no-cache

format: install
	$(BIN)/ruff check --fix app tests bench wsgi.py
	$(BIN)/ruff format app tests bench wsgi.py

# Every part of the benchmark, or those PARTS names ("search api"); docs/benchmarks.md is
# written from their output (the sections of the parts not run are kept).
bench: install
	$(BIN)/python -m bench $(PARTS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
