"""The hand-off to Blender's main thread: workers wait on a deadline, the timer drains within a budget."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from api.agents import BridgeClosed, HostBusy, MainThreadBridge


def test_a_call_runs_on_the_thread_that_drains_and_its_answer_or_error_comes_back() -> None:
    bridge = MainThreadBridge()
    ran_on: list[threading.Thread] = []

    def work(value: int) -> int:
        ran_on.append(threading.current_thread())
        if value < 0:
            raise ValueError("negative")
        return value * 2

    with ThreadPoolExecutor(2) as pool:
        answer = pool.submit(bridge.call, work, 21, timeout=5)
        failure = pool.submit(bridge.call, work, -1, timeout=5)
        while not (answer.done() and failure.done()):
            bridge.drain()
            time.sleep(0.005)
    assert answer.result() == 42
    with pytest.raises(ValueError, match="negative"):
        failure.result()
    assert ran_on == [threading.current_thread()] * 2


def test_a_call_nobody_drained_in_time_is_refused_and_never_runs_later() -> None:
    bridge = MainThreadBridge()
    ran: list[int] = []
    with pytest.raises(HostBusy) as refused:
        bridge.call(ran.append, 1, timeout=0.05)
    assert refused.value.maybe_done is False
    assert "nothing was done" in refused.value.user_message
    assert bridge.drain() == 0 and ran == []


def test_a_call_that_started_but_did_not_finish_in_time_may_have_been_done() -> None:
    bridge = MainThreadBridge()
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(bridge.call, release.wait, 5, timeout=0.2)
        drainer = threading.Thread(target=bridge.drain, args=(10.0,))
        while not waiting.running():
            time.sleep(0.005)
        time.sleep(0.02)
        drainer.start()
        with pytest.raises(HostBusy) as refused:
            waiting.result()
        release.set()
        drainer.join()
    assert (
        refused.value.maybe_done is True and "may still have been carried out" in refused.value.user_message
    )


def test_a_beat_stops_once_its_time_budget_is_used() -> None:
    bridge = MainThreadBridge()
    with ThreadPoolExecutor(3) as pool:
        calls = [pool.submit(bridge.call, time.sleep, 0.02, timeout=5) for _ in range(3)]
        while not all(call.running() for call in calls):
            time.sleep(0.005)
        time.sleep(0.05)
        assert bridge.drain(budget=0.01) == 1  # the first call alone used the beat
        while not all(call.done() for call in calls):
            bridge.drain()
    assert [call.result() for call in calls] == [None, None, None]


def test_a_serving_loop_waits_for_the_first_call_and_close_fails_the_rest() -> None:
    bridge = MainThreadBridge()
    with ThreadPoolExecutor(2) as pool:
        later = pool.submit(lambda: (time.sleep(0.1), bridge.call(lambda: "ran", timeout=5))[1])
        assert bridge.drain(wait=2.0) == 1
        assert later.result() == "ran"
        queued = pool.submit(bridge.call, lambda: "never", timeout=5)
        while not queued.running():
            time.sleep(0.005)
        time.sleep(0.05)
        bridge.close()
        with pytest.raises(BridgeClosed):
            queued.result()
    with pytest.raises(BridgeClosed):
        bridge.call(lambda: "refused")
