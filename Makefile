# Kiln developer commands. Everything here is dev-only and never ships in the extension zip.
# `make test` and `make demo` set up what they need (pinned virtual environments) on a fresh machine.

# Each venv is made from the Python its Blender's bpy wheel needs; tools/find_python.sh finds it
# on PATH or under pyenv, or stops with one sentence naming what to install.
PYTHON_NEWEST ?= $$(tools/find_python.sh 3.13 "5.2 LTS")
PYTHON_LTS ?= $$(tools/find_python.sh 3.11 "4.2 LTS")
VENV := .venv
VENV_LTS := .venv-lts
PY := $(VENV)/bin/python
PY_LTS := $(VENV_LTS)/bin/python
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' blender_manifest.toml)

.PHONY: all venv test lint typecheck pytest pytest-plain pytest-newest pytest-newest-blender \
	pytest-newest-system pytest-lts pytest-lts-blender pytest-lts-system compiled-newest compiled-lts fetch-wheels share-tools window-chroot window screenshots build repo demo bench clean

all: test

# A venv is rebuilt when its requirement files change (the stamp is older than them). pip compiles
# what it installs one file at a time (the bpy wheel alone holds about 900 scripts); compileall on
# every core afterwards takes half as long (COMPILE_VENV). They hold no Pillow (Blender's Python
# has none): the tests and the sandbox use the wheel Kiln's zip carries, fetched into wheels/ once
# (fetch-wheels) before the runs that need them (tools/fetch_wheels.py, sandbox/pillow_wheel.py).
COMPILE_VENV := -m compileall -q -j0
$(VENV)/.stamp: requirements/dev.txt requirements/common.txt
	rm -rf $(VENV)
	python="$(PYTHON_NEWEST)" && "$$python" -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile --disable-pip-version-check -r requirements/dev.txt
	$(PY) $(COMPILE_VENV) $(VENV)/lib
	touch $@

$(VENV_LTS)/.stamp: requirements/lts.txt requirements/common.txt
	rm -rf $(VENV_LTS)
	python="$(PYTHON_LTS)" && "$$python" -m venv $(VENV_LTS)
	$(PY_LTS) -m pip install --quiet --no-compile --disable-pip-version-check -r requirements/lts.txt
	$(PY_LTS) $(COMPILE_VENV) $(VENV_LTS)/lib
	touch $@

# npm packages the tests run (requirements/node.txt): the Khronos glTF validator (the provenance tests
# run it on an exported GLB) and Meshy's own client, @meshy-ai/meshy-mcp-server (its wire against
# Kiln's stand-in: tests/python/services/test_meshy_vendor_contract.py); each test skips with a
# sentence where this machine has no npm.
NODE := .node
$(NODE)/.stamp: requirements/node.txt
	rm -rf $(NODE)
	if command -v npm >/dev/null; then npm install --silent --no-audit --no-fund --prefix $(NODE) $$(cat requirements/node.txt); \
	else echo "npm not found: the glTF validator's and the vendor clients' tests will be skipped"; mkdir -p $(NODE); fi
	touch $@

venv: $(VENV)/.stamp $(VENV_LTS)/.stamp $(NODE)/.stamp

# Only pip is needed (no venv), so the wheels download while the venvs are made.
fetch-wheels:
	python="$(PYTHON_NEWEST)" && "$$python" tools/fetch_wheels.py

lint: $(VENV)/.stamp
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.stamp
	$(PY) tools/typecheck.py

# tests/python needs no Blender (it refuses bpy): run once. tests/blender (Kiln inside the bpy
# module) and tests/system (child Blenders of the same version) run on both Blenders, each folder in
# its own pytest. The runs are independent (each has its own user folder, sandboxes and ports), so
# `make test` runs them side by side with the window suite: most of their time is spent waiting on
# jobs, helpers and windows, and no one run is left alone at the end on a two-core machine.
pytest: pytest-plain pytest-newest pytest-lts

# The repository's Python files compiled once for each venv's Python before the runs. Where the
# environment forbids writing bytecode (PYTHONDONTWRITEBYTECODE: this machine and its CI set it),
# every process that imports Kiln compiled it again (each child Blender, helper and sandbox of the
# tests: about 0.4 CPU-s for a Blender that enables Kiln); Python still reads what is compiled, and
# compileall skips what is up to date. The zip never holds them (the manifest excludes __pycache__).
COMPILE := -m compileall -q -j0 *.py $(wildcard */)
compiled-newest: $(VENV)/.stamp
	$(PY) $(COMPILE)
compiled-lts: $(VENV_LTS)/.stamp
	$(PY_LTS) $(COMPILE)

pytest-plain: compiled-newest fetch-wheels $(NODE)/.stamp
	@echo "=== pytest tests/python (plain Python, no Blender)"
	$(BESIDE) $(PY) -m pytest tests/python $(PYTEST_ARGS)

# The shared-library tests' second file system (tests/system/studio/network_share.py) needs sshd and
# sshfs on this machine: installed where missing and this machine can (about 7 s); elsewhere those
# tests skip with a sentence.
share-tools:
	-@[ -x /usr/sbin/sshd ] && command -v sshfs >/dev/null || tools/host_packages.sh install openssh-server sshfs

pytest-newest: pytest-newest-blender pytest-newest-system
pytest-newest-blender pytest-newest-system: pytest-newest-%: compiled-newest fetch-wheels $(NODE)/.stamp share-tools
	@echo "=== pytest tests/$* on $$($(PY) -c 'import bpy; print("Blender", bpy.app.version_string)')"
	$(BESIDE) $(PY) -m pytest tests/$* $(PYTEST_ARGS)

# On Blender 4.2, the system tests that check Kiln's own processes rather than Blender are left to
# the newest: a kill at each step of a job, one job list shared by several Blenders, the farm's queue,
# a Windows lock, and `make demo` (which runs on .venv). What Blender does in them (a job imported,
# a .blend saved, background mode) tests/blender and the rest of tests/system check on both.
NEWEST_ONLY := $(addprefix --ignore=tests/system/,jobs/test_crash_safety.py jobs/test_fal_crash_safety.py \
	store/test_shared_store_blenders.py store/test_emptied_after_a_kill.py windows \
	farm/test_openjd.py farm/test_openjd_repository.py) \
	--deselect system/batch/test_batch_scripts.py::test_demo_writes_the_blend_the_picture_and_the_summary
pytest-lts: pytest-lts-blender pytest-lts-system
pytest-lts-blender pytest-lts-system: pytest-lts-%: compiled-lts fetch-wheels $(NODE)/.stamp share-tools
	@echo "=== pytest tests/$* on $$($(PY_LTS) -c 'import bpy; print("Blender", bpy.app.version_string)')"
	$(BESIDE) $(PY_LTS) -m pytest tests/$* $(if $(filter system,$*),$(NEWEST_ONLY)) $(PYTEST_ARGS)

# The Blender program with a real window (Debian's blender in a cached chroot, Xvfb): run once,
# not per bpy venv. Without root it skips with one sentence (tools/window_chroot.sh why-not).
# Two runs side by side, each on its own X displays, after the chroot is made ready once: the
# pictures' files in one (they share the chroot's /home/artist) with the agents' (for two runs of about
# one length: 402 and 483 s before on 2026-11-29), the rest in the other; then, alone,
# the test that removes numpy and requests from the shared chroot for a while.
WINDOW_ALONE := tests/window/test_distribution_blender.py
# The window's rhythm while the helper opens a mesh (issue 47: within 2x its idle p99 + 20 ms on two
# cores) is measured with nothing else of make test running: `test` runs it last, on its own.
# --deselect takes a node id, which pytest writes relative to its rootdir (tests/, where pytest.ini is).
WINDOW_RHYTHM_ID := window/test_helper_import.py::test_the_window_keeps_its_rhythm_while_the_helper_opens_a_mesh
WINDOW_RHYTHM := tests/$(WINDOW_RHYTHM_ID)
WINDOW_FIRST := $(addprefix tests/window/,test_pictures.py test_service_pictures.py test_languages.py \
	test_services.py test_scale.py test_sidebar_width.py test_update.py test_install.py test_agents.py)
# The other run: every other file, the autosave test's first. It waits about a minute for Blender's
# autosave with the machine idle: at the start the rest of make test keeps both cores busy meanwhile.
WINDOW_SECOND := tests/window/test_session_flow.py
WINDOW_SECOND += $(filter-out $(WINDOW_FIRST) $(WINDOW_ALONE) $(WINDOW_SECOND),$(sort $(wildcard tests/window/test_*.py)))
# Each run lists its slowest tests: the window suite is make test's longest path.
WINDOW_DURATIONS := --durations=12
# The chroot is made on a fresh machine while the venvs are (it needs neither): it is on the window
# suite's path, the longest of make test.
window-chroot:
	-tools/window_chroot.sh ensure >/dev/null
window: compiled-newest fetch-wheels window-chroot
	@first_log=$$(mktemp); \
	KILN_WINDOW_DISPLAY_BASE=70 $(PY) -m pytest $(WINDOW_FIRST) $(WINDOW_DURATIONS) $(PYTEST_ARGS) >$$first_log 2>&1 & first=$$!; \
	KILN_WINDOW_DISPLAY_BASE=170 $(PY) -m pytest $(WINDOW_SECOND) \
		--deselect $(WINDOW_RHYTHM_ID) $(WINDOW_DURATIONS) $(PYTEST_ARGS); second=$$?; \
	wait $$first; first=$$?; cat $$first_log; rm -f $$first_log; \
	$(PY) -m pytest $(WINDOW_ALONE) $(PYTEST_ARGS) && [ $$first = 0 ] && [ $$second = 0 ]

# The product's pictures (tests/window/test_pictures.py takes most of them), copied into docs/images/
# for the README and docs/getting-started.md.
screenshots: window
	mkdir -p docs/images
	cp tests/window/out/*.png docs/images/

# The window suite is the longest run, so it starts first, as soon as .venv and the wheels are
# there (.venv-lts and the glTF validator are built beside them); the other runs, lint and the type
# check take the free slots. The runs beside the window suite are nicer (BESIDE): the two cores
# go to the windows' Blenders first, whose tests wait on what a window draws, and the bpy runs take
# what is left (alone they wait on jobs and helpers much of the time). Each run's output is kept
# together (-Otarget) and printed when it ends; any failure fails make test.
BESIDE ?=
test:
	$(MAKE) -j6 -Otarget BESIDE="nice -n 5" window pytest-newest-blender pytest-newest-system \
		pytest-lts-blender pytest-lts-system pytest-plain lint typecheck
	$(PY) -m pytest $(WINDOW_RHYTHM) $(PYTEST_ARGS)

build: $(VENV)/.stamp
	$(PY) tools/build.py

# A static extension repository (zip, index.json, index.html) from Blender's own server-generate;
# publish straight into a shared folder with `make repo REPO_DIR=/path/to/share` (docs/studio.md).
REPO_DIR ?= dist/repo
repo: $(VENV)/.stamp
	$(PY) tools/repo.py --repo-dir $(REPO_DIR)

demo: $(VENV)/.stamp
	$(PY) examples/demo.py

bench: $(VENV)/.stamp
	$(PY) -m bench

clean:
	rm -rf dist demo-out bench/out tests/window/out* .pytest_cache .mypy_cache .ruff_cache
