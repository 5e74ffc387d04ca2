"""pytest fixtures: one kwire-server per test, real librdkafka clients closed before it is killed."""

from __future__ import annotations

import os
import resource
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import kwire_harness as kh  # noqa: E402

# Test 8 holds a thousand idle connections: raise the open-files limit (the server inherits it).
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
_want = 8192 if _hard == resource.RLIM_INFINITY else min(_hard, 8192)
if _soft != resource.RLIM_INFINITY and _soft < _want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_want, _hard))

HEARTBEAT_MS = int(os.environ.get("KWIRE_TEST_HEARTBEAT_MS", "250"))
assert 250 <= HEARTBEAT_MS <= 500, "the issue asks for a heartbeat interval of 250-500 ms"

_SUITE_START = time.monotonic()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


class Servers:
    """Starts servers for one test and remembers them, so that teardown can kill them and, when the
    test failed, show the end of their stderr."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.all = []

    def start(self, topics, heartbeat_ms=HEARTBEAT_MS, **kw) -> kh.KwireServer:
        name = kw.pop("name", f"server{len(self.all)}")
        s = kh.KwireServer(str(self.tmp_path), topics, heartbeat_ms=heartbeat_ms, name=name, **kw)
        self.all.append(s)
        return s.start()


@pytest.fixture
def servers(request, tmp_path):
    s = Servers(tmp_path)
    yield s
    failed = any(getattr(request.node, "rep_" + w, None) is not None and getattr(request.node, "rep_" + w).failed
                 for w in ("setup", "call"))
    for srv in s.all:
        if srv.alive():
            code = srv.stop()
            # The contract: exit 0 on SIGTERM. Reported as a failure of the test's teardown.
            assert failed or code == 0, f"kwire-server exited {code} on SIGTERM\n{srv.stderr_tail()}"
        if failed:
            sys.stderr.write(f"\n===== {srv.name} stderr: {srv.stderr_paths} =====\n{srv.stderr_tail()}\n")


@pytest.fixture
def clients(servers):
    """Everything a test opens with librdkafka: closed before the servers stop (fixture order)."""
    opened = {"groups": [], "others": []}
    yield opened
    for g in opened["groups"]:
        g.close_all()
    for o in opened["others"]:
        try:
            o.close()
        except Exception:  # noqa: BLE001
            pass


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_sep("-", "kwire-server measurements")
    terminalreporter.write_line(f"heartbeat interval {HEARTBEAT_MS} ms")
    for line in kh.METRICS:
        terminalreporter.write_line(line)
    terminalreporter.write_line(f"whole suite: {time.monotonic() - _SUITE_START:.1f} s")
