# The floor of a fork per program (benches/grade_throughput.rs): a warm Python with
# NumPy and zwc imported, as sebx's workers have them, forks once per program; the child
# compiles and runs it with its output on /dev/null and leaves with os._exit; the parent
# waits. No sandbox, no pipes, no result, no Rust: what any design that forks a warm
# interpreter per program cannot go below on this machine.
#
# python fork_floor.py PROGRAM_DIR INDEX STRIDE: runs the programs whose position in the
# sorted directory listing is INDEX modulo STRIDE. Prints "ready" once warm, waits for a
# line on standard input, then prints the seconds the programs took. With
# SEBX_FLOOR_OWN_SESSION=1 it leads a session of its own first (like with like: see
# benches/README.md, issue 42).
import ctypes
import gc
import os
import sys
import time

import numpy
import numpy.linalg  # noqa: F401
import numpy.random  # noqa: F401
import zwc  # noqa: F401

for name in ("math", "typing", "collections", "itertools", "functools", "re", "heapq",
             "bisect", "operator", "string", "copy", "cmath", "numbers", "enum"):
    __import__(name)
for value in (numpy.array([1, 2]), numpy.array([1.5, -2.25]), numpy.array([[1.0, 2.0], [3.0, 4.0]])):
    str(value)
    repr(value)

if os.environ.get("SEBX_FLOOR_OWN_SESSION") == "1":
    # A session of its own, as each sebx worker has: with scheduler autogroups each
    # session competes as one group for the CPU when the machine is busy.
    os.setsid()
folder, index, stride = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = sorted(os.listdir(folder))[index::stride]
sources = []
for name in names:
    with open(os.path.join(folder, name), "rb") as f:
        sources.append(f.read())
fork = ctypes.PyDLL(None).fork
devnull = os.open(os.devnull, os.O_WRONLY)
gc.collect()
gc.freeze()
print("ready", flush=True)
sys.stdin.readline()
start = time.perf_counter()
for source in sources:
    pid = fork()
    if pid == 0:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            exec(compile(source, "main.py", "exec", dont_inherit=True), {"__name__": "__main__"})
        except BaseException:
            pass
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        os._exit(0)
    os.waitpid(pid, 0)
print(f"{time.perf_counter() - start:.6f}", flush=True)
