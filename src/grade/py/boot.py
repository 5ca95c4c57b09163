# Start-up of a sebx grading worker: `python -c <this> worker.py <config-json>`
# (src/grade/pool/worker.rs). Compiling worker.py's ~80 KB leaves the parser's
# garbage in the heap (~3 MB nothing frees back), and every program's fork copies
# and tears down the page tables of those pages: ~0.2 ms per program, measured
# (benches/README.md, issue 42). So a short-lived child compiles it and hands the
# code over marshalled, and this process runs it as `python worker.py` would: the
# same globals (__main__, __file__, sys.argv, sys.path[0]), and a program still
# runs from the bottom frame (this one), as deep as before.
import marshal
import os
import sys

_path = sys.argv[1]


def _compiled(path):
    with open(path, "rb") as f:
        return compile(f.read(), path, "exec", dont_inherit=True)


def _compiled_elsewhere(path):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            data = memoryview(marshal.dumps(_compiled(path)))
            while data:
                data = data[os.write(w, data):]
            os._exit(0)
        finally:
            os._exit(1)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    if os.waitpid(pid, 0)[1] != 0:
        raise OSError("the compiling child failed")
    return marshal.loads(b"".join(chunks))


try:
    _code = _compiled_elsewhere(_path)
except OSError:
    _code = _compiled(_path)
sys.argv[:] = sys.argv[1:]
sys.path[0] = os.path.dirname(_path)
__file__ = _path
del marshal, _compiled, _compiled_elsewhere, _path
exec(_code)
del _code
# The top level's loop, run in this frame (worker.py has none of its own): the worker
# serves; where it is its namespace's init, each program is forked right here, so the
# program process starts at the top level, as deep as `python main.py` runs it. The
# worker, held by `_worker` (a program's return to the top level frees nothing of it), is
# let go before the program runs with the full interpreter exit: its finalization must
# free the stdio template (the program's sys.__stdout__), whose last flush is its
# deallocation there.
_worker = main()
_program = None
while _worker is not None:
    _program = _worker.serve()
    if _program is not FORK_HERE:
        break
    _program = _fork_without_handlers()
    if _program == 0:
        _program = _worker.forked_child()
        break
    _worker.forked_parent(_program)
if _program is not None:
    if _program.full_exit:
        _worker = None
    # It returns only to leave through the interpreter's own finalization, which must
    # free the program's module and the stdio template: nothing here may hold them.
    _program = _run_program(_program)
    _worker = None
    raise SystemExit(_program)
