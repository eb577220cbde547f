"""Under CI (the CI environment variable set) no test may skip: a skip there would hide a missing
install step (an extra, Debian's chromium) behind a green run. Outside CI a skip names what is
missing, so `make test` on a machine without chromium still runs everything else. With
MUGGINS_SKIPPED_TO=FILE, the node ids of what skipped are written there, one a line: CI runs
the README's `make test` without the extras first, then exactly those tests with the extras."""

from __future__ import annotations

import os

import pytest

STRICT = bool(os.environ.get("CI"))
SKIPPED_TO = os.environ.get("MUGGINS_SKIPPED_TO")


def _fail_skip(report) -> None:
    report.outcome = "failed"
    report.longrepr = f"skipped under CI, where every test must run: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        _fail_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped:
        _fail_skip(report)


def _note_skip(report) -> None:
    if SKIPPED_TO and report.skipped and not hasattr(report, "wasxfail"):
        with open(SKIPPED_TO, "a", encoding="utf-8") as f:
            f.write(report.nodeid + "\n")


def pytest_runtest_logreport(report):  # under xdist the controller and the worker both see it: CI sorts -u
    _note_skip(report)


def pytest_collectreport(report):
    _note_skip(report)
