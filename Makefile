# reflib: build the book, run every test.
#
#   make book   executes the chapters in place, then builds the HTML book into _build/html
#   make test   unit tests (tests/) + every chapter under nbval, strict mode + every page of
#               the built book in headless Chromium (the book is rebuilt first when stale)
#               + a chapter opened in JupyterLab (tests/test_lab.py: the `lab` extra is
#               installed first), then the operator/training tests again on gpu(0) under
#               the strict cupy stand-in (tests/strict_cupy.py)
#   make lab    opens the chapters in JupyterLab, which renders their MyST markup with
#               jupyterlab-myst (both installed on first use: pyproject.toml's `lab` extra)
#   make pdf    the same book as one PDF, _build/latex/reflib.pdf, through XeLaTeX (Debian's
#               TeX packages installed with apt-get when missing, cairosvg from the `pdf` extra)
#
# All three first make sure of the same set-up, which is idempotent and quick once done:
# a venv in .venv with requirements.txt installed (redone only when requirements.txt or
# pyproject.toml changes: the stamp file below records the last install) and graphviz's
# `dot` on PATH (installed with apt-get only when it is missing).  `make test` also needs
# Debian's chromium for the browser test, installed the same way.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.requirements.stamp
LAB_STAMP := $(VENV)/.lab.stamp
PDF_STAMP := $(VENV)/.pdf.stamp

# pytest workers: 2 matches the 2-core CI machine (notebooks are spread one file per worker)
JOBS ?= 2
# extra pytest arguments, e.g. `make test PYTEST_ARGS='-k ndarray -x'`
PYTEST_ARGS ?=
# seconds one notebook cell may run before it counts as hung
CELL_TIMEOUT ?= 600

CHAPTERS := $(sort $(wildcard chapters/*.ipynb))

# apt-get must never prompt (CI has no stdin); use sudo only when not root and it exists
APT := $(if $(filter 0,$(shell id -u)),,$(shell command -v sudo)) env DEBIAN_FRONTEND=noninteractive apt-get
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help setup venv dot chromium tex book html pdf test lab bench clean

help:
	@echo 'make book   execute the chapters and build the HTML book into _build/html'
	@echo 'make test   unit tests + every chapter notebook under nbval + the built book in Chromium'
	@echo 'make html   build the HTML book from the outputs stored in the chapters (no execution)'
	@echo 'make lab    open the chapters in JupyterLab'
	@echo 'make pdf    build the book as one PDF into _build/latex/reflib.pdf (no execution)'
	@echo 'make bench  Module.fit samples/s, reflib next to MXNet 1.9.1 when /tmp/mxv has it (bench/README.md)'
	@echo 'make clean  remove the built book and caches (keeps .venv)'

setup: venv dot

venv: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

dot:
	@if command -v dot >/dev/null 2>&1; then :; else \
	  echo "graphviz's dot is missing: installing it with apt-get"; \
	  $(APT) update && $(APT) install -y --no-install-recommends graphviz; \
	  command -v dot >/dev/null 2>&1 || { echo "apt-get installed graphviz, but dot is not on PATH" >&2; exit 1; }; \
	fi

# Debian's chromium, driven by playwright (requirements.txt) in tests/test_browser.py
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; else \
	  echo "chromium is missing (the browser test needs it): installing it with apt-get"; \
	  $(APT) update && $(APT) install -y --no-install-recommends chromium; \
	  command -v chromium >/dev/null 2>&1 || { echo "apt-get installed chromium, but it is not on PATH" >&2; exit 1; }; \
	fi

# `make pdf`'s LaTeX: XeLaTeX and latexmk, the LaTeX packages Sphinx's document class loads,
# the DejaVu fonts _config.yml names, and pdftotext (poppler), with which tests/test_pdf.py
# reads the result.  About 300 MB, so only installed when missing.
TEX_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended \
                latexmk fonts-dejavu-core fonts-dejavu-extra poppler-utils
tex:
	@if command -v xelatex >/dev/null 2>&1 && command -v latexmk >/dev/null 2>&1 \
	    && command -v pdftotext >/dev/null 2>&1 && kpsewhich fncychap.sty >/dev/null 2>&1; then :; else \
	  echo "XeLaTeX, latexmk, pdftotext or a LaTeX package is missing: installing them with apt-get"; \
	  $(APT) update && $(APT) install -y --no-install-recommends $(TEX_PACKAGES); \
	fi

# The book shows the outputs stored in the notebooks (execute_notebooks: 'off' in _config.yml).
# Executing in place first means the stored outputs, the book and `git diff` always agree:
# the chapters are deterministic (seeded), so on a clean tree this leaves no diff at all.
# nbclient runs each notebook in its own directory with the venv's python3 kernel, records no
# per-cell timestamps, and merges each cell's stdout (and stderr) into one output, so that
# neither the clock nor how the kernel happened to flush its streams shows up as a change.
# (Merging moves a cell's later prints up to its first one; nbval compares them merged too.)
define EXECUTE_IN_PLACE
import sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
timeout, paths = int(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
for path in paths:
    print('executing', path, flush=True)
    nb = nbformat.read(path, as_version=4)
    # the kernel logs only errors: no "running over TCP without encryption" warning per
    # chapter (it talks to this process over localhost only)
    NotebookClient(nb, kernel_name='python3', timeout=timeout, record_timing=False,
                   coalesce_streams=True, resources={'metadata': {'path': str(path.parent)}},
                   extra_arguments=['--log-level=ERROR']).execute()
    nbformat.write(nb, path)
endef
export EXECUTE_IN_PLACE

# MathJax 3 is served from the book itself (copied from the django-static-mathjax package,
# MathJax's own release files, into _mathjax/mathjax, which the build puts at
# _static/mathjax), so formulas render with no network.  Only the TeX-to-HTML bundle and the
# parts it loads on demand are copied, not the seven other prebuilt bundles.
MATHJAX_SRC = $(shell $(BIN)/python -c "import mathjax, os; print(os.path.join(os.path.dirname(mathjax.__file__), 'static', 'mathjax', 'es5'))")
MATHJAX_PARTS := tex-chtml.js core.js loader.js startup.js input output ui a11y adaptors sre

# What the HTML book is made from; `make test` rebuilds it when any of these is newer
# (reflib's sources count: the API reference is made from their docstrings).
BOOK_SOURCES := _config.yml _toc.yml $(wildcard *.md api/*.md api/operators/*.md reference/*.md) $(CHAPTERS) $(wildcard _assets/* _ext/*.py) \
                $(shell find reflib -name '*.py') requirements.txt
BOOK_STAMP := _build/html/.reflib-built

define BUILD_HTML
rm -rf _mathjax && mkdir -p _mathjax/mathjax
cd "$(MATHJAX_SRC)" && cp -r $(MATHJAX_PARTS) "$(CURDIR)/_mathjax/mathjax/"
$(BIN)/jupyter-book build --all --warningiserror --keep-going .
touch $(BOOK_STAMP)
endef

book: setup
	$(BIN)/python -c "$$EXECUTE_IN_PLACE" $(CELL_TIMEOUT) $(CHAPTERS)
	$(BUILD_HTML)
	@echo "book: $(CURDIR)/_build/html/index.html"

html: setup $(BOOK_STAMP)

$(BOOK_STAMP): $(BOOK_SOURCES) | setup
	$(BUILD_HTML)

# The PDF, from the same sources and stored outputs as the HTML book (the landing page's own
# text stays in the HTML: see latex_documents in _config.yml).  PDF_OUT: where _build/ goes.
PDF_OUT ?= .
pdf: setup tex $(PDF_STAMP)
	rm -rf "$(PDF_OUT)/_build/latex"
	$(BIN)/jupyter-book build --builder pdflatex --path-output "$(PDF_OUT)" .
	@echo "pdf: $$(cd "$(PDF_OUT)" && pwd)/_build/latex/reflib.pdf"

# the `pdf` extra (cairosvg: the SVG figures for LaTeX), redone with $(STAMP)
$(PDF_STAMP): $(STAMP)
	$(BIN)/python -m pip install -e '.[pdf]'
	touch $@

# The tests that run a second time on gpu(0) backed by the strict cupy stand-in
# (REFLIB_TEST_DEVICE=strict, tests/device.py), listed in tests/device_tests.txt, which
# bench/gpu_check.py runs on a real GPU: every operator with no host transfer inside
# forward/backward, the optimizers, the stores, the executor, Module, training steps
DEVICE_TESTS := $(shell sed -e 's/\#.*//' tests/device_tests.txt)

# REFLIB_BROWSER_TEST=1: the browser tests fail, rather than skip, when the book, chromium,
# (tests/test_lab.py) JupyterLab with jupyterlab-myst or (tests/test_pdf.py) XeLaTeX is missing
test: setup chromium tex html $(LAB_STAMP) $(PDF_STAMP)
	REFLIB_BROWSER_TEST=1 $(BIN)/pytest tests chapters \
	  --nbval --nbval-current-env --nbval-cell-timeout=$(CELL_TIMEOUT) \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  $(if $(filter-out 0 1,$(JOBS)),-n $(JOBS) --dist loadfile) \
	  $(PYTEST_ARGS)
	REFLIB_TEST_DEVICE=strict $(BIN)/pytest $(DEVICE_TESTS) -p no:cacheprovider \
	  $(if $(filter-out 0 1,$(JOBS)),-n $(JOBS)) $(PYTEST_ARGS)

# the `lab` extra (pyproject.toml): JupyterLab and jupyterlab-myst, which renders the
# chapters' MyST markup (admonitions, dropdown solutions, figures, math) as the book does;
# redone whenever requirements.txt or pyproject.toml changes, after $(STAMP)
$(LAB_STAMP): $(STAMP)
	$(BIN)/python -m pip install -e '.[lab]'
	touch $@

# extra JupyterLab arguments, e.g. `make lab LAB_ARGS='--no-browser --port 8890'`
LAB_ARGS ?=
lab: setup $(LAB_STAMP)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS) chapters

# not part of `make test`: timings, see bench/README.md; e.g. `make bench BENCH_ARGS='--quick --models mlp'`
BENCH_ARGS ?=
bench: venv
	$(BIN)/python bench/fit_throughput.py $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
