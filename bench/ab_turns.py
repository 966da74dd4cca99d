# SPDX-License-Identifier: BSD-2-Clause
# What bench/ab_decode.py and bench/ab_compress.py share: two builds' runs of each job in turns
# (every job once a round; base first in even rounds, new first in odd ones) after one untimed
# run of each, the line that reports a job, and the arguments both take.
import filecmp
import statistics


def add_build_arguments(ap, rounds):
    """The arguments both scripts take: the two builds, the rounds and the threads (the jobs'
    own positional argument follows the builds)."""
    ap.add_argument("base", help="the j2kfront binary to compare against")
    ap.add_argument("new", help="the j2kfront binary under test")
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--threads", type=int, default=1)


def in_turns(jobs, run, rounds):
    """run(job, build, tag) -> (seconds, output path), build 0 the base, 1 the new one. Returns per
    job the two builds' times and their last outputs."""
    for job in jobs:
        run(job, 0, "base")
        run(job, 1, "new")
    times = {job: ([], []) for job in jobs}
    outputs = {job: [None, None] for job in jobs}
    for r in range(rounds):
        for job in jobs:
            order = [(0, "base"), (1, "new")]
            for build, tag in order if r % 2 == 0 else reversed(order):
                t, outputs[job][build] = run(job, build, tag)
                times[job][build].append(t)
    return times, outputs


def report(label, times, outputs):
    """Prints a job's line: each build's median time, the median over the rounds of new over base
    (below 1: new is faster) and whether the two outputs are the same bytes, which it returns."""
    base, new = times
    ratio = statistics.median(n / b for b, n in zip(base, new))
    same = filecmp.cmp(outputs[0], outputs[1], shallow=False)
    print(f"{label} base {statistics.median(base) * 1e3:8.1f} ms  new {statistics.median(new) * 1e3:8.1f} ms"
          f"  new/base {ratio:.3f}  {'same bytes' if same else 'OUTPUTS DIFFER'}")
    return same
