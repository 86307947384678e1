"""A thread that lives inside one worker slot's cgroups, so the processes it forks start there.

Moving a process into a cgroup v1 hierarchy is slow: each write to cgroup.procs write-locks
every fork in the system and waits for an RCU grace period (measured here: ~2 ms at load 1.5,
~20 ms at load 2.6 on 2 cores), and every run used to pay it. Under v1 a membership belongs
to a thread, and a child starts in the cgroups of the thread that forked it; so each slot gets
one thread, moved in once, that does the slot's fork+exec and nothing else.

Why the executor's own process is unaffected: user memory is charged to the cgroup of the
process's main thread (the mm's owner), so the slot's counter and peak still see only its
programs (plus the kernel memory of the fork itself, e.g. the child's page tables until exec);
the OOM killer only picks thread-group leaders in a cgroup, so never us; and the sandbox never
signals its own pid, which the slot's cgroup.procs lists. cgroup v2 keeps all threads of a
process in one memory cgroup, so there the children still move themselves in.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

_Call = tuple[Callable[[], object], "Future[object]"]


class SlotThread:
    """Runs callables, one at a time, on a thread that ``enter(tid)`` placed (and that calls
    ``leave(tid)`` before it ends, so the slot's cgroups are empty and can be removed)."""

    def __init__(
        self, name: str, enter: Callable[[int], None], leave: Callable[[int], None]
    ) -> None:
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._lock = threading.Lock()  # orders every call before the stop sentinel
        self._stopped = False
        ready: Future[None] = Future()
        # A daemon thread: an executor nobody closed must not hang interpreter exit (the
        # sandbox's finaliser stops the thread at exit anyway).
        self._thread = threading.Thread(
            target=self._serve, args=(enter, leave, ready), name=name, daemon=True
        )
        self._thread.start()
        try:
            ready.result()
        except BaseException:
            self._thread.join()
            raise

    def _serve(
        self, enter: Callable[[int], None], leave: Callable[[int], None], ready: Future[None]
    ) -> None:
        tid = threading.get_native_id()
        try:
            enter(tid)
        except BaseException as e:
            ready.set_exception(e)
            return
        ready.set_result(None)
        try:
            while (item := self._calls.get()) is not None:
                fn, future = item
                try:
                    future.set_result(fn())
                except BaseException as e:
                    future.set_exception(e)
        finally:
            leave(tid)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` run on the thread; its exception, if any, is raised here."""
        future: Future[object] = Future()
        with self._lock:
            if self._stopped:
                raise RuntimeError(f"{self._thread.name} has stopped")
            self._calls.put((fn, future))
        return future.result()  # type: ignore[return-value]

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the thread once the call in progress (if any) returns (idempotent)."""
        with self._lock:
            if not self._stopped:
                self._stopped = True
                self._calls.put(None)
        self._thread.join(timeout_s)
