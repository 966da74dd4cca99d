# SPDX-License-Identifier: BSD-2-Clause
"""Threads: the work runs with the GIL released, and calls from several Python threads (on
their own plans or on one shared plan) give what the same calls give one after another."""
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import j2kfront

RNG = np.random.default_rng(11)


def test_concurrent_calls_equal_serial_ones(backend):
    images = [RNG.integers(0, 256, size=(97, 131, 3)).astype(np.uint8) for _ in range(8)]
    serial = [j2kfront.transform(i, levels=4, backend=backend) for i in images]
    shared = j2kfront.Plan(images[0].shape, np.uint8, levels=4, backend=backend)
    with ThreadPoolExecutor(max_workers=4) as pool:
        own = list(pool.map(lambda i: j2kfront.transform(i, levels=4, backend=backend), images))
        via_shared = list(pool.map(shared.run, images))
    for want, a, b in zip(serial, own, via_shared):
        for w, x, y in zip(want, a, b):
            np.testing.assert_array_equal(x.coefficients, w.coefficients)
            np.testing.assert_array_equal(y.coefficients, w.coefficients)


def test_the_gil_is_released_while_a_plan_runs(backend):
    # Another Python thread records times while a long run goes on. Were the GIL held for the
    # run, that thread could not run at all between its start and its end.
    image = RNG.integers(0, 256, size=(2048, 2048)).astype(np.uint8)
    plan = j2kfront.Plan(image.shape, np.uint8, levels=6, backend=backend, threads=1)
    stamps, stop = [], threading.Event()

    def ticker():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        time.sleep(0.01)
        begin = time.perf_counter()
        plan.run(image)
        end = time.perf_counter()
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old)
    third = (end - begin) / 3  # the Python before and after the native call lies outside
    assert any(begin + third < t < end - third for t in stamps), \
        f"no other Python thread ran during {end - begin:.3f} s of plan.run"
