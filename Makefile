# `make run` and `make test` do all the set-up a fresh machine needs.
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 9443
WORKERS ?= 2
FLASK := $(BIN)/flask --app wsgi

.PHONY: install browser run test lint format bench clean

$(BIN)/activate:
	python3 -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# The browser tests drive Debian's Chromium (a browser download is not possible here).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@[ -n "$$SKIP_BROWSER_TESTS" ] || test -x $(CHROMIUM) || { \
		echo "Installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

run: install
	$(FLASK) db upgrade
	$(FLASK) demo seed
	$(BIN)/gunicorn --bind 0.0.0.0:$(PORT) --workers $(WORKERS) --access-logfile - \
		$(if $(TLS_CERT),--certfile $(TLS_CERT) --keyfile $(TLS_KEY)) wsgi:app

# The whole suite on SQLite, then again on PostgreSQL when TEST_DATABASE_URL is set.
test: install browser
	env -u TEST_DATABASE_URL $(BIN)/pytest
	@if [ -n "$$TEST_DATABASE_URL" ]; then \
		echo "== again on $$TEST_DATABASE_URL"; $(BIN)/pytest; fi

lint: install
	$(BIN)/ruff check app tests bench wsgi.py
	$(BIN)/ruff format --check app tests bench wsgi.py

format: install
	$(BIN)/ruff check --fix app tests bench wsgi.py
	$(BIN)/ruff format app tests bench wsgi.py

bench: install
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
