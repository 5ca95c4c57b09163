# sebx grading worker: a warm Python that has imported numpy and zwc and runs
# one assembled SE-Bench program per request, each in a forked child.
#
# Started by sebx (src/grade/pool/) as `python -c <boot.py> worker.py <config-json>`
# (boot.py runs it as `python worker.py <config-json>` would).
# Protocol on the original stdin/stdout (moved to private descriptors at start):
#   worker -> sebx: one JSON line {"ready": true, "protections": [...]} (or an error)
#   sebx -> worker: per program a line `<length> <timeout seconds>`, then the program's
#                   UTF-8 bytes (length of them)
#   worker -> sebx: one JSON header line, then the raw stdout and stderr bytes
#                   whose lengths the header gives.
# Process tree per program (pid-namespace mode), cheapest first:
#   with a cgroup and a private mount namespace: the worker is pid 1 of a pid
#   namespace of its own (_become_namespace_init; the process sebx started waits
#   outside) and C is its plain child; after C, kill(-1) ends everything else.
#   otherwise, with a cgroup: worker -> I (pid 1 of a new pid namespace: a CLONE_VM clone
#   that only pause()s, see _PauseInit) and worker -> C (the program, forked into
#   I's namespace as pid 2). One copy of the worker per program. Killing I kills
#   every process in the namespace; the pool kills the cgroup if the worker dies.
#   otherwise: worker -> B (cloned straight into a new pid namespace, pid 1,
#   parent-death signal; reaps and reports) -> C. The death of B kills the rest.
#   where clone(2) cannot be called: worker -> A (monitor; unshares
#   CLONE_NEWPID) -> B -> C, A's death taking B.
# Without pid namespaces, C gets its own session and the worker kills its
# process group, its cgroup and its reparented descendants (the worker is a
# child subreaper).

import _io
import _signal
import atexit
import builtins
import ctypes
import errno
import fcntl
import gc
import io
import json
import os
import random
import resource
import select
import shutil
import signal
import struct
import sys
import time
import traceback
import types
import weakref

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

WORKER_FILE = os.path.abspath(__file__)
# The worker's own module once __main__ is the programs' (Worker.__init__).
_WORKER_MODULE = None
_SIGINT = int(signal.SIGINT)
_libc = ctypes.CDLL(None, use_errno=True)

# Per-phase timestamps of each program (config "profile", for benches/grade_breakdown.rs):
# a page shared with the program process, which writes its own phases there. Off by
# default: the marks are not free (struct, a clock read, a page the program shares).
N_MARKS = 11
M_REQUEST, M_WRITTEN, M_FORK, M_CHILD, M_SET_UP, M_COMPILED, M_RAN, M_EXITING, M_SEEN, M_FOLLOWED, M_COLLECTED = range(N_MARKS)
_MARKS = None

# zwc's count of its functions' calls (`zwc._calls`, see zwc_core.py): a page shared with
# every program process, zeroed before each program and read once it is gone. None when
# no zwc was imported.
_ZWC_CALLS = None


def _shared_zwc_counter(zwc):
    """A counter in a page every fork shares, put where zwc's functions count."""
    import mmap

    counter = memoryview(mmap.mmap(-1, mmap.PAGESIZE)).cast("Q")
    if isinstance(getattr(zwc, "_calls", None), list):
        zwc._calls = counter
        return counter
    return None


def _mark(which):
    if _MARKS is not None:
        struct.pack_into("d", _MARKS, 8 * which, time.perf_counter())


def _marks_read(previous_sent):
    marks = list(struct.unpack_from("%dd" % N_MARKS, _MARKS, 0))
    _MARKS[: 8 * N_MARKS] = bytes(8 * N_MARKS)
    return [previous_sent] + marks


def _check(result, what):
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _unshare(flags, what):
    _check(_libc.unshare(ctypes.c_int(flags)), what)


def _mount(source, target, fstype, flags, data):
    enc = lambda s: None if s is None else os.fsencode(s)
    _check(
        _libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
        f"mount {target}",
    )


# The raw clone(2) system call: fork semantics (no new stack) plus namespace flags.
_SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
# PyDLL keeps the GIL across the call, so the child returns holding it.
_pylibc = ctypes.PyDLL(None, use_errno=True)


def _clone_new_pid_namespace():
    """fork() into a new pid namespace, as pid 1 there: 0 in the child, the pid in
    the parent, -1 when not possible (the caller falls back to unshare + fork).

    Unlike os.fork() this runs no fork handlers and does not reinitialise the
    interpreter's thread state; that is sound here because the worker has a
    single thread and holds no lock while it serves requests, and the child (B)
    only starts the program with os.fork(), which does all of that for it."""
    if _SYS_CLONE is None:
        return -1
    return _pylibc.syscall(
        ctypes.c_long(_SYS_CLONE),
        ctypes.c_ulong(CLONE_NEWPID | signal.SIGCHLD),
        None,
        None,
        None,
        None,
    )


def _fork_without_handlers():
    """fork(2) through libc, without os.fork()'s interpreter bookkeeping.

    os.fork() also re-initialises the interpreter's locks and thread states and
    runs the Python fork handlers (threading's and random's): in a forked copy of
    a NumPy-sized worker that bookkeeping writes to ~190 pages, each a copy-on-
    write fault, about a tenth of a short program's cost. It changes nothing
    here: the worker has one thread, holds no lock while it serves, and keeps
    the GIL across this call (PyDLL), so the child is in the state the handlers
    would leave; random's handler (a reseed) is done by the worker before the
    fork (_fresh_random_state). glibc's own fork handling (its locks, the
    thread's cached id, libraries' pthread_atfork handlers) still runs."""
    pid = _pylibc.fork()
    if pid < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"fork: {os.strerror(code)}")
    return pid


CLONE_VM = 0x00000100
F_SETPIPE_SZ = 1031
PIPE_SIZE = 1 << 20
QUIET_WAIT = 0.05
_pause_address = ctypes.cast(_libc.pause, ctypes.c_void_p)


class _PauseInit:
    """pid 1 of a new pid namespace that only pause()s: made with CLONE_VM, it
    shares the worker's memory (nothing is copied) and runs no Python, on a stack
    of its own. As a namespace's init it ignores every signal sent from inside
    (it has no handlers: the worker ignores SIGINT for this), and its death kills
    every process in the namespace. It has no parent-death signal: the worker's
    cgroup, which the pool kills with the worker, is what ends it if the worker
    dies, so it is used only when the worker has one."""

    def __init__(self, pid, stack):
        self.pid = pid
        self.stack = stack
        self.children = f"/proc/{pid}/task/{pid}/children"

    @staticmethod
    def start(stack=None):
        """`stack`: a buffer from an init that has ended, to reuse."""
        if stack is None:
            stack = ctypes.create_string_buffer(1 << 16)
        top = (ctypes.addressof(stack) + len(stack) - 256) & ~0xF
        pid = _libc.clone(
            _pause_address,
            ctypes.c_void_p(top),
            ctypes.c_int(CLONE_VM | CLONE_NEWPID | signal.SIGCHLD),
            None,
        )
        return _PauseInit(pid, stack) if pid > 0 else None

    def fork_inside(self, own_pid_namespace):
        """os.fork() with the child in this namespace (as pid 2)."""
        target = os.pidfd_open(self.pid)
        try:
            _check(_libc.setns(target, CLONE_NEWPID), "setns(pid namespace)")
        finally:
            os.close(target)
        pid = -1
        try:
            pid = _fork_without_handlers()
        finally:
            # Back, or the worker's next namespace would be nested in this one.
            if pid != 0 and _libc.setns(own_pid_namespace, CLONE_NEWPID) != 0:
                # Not an OSError: no fallback can work from here; the worker
                # dies and the pool replaces it (and kills its cgroup).
                raise RuntimeError("cannot return to the worker's pid namespace")
        return pid

    def others_alive(self):
        """Whether a process other than the init is still running in the namespace
        (the program's leftovers are reparented to the init, which never reaps)."""
        pids = _read_small(self.children).split()
        if not pids:
            return False
        for pid in pids:
            stat = _read_small(b"/proc/%s/stat" % pid)
            try:
                if stat.rsplit(b")", 1)[1].split()[0] != b"Z":
                    return True
            except IndexError:
                pass
        return False

    def kill(self, reap_first=None):
        """Ends the namespace. `reap_first`: the worker's own child in it, not yet
        reaped (the init's exit waits for that; killed with the rest)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if reap_first is not None:
            _wait_exit(reap_first)
        _wait_exit(self.pid)
        stack, self.stack = self.stack, None
        return stack


def _read_small(path):
    """The bytes of a small file (/proc, cgroup), b"" if it cannot be read: plain
    system calls, no file objects (this runs for every program)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""
    finally:
        os.close(fd)


IN_ATTRIB = 0x4
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
# Every change to the program folder's entries, its own or its entries' attributes
# (chmod, links, times), or the folder itself; main.py's content is rewritten anyway.
_FOLDER_EVENTS = IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
# main.py's own: a link made to it (from anywhere) changes its link count, which the
# folder's watch does not report.
_FILE_EVENTS = IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
_SHM_EVENTS = IN_CREATE | IN_MOVED_TO


class _FolderWatch:
    """Tells whether a program changed its folder or /dev/shm, so that a clean run's
    folder is reused (main.py rewritten in place) and /dev/shm not listed: inotify
    watches on each and on main.py, whose queue a program that created, removed, renamed,
    linked or chmod-ed anything there leaves non-empty (an overflow counts too). The events come
    from the system calls themselves, so they are queued by the time the program and
    everything it started are gone. None where inotify cannot be had."""

    def __init__(self, fd, shm):
        self.fd = fd
        self.shm = shm

    @staticmethod
    def start(shm):
        fd = _libc.inotify_init1(ctypes.c_int(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0:
            return None
        watch = _FolderWatch(fd, shm)
        if shm and not watch.add(b"/dev/shm", _SHM_EVENTS):
            os.close(fd)
            return None
        return watch

    def add(self, path, mask):
        return _libc.inotify_add_watch(ctypes.c_int(self.fd), path, ctypes.c_uint32(mask)) >= 0

    def untouched(self):
        """Whether no event came since the last call (the queue is emptied either way)."""
        quiet = True
        while True:
            try:
                if not os.read(self.fd, 65536):
                    return quiet
            except BlockingIOError:
                return quiet
            except OSError:
                return False
            quiet = False


def _prctl(option, value):
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), 0, 0, 0), "prctl")


def _capabilities():
    """This process's effective capability mask (0 when it has none)."""
    for line in _read_small("/proc/self/status").decode(errors="replace").splitlines():
        if line.startswith("CapEff:"):
            return int(line.split()[1], 16)
    return 0


def _remove_tree(path):
    """Removes a program's directory even where the program took its own permissions
    away (`chmod 000` on a folder); symbolic links are removed, never followed."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    if not os.path.islink(path):
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
    for root, dirs, _files in os.walk(path):
        for name in [os.path.join(root, d) for d in dirs]:
            if not os.path.islink(name):
                try:
                    os.chmod(name, 0o700)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=True)


def _drop_inherited_privileges():
    """The part of dropping privileges that only matters to what a process executes:
    the capability bounding and ambient sets, and no_new_privs. Done once by the worker
    before it serves (its own effective capabilities stay: it never executes anything),
    so every program inherits it instead of making ~45 calls (~0.4 ms, measured by
    benches/grade_breakdown.rs). True when all of it held."""
    zero = ctypes.c_ulong(0)
    cap = 0
    while _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(cap), zero, zero, zero) == 0:
        cap += 1
    # The kernel's highest capability is below 64; dropping stops at the first unknown one.
    bounded = cap > 0 and _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(0), zero, zero, zero) == 0
    _libc.prctl(ctypes.c_int(PR_CAP_AMBIENT), ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), zero, zero, zero)
    no_new = _libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), zero, zero, zero) == 0
    return bounded and no_new


def _drop_own_capabilities():
    """The worker gives up its own capability sets (effective, permitted, inheritable)
    once, where it needs none to serve: as its pid namespace's init every program is its
    child and has its uid (kill, clean-up and reaping need no capability), and its mounts
    are made. Programs then inherit none and skip capset(2), whose ctypes call copied ~55
    pages in every program. True when /proc confirms nothing is left."""
    if _libc.capset(*_NO_CAPABILITIES) != 0:
        return False
    status = _read_small("/proc/self/status").decode(errors="replace")
    held = [line.split()[1] for line in status.splitlines() if line.startswith(("CapEff:", "CapPrm:", "CapInh:"))]
    return len(held) == 3 and all(int(v, 16) == 0 for v in held)


def _drop_privileges(inherited_dropped=False, capabilities_dropped=False):
    """In C: give up every capability (bounding, ambient, effective, permitted,
    inheritable) and set no_new_privs. A program run as root (or as root of the worker's
    user namespace) could otherwise remount the filesystem read-write, make namespaces,
    ptrace the worker or raise its limits; nothing it executes gets them back.
    `inherited_dropped`: the worker already dropped what a fork inherits
    (_drop_inherited_privileges); only its own sets are left to clear."""
    if not inherited_dropped:
        _drop_inherited_privileges()
    if not capabilities_dropped:
        _libc.capset(*_NO_CAPABILITIES)


# capset(2)'s arguments for "no capability at all", made once: building ctypes arrays in
# every program cost more than the call.
_NO_CAPABILITIES = (
    (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0),
    (ctypes.c_uint32 * 6)(),
)


class Protections:
    """What the sandbox achieved, reported to sebx once at start."""

    def __init__(self):
        self.items = []

    def add(self, name, active, detail):
        self.items.append({"name": name, "active": bool(active), "detail": detail})


# ---------------------------------------------------------------- start-up


def _write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


def _enter_user_namespace():
    """Unprivileged: a user namespace gives the capabilities the others need."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER, "unshare(CLONE_NEWUSER)")
    try:
        _write_file("/proc/self/setgroups", "deny")
    except OSError:
        pass
    _write_file("/proc/self/uid_map", f"0 {uid} 1")
    _write_file("/proc/self/gid_map", f"0 {gid} 1")


def _mountinfo():
    """(mount point, per-mount flags) of every mount, from /proc/self/mountinfo."""
    mounts = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 6:
                continue
            point = fields[4].encode().decode("unicode_escape")
            opts = fields[5].split(",")
            flags = 0
            for opt, bit in (
                ("nosuid", MS_NOSUID),
                ("nodev", MS_NODEV),
                ("noexec", MS_NOEXEC),
                ("noatime", MS_NOATIME),
                ("nodiratime", MS_NODIRATIME),
                ("relatime", MS_RELATIME),
                ("strictatime", MS_STRICTATIME),
            ):
                if opt in opts:
                    flags |= bit
            mounts.append((point, flags))
    return mounts


def _make_read_only():
    """Remount every mount read-only in this (private) mount namespace."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    failed = []
    for point, flags in _mountinfo():
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, None)
        except OSError:
            failed.append(point)
    return failed


def _private_tmp(keep_visible):
    """A fresh tmpfs over /tmp and /dev/shm; `keep_visible` dirs under /tmp are bound back."""
    held = []
    kept = []
    for path in sorted(set(os.path.realpath(p) for p in keep_visible)):
        inside_kept = any(path == k or path.startswith(k + "/") for k in kept)
        if path.startswith("/tmp/") and os.path.isdir(path) and not inside_kept:
            kept.append(path)
            held.append((path, os.open(path, os.O_RDONLY | os.O_DIRECTORY)))
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1g,mode=1777")
    for path, fd in held:
        try:
            os.makedirs(path, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND, None)
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        except OSError:
            pass
        os.close(fd)
    shm = False
    if os.path.isdir("/dev/shm"):
        try:
            _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=256m,mode=1777")
            shm = True
        except OSError:
            pass
    return shm


def _join_cgroup(path):
    with open(os.path.join(path, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


def _user_task_count(uid):
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                status = f.read()
        except OSError:
            continue
        uid_line = next((l for l in status.splitlines() if l.startswith("Uid:")), "")
        threads = next((l for l in status.splitlines() if l.startswith("Threads:")), "")
        if uid_line.split()[1:2] == [str(uid)]:
            count += int(threads.split()[1]) if threads else 1
    return count


def _namespaces_work(real_root):
    """Raises OSError with the reason when the worker's namespaces cannot be set up."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            if not real_root:
                _enter_user_namespace()
            _unshare(CLONE_NEWNET | CLONE_NEWNS, "unshare(CLONE_NEWNET|CLONE_NEWNS)")
            _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
            _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m")
            os._exit(0)
        except BaseException as exc:
            try:
                os.write(write_end, str(getattr(exc, "strerror", None) or exc).encode())
            finally:
                os._exit(1)
    os.close(write_end)
    message = b""
    while True:
        chunk = os.read(read_end, 4096)
        if not chunk:
            break
        message += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise OSError(errno.EPERM, message.decode(errors="replace") or "namespace trial failed")


_NEWNS = ctypes.c_int(CLONE_NEWNS)
_PRIVATE_TREE = ctypes.c_ulong(MS_REC | MS_PRIVATE)
_PROC_FLAGS = ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC)


def _private_proc():
    """In a new pid namespace's process: a /proc showing only that namespace.
    (Arguments made once: this runs in every program process.)"""
    _check(_libc.unshare(_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, _PRIVATE_TREE, None), "mount /")
    _check(_libc.mount(b"proc", b"/proc", b"proc", _PROC_FLAGS, None), "mount /proc")


def _become_namespace_init(monitor_closes):
    """Moves the worker into a new pid namespace as its pid 1, with a /proc of its own.

    The calling process stays outside as a small monitor (it has not imported NumPy)
    that only waits for the worker and exits with its status; the worker dies with
    it (parent-death signal; the pool's cgroup kill covers the rest). Programs then
    run as the worker's plain children: each is one fork, they can signal nothing
    outside the namespace (and not the worker, an init without handlers), /proc
    shows only the namespace, and after each program the worker kills every other
    process in it. Only in the worker's private mount namespace (the /proc mount)."""
    _unshare(CLONE_NEWPID, "unshare(CLONE_NEWPID)")
    life_r, life_w = os.pipe()
    pid = os.fork()
    if pid != 0:
        # The monitor. It tells the worker its pid as sebx sees it (the worker's
        # own getpid() is 1), then holds the pipe open until it dies.
        os.close(life_r)
        for fd in monitor_closes:
            os.close(fd)
        os.write(life_w, b"%d\n" % pid)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                os._exit(1)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    os.close(life_w)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    outer_pid = os.read(life_r, 64)
    # The monitor's death before the signal was armed: the pipe's end of file.
    if not outer_pid.endswith(b"\n") or select.select([life_r], [], [], 0)[0]:
        os._exit(1)
    os.close(life_r)
    # A namespace's init ignores every signal from inside that it has no handler
    # for; SIGINT is the one Python handles by default.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    return int(outer_pid)


def _pid_namespace_works():
    """Trial run of the per-program pid namespace (fork, unshare, fork).

    Returns (pid namespace works, private /proc works)."""
    pid = os.fork()
    if pid == 0:
        try:
            _unshare(CLONE_NEWPID, "unshare(CLONE_NEWPID)")
            inner = os.fork()
            if inner == 0:
                if os.getpid() != 1:
                    os._exit(3)
                try:
                    _private_proc()
                    os._exit(0 if os.listdir("/proc/1") else 4)
                except OSError:
                    os._exit(4)
            _, status = os.waitpid(inner, 0)
            os._exit(os.waitstatus_to_exitcode(status))
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code in (0, 4), code == 0


def _light_init_works(sandbox):
    """Trial of the _PauseInit scheme; on success the worker ignores SIGINT from
    now on (the init must have no handler; programs install their own)."""
    try:
        sandbox.own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        init = _PauseInit.start()
        if init is None:
            signal.signal(signal.SIGINT, previous)
            return False
        try:
            pid = init.fork_inside(sandbox.own_pid_namespace)
            if pid == 0:
                os._exit(0 if os.getpid() == 2 else 3)
            _, status = os.waitpid(pid, 0)
            # The children file (CONFIG_PROC_CHILDREN) is how leftovers are found.
            works = os.waitstatus_to_exitcode(status) == 0 and os.path.exists(init.children)
        finally:
            init.kill()
        if not works:
            signal.signal(signal.SIGINT, previous)
        return works
    except (OSError, AttributeError):
        return False


class Sandbox:
    def __init__(self, config):
        self.config = config
        self.protections = Protections()
        self.pid_namespace = False
        self.private_proc = False
        # Programs run under a _PauseInit instead of a B process (one fork fewer).
        self.light_init = False
        # The worker is pid 1 of its own pid namespace: programs are its plain children.
        self.namespace_init = False
        # This process's pid as sebx sees it.
        self.outer_pid = os.getpid()
        # The worker leads a session without a terminal that its programs share.
        self.own_session = False
        # The worker dropped the privileges a fork inherits (_drop_inherited_privileges).
        self.inherited_privileges_dropped = False
        # The worker holds no capability while it serves (_drop_own_capabilities).
        self.capabilities_dropped = False
        self.own_pid_namespace = None
        # The run directory the worker's own environment is already set up for.
        self.environment_for = None
        self.cgroup = config.get("cgroup")
        self.work_base = config["fallback_work_dir"]
        self.private_shm = False
        self.nproc_limit = None
        # Made once at the end of start-up (_stdio_template).
        self.stdio_template = None
        # The run directory whose sys.argv, sys.path[0] and __main__ the worker holds.
        self.main_module_for = None
        # The run directory that is the worker's own working directory (programs inherit it).
        self.cwd_for = None
        # Resource limits the worker holds itself (constant ones, inherited by programs).
        self.preset_limits = ()
        # Signals whose handling the worker changed from the default (programs reset them).
        self.signals_to_default = [signal.SIGTERM, signal.SIGCHLD]
        limits = config["limits"]
        self.limits = limits

    def setup(self, keep_visible, monitor_closes=()):
        """`monitor_closes`: descriptors the worker's outer process closes if the worker
        moves into a pid namespace of its own (see _become_namespace_init)."""
        p = self.protections
        want = self.config.get("isolate", True)
        real_root = os.geteuid() == 0
        if self.cgroup:
            try:
                _join_cgroup(self.cgroup)
                with open(os.path.join(self.cgroup, "pids.max")) as f:
                    p.add("process limit", True, f"cgroup pids.max={f.read().strip()}")
            except OSError as exc:
                p.add("process limit", False, f"cannot join cgroup {self.cgroup}: {exc.strerror}")
                self.cgroup = None
        namespaces = False
        if want:
            try:
                # A trial in a child first: a half-entered user namespace cannot be left.
                _namespaces_work(real_root)
                if not real_root:
                    _enter_user_namespace()
                _unshare(CLONE_NEWNET | CLONE_NEWNS, "unshare(CLONE_NEWNET|CLONE_NEWNS)")
                namespaces = True
            except OSError as exc:
                reason = exc.strerror
                p.add("no network", False, f"network namespace unavailable ({reason}); programs can reach the network")
                p.add("read-only filesystem", False, f"mount namespace unavailable ({reason}); programs can write outside their directory")
        else:
            p.add("no network", False, "isolation disabled by configuration")
            p.add("read-only filesystem", False, "isolation disabled by configuration")
        if namespaces:
            p.add("no network", True, "private network namespace without interfaces")
            try:
                failed = _make_read_only()
                detail = "every mount read-only; writable: the program's directory, private /tmp"
                if failed:
                    detail += f" (could not remount {len(failed)}: {', '.join(failed[:3])})"
                p.add("read-only filesystem", True, detail)
            except OSError as exc:
                p.add("read-only filesystem", False, f"remount failed ({exc.strerror})")
        self.namespaces = namespaces
        self.keep_visible = keep_visible
        if want:
            self.pid_namespace, self.private_proc = _pid_namespace_works()
        if self.pid_namespace and self.private_proc and self.cgroup and namespaces:
            try:
                self.outer_pid = _become_namespace_init(monitor_closes)
                self.namespace_init = True
            except OSError:
                pass
        if self.namespace_init:
            # A session of the worker's own, without a controlling terminal, which its
            # programs share: none can reach sebx's terminal, and none needs a session of
            # its own (setsid per program cost ~0.6-1.3 ms here: the kernel makes a
            # scheduler group per session). kill(-1) ends them all, whatever their group.
            try:
                os.setsid()
                self.own_session = True
            except OSError:
                pass
        if self.pid_namespace and self.cgroup and not self.namespace_init:
            self.light_init = _light_init_works(self)
        if self.namespace_init:
            p.add("process tree kill", True, "the worker is pid 1 of a pid namespace of its own: after each program it kills every other process in it")
            p.add("private /proc", True, "/proc shows only the worker's namespace: the program's own processes and the worker, which it cannot signal")
        elif self.pid_namespace:
            p.add("process tree kill", True, "pid namespace per program: its end kills every descendant")
            if self.private_proc:
                p.add("private /proc", True, "the program sees only its own processes and cannot signal others")
            else:
                p.add("private /proc", False, "cannot mount /proc for the program's pid namespace; it sees (not signals) other processes")
        else:
            p.add("process tree kill", True, "no pid namespace: a session per program, killed by process group plus a sweep of the worker's cgroup or descendants (the worker is a child subreaper); programs can see and signal other processes")
        if not self.cgroup:
            if not real_root and self.limits.get("nproc_extra"):
                self.nproc_limit = _user_task_count(os.getuid()) + self.limits["nproc_extra"]
                p.add("process limit", True, f"RLIMIT_NPROC={self.nproc_limit} (per user, approximate)")
            elif not any(i["name"] == "process limit" for i in p.items):
                why = self.config.get("cgroup_problem") or "no writable pids cgroup"
                p.add("process limit", False, f"{why}; RLIMIT_NPROC does not bind root; fork bombs are stopped only by the timeout")
        lim = self.limits
        p.add("memory limit", True, f"RLIMIT_AS={lim['address_space'] >> 20} MiB")
        p.add("file-size limit", True, f"RLIMIT_FSIZE={lim['file_size'] >> 20} MiB")
        p.add("open-files limit", True, f"RLIMIT_NOFILE={lim['open_files']}")
        p.add("CPU limit", True, f"RLIMIT_CPU={lim['cpu_seconds']} s")
        p.add("clean environment", True, "only PATH, HOME, TMPDIR, PYTHONPATH (zwc), locale and BLAS thread settings")
        # Not dumpable: a program (same uid, no capabilities) cannot ptrace the worker or
        # open its /proc/<pid>/mem. Forked programs inherit it; exec resets it.
        try:
            _prctl(PR_SET_DUMPABLE, 0)
            held = _capabilities()
            p.add("no privileges", True, "programs drop every capability" + (f" (the worker holds {held:#x})" if held else "") + " and run with no_new_privs; the worker is not dumpable, so they cannot ptrace it or open its memory")
        except OSError as exc:
            p.add("no privileges", False, f"prctl(PR_SET_DUMPABLE) failed ({exc.strerror}); programs drop capabilities but may ptrace the worker")

    def drop_privileges(self):
        """Once the mounts are made: what every program would drop and the worker does not
        need, dropped by the worker for all of them (see _drop_inherited_privileges and
        _drop_own_capabilities)."""
        self.inherited_privileges_dropped = _drop_inherited_privileges()
        if self.namespace_init:
            self.capabilities_dropped = _drop_own_capabilities()
        if self.capabilities_dropped:
            for item in self.protections.items:
                if item["name"] == "no privileges" and item["active"]:
                    item["detail"] = (
                        "programs hold no capability (the worker gave up its own before serving)"
                        " and run with no_new_privs; the worker is not dumpable, so they cannot"
                        " ptrace it or open its memory"
                    )

    def finish_mounts(self):
        """After numpy and zwc are imported: private /tmp, work dirs on it."""
        if not self.namespaces:
            self.protections.add("private /tmp", False, "no mount namespace; work dirs under " + self.work_base)
            os.makedirs(self.work_base, exist_ok=True)
            return
        try:
            self.private_shm = _private_tmp(self.keep_visible)
            self.work_base = "/tmp/sebx"
            os.makedirs(self.work_base, exist_ok=True)
            self.protections.add("private /tmp", True, "tmpfs /tmp (1 GiB) and /dev/shm private to this worker")
        except OSError as exc:
            self.protections.add("private /tmp", False, f"tmpfs mount failed ({exc.strerror})")
            os.makedirs(self.work_base, exist_ok=True)


# ---------------------------------------------------------------- per program


class Program:
    """What the program process C runs once it is back at the top level."""

    def __init__(self, path, module, full_exit, source=None):
        self.path = path
        self.module = module
        self.full_exit = full_exit
        # main.py's bytes as the worker wrote them (inherited with the fork: no read).
        self.source = source
        # See _fast_exit: whether a collection of the older generations ran meanwhile.
        self.older_collections = _older_collections()


def _older_collections():
    """How many collections of generations 1 and 2 this process has run. The same at a
    program's end as at its start: none of the program's objects is in generation 2
    (only a generation-1 collection moves survivors there)."""
    stats = gc.get_stats()
    return stats[1]["collections"] + stats[2]["collections"]


def _threads_to_join(threading):
    """Whether threading._shutdown() has anything to do at exit: a non-daemon thread
    (its lock is in _shutdown_locks while it may run) or a registered threading atexit
    call. Unknown attributes (another Python) count as yes."""
    return bool(getattr(threading, "_shutdown_locks", True)) or bool(
        getattr(threading, "_threading_atexits", True)
    )


def _warm_traceback(rundir):
    """Prints one traceback of a program in `rundir` to /dev/null, as nearly every graded
    program ends with one: the first display's one-off work (reading the source line
    back, the caret anchors, the name suggestions' look-ups) is done here once instead
    of in every program's copy (~15 copied pages each, measured). Nothing a program can
    see changes: its sys.stderr is untouched, sys.last_* are not set, main.py is gone."""
    path = os.path.join(rundir, "main.py")
    saved = sys.stderr
    try:
        os.mkdir(rundir, 0o755)
        with open(path, "w", encoding="utf-8") as f:
            f.write("import zwc\n\ndef f(x):\n    return zwc.no_such_name(x) + 1\n\nf([1, 2])\n")
        with open(os.devnull, "w", encoding="utf-8", errors="backslashreplace") as sink:
            sys.stderr = sink
            try:
                with open(path, "rb") as f:
                    code = compile(f.read(), path, "exec", dont_inherit=True)
                exec(code, {"__name__": "__main__", "__builtins__": builtins})
            except BaseException as exc:
                sys.excepthook(type(exc), exc, exc.__traceback__)
                del exc
    except Exception:
        pass
    finally:
        sys.stderr = saved
        for remove, target in ((os.unlink, path), (os.rmdir, rundir)):
            try:
                remove(target)
            except OSError:
                pass


def _make_program_stdio():
    """Fresh stdin/stdout/stderr objects on fds 0-2, as CPython builds them at start-up.
    They read the type, block size and seekability of their descriptors when made."""

    def make(fd, write, name, errors, line_buffering):
        buffered = io.open(fd, "wb" if write else "rb", buffering=-1, closefd=False)
        buffered.raw.name = name
        return io.TextIOWrapper(
            buffered,
            encoding="utf-8",
            errors=errors,
            newline="\n" if write else None,
            line_buffering=line_buffering,
        )

    return (
        make(0, False, "<stdin>", "surrogateescape", False),
        make(1, True, "<stdout>", "surrogateescape", False),
        make(2, True, "<stderr>", "backslashreplace", True),
    )


def _stdio_template():
    """Program stdio objects made once in the worker, as they would be made in a
    program (stdin on /dev/null, stdout and stderr on a pipe), and never used by
    the worker: each program gets its own copy with its fork, in the state fresh
    ones have, instead of spending ~80 copied pages making them (+4% programs/s,
    measured interleaved). None if it fails."""
    saved = None
    read_end = write_end = None
    try:
        read_end, write_end = os.pipe()
        saved = (os.dup(1), os.dup(2))
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        return _make_program_stdio()
    except OSError:
        return None
    finally:
        if saved is not None:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        for fd in (read_end, write_end):
            if fd is not None:
                os.close(fd)


def _program_stdio(template=None):
    """sys.stdin/stdout/stderr for the program: `template` (fresh, see
    _stdio_template) or new ones. Nothing to do when the worker already holds the
    template as its own (Worker.__init__): the program inherits them as they are."""
    streams = template if template is not None else _make_program_stdio()
    if (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__) == streams * 2:
        return
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


def _program_environment(sandbox, rundir):
    env = dict(sandbox.config["program_env"])
    if sandbox.config.get("zwc_root"):
        # Pythons the program starts import zwc too, as with an installed package.
        env["PYTHONPATH"] = sandbox.config["zwc_root"]
    env["HOME"] = rundir
    env["TMPDIR"] = rundir
    return env


def _set_environment(env):
    os.environ.clear()
    os.environ.update(env)


class _NumpyReseed:
    """Writes a fresh state straight into the legacy global generator's MT19937 state
    (key[0] = 2**31, 623 words from getrandom(2), position 623: what a fresh
    interpreter's `import numpy` leaves), with no Python object made per program.
    numpy.random.set_state() built ~a dozen arrays, dicts and tuples for the same
    effect, and every page they touched was copied by the next program (~75 faults).
    Checked against get_state() once when made; None where that does not hold."""

    KEY_WORDS = 624

    def __init__(self, numpy):
        rand = numpy.random.mtrand._rand
        address = rand._bit_generator.ctypes.state_address
        self.first = ctypes.c_uint32.from_address(address)
        self.position = ctypes.c_int.from_address(address + 4 * self.KEY_WORDS)
        self.rest = ctypes.c_void_p(address + 4)
        self.rest_size = 4 * (self.KEY_WORDS - 1)
        self.size = ctypes.c_size_t(self.rest_size)
        self.flags = ctypes.c_uint(0)
        self()
        state = numpy.random.get_state()
        words = set(int(w) for w in state[1][1:])
        if not (
            state[0] == "MT19937" and int(state[1][0]) == 0x80000000 and state[2] == 623
            and state[3] == 0 and len(words) > 600
        ):
            raise RuntimeError("the MT19937 state layout is not the one expected")

    def __call__(self):
        got = _libc.getrandom(self.rest, self.size, self.flags)
        if got != self.rest_size:
            # Short read (a signal) or no getrandom(2): the slow, sure way.
            data = os.urandom(self.rest_size)
            ctypes.memmove(self.rest, data, self.rest_size)
        self.first.value = 0x80000000
        self.position.value = 623


_NUMPY_RESEED = None


def _fresh_random_state():
    """Fresh random state, as a new interpreter has: forked children would otherwise
    share the worker's. Done by the worker just before it forks the program where it
    can: after a fork the worker's first write to a page only re-enables writing
    (its child has ended), the child's first write copies the page."""
    random.seed()
    if _NUMPY_RESEED is not None:
        _NUMPY_RESEED()
        return
    # NumPy's global generator as a fresh interpreter's `import numpy` leaves it
    # (MT19937 from OS entropy: key[0] = 2**31, 623 random words, position 623),
    # without SeedSequence's ~0.5 ms.
    numpy = sys.modules["numpy"]
    key = numpy.frombuffer(os.urandom(4 * 624), dtype=numpy.uint32).copy()
    key[0] = 0x80000000
    numpy.random.set_state(("MT19937", key, 623, 0, 0.0))


def _become_program(sandbox, rundir, path, out_w, err_w, timeout, reseed=True, source=None, program=None):
    """In C: turn this forked worker into `python main.py` run in `rundir`. `program`: its
    Program, made by the worker before the fork (else made here)."""
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.closerange(3, 65536)
    if not sandbox.own_session:
        try:
            os.setsid()
        except OSError:
            pass
    for which, pair in _program_limits(sandbox, timeout):
        try:
            resource.setrlimit(which, pair)
        except (OSError, ValueError):
            pass
    if sandbox.nproc_limit is not None:
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (sandbox.nproc_limit, sandbox.nproc_limit))
        except (OSError, ValueError):
            pass
    # After the limits (lowering needs no privilege; raising them back would).
    _drop_privileges(sandbox.inherited_privileges_dropped, sandbox.capabilities_dropped)
    if sandbox.cwd_for != rundir:
        os.chdir(rundir)
    if sandbox.environment_for != rundir:
        _set_environment(_program_environment(sandbox, rundir))
    # _signal's own functions: signal.signal() wraps its result in an enum, whose
    # machinery a forked program would copy ~25 pages of (~0.15 ms).
    _signal.signal(_SIGINT, _signal.default_int_handler)
    for sig in sandbox.signals_to_default:
        _signal.signal(sig, _signal.SIG_DFL)
    _program_stdio(sandbox.stdio_template)
    if reseed:
        _fresh_random_state()
    if program is None:
        if sandbox.main_module_for != rundir:
            _take_on_program_sys(rundir)
            sys.modules["__main__"] = _main_module(path)
        program = _program_on_main(sandbox, path, source)
    _mark(M_SET_UP)
    return program


def _program_on_main(sandbox, path, source):
    """The Program for main.py at `path` on the `__main__` module sys holds: in a worker
    that took on the programs' (Worker.__init__), a pristine copy in each forked program."""
    return Program(path, sys.modules["__main__"], bool(sandbox.config.get("full_exit")), source)


def _take_on_program_sys(rundir):
    """sys.argv, sys.orig_argv and sys.path[0] as `python main.py` in `rundir` has them."""
    sys.argv = ["main.py"]
    sys.orig_argv = [sys.executable, "main.py"]
    sys.path[0] = rundir


def _main_module(path):
    """A fresh `__main__` module for main.py at `path`, as `python main.py` makes it."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__cached__ = None
    module.__annotations__ = {}
    module.__builtins__ = builtins
    try:
        # The class `python main.py` uses, without importing importlib.machinery
        # (a fresh interpreter has not imported it; it costs ~1 ms per program).
        loader_class = sys.modules["_frozen_importlib_external"].SourceFileLoader
        module.__loader__ = loader_class("__main__", path)
    except Exception:
        pass
    return module


def _run_program(program):
    """Runs in C at the top level, then exits the way `python main.py` exits."""
    try:
        source, program.source = program.source, None
        if source is None:
            with open(program.path, "rb") as f:
                source = f.read()
        code = compile(source, program.path, "exec", dont_inherit=True)
        del source
        _mark(M_COMPILED)
        exec(code, program.module.__dict__)
        _mark(M_RAN)
        status = 0
    except SystemExit as exc:
        status = _system_exit_status(exc)
    except BaseException as exc:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == WORKER_FILE:
            tb = tb.tb_next
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
        try:
            sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        except BaseException:
            pass
        status = "sigint" if isinstance(exc, KeyboardInterrupt) else 1
        del exc, tb
    if program.full_exit or not _fast_exit(program, status):
        # The interpreter's own finalization (slower: it tears every module down), by
        # the caller (boot.py's top level), once it let go of the worker and Program.
        # The worker's objects were frozen (gc.freeze) before the fork, the program's
        # module among them: the teardown's collection must see them, as a fresh
        # interpreter's sees its `__main__` (a cycle through its globals).
        gc.unfreeze()
        return 1 if status == "sigint" else status


def _system_exit_status(exc):
    """CPython's handling of an uncaught SystemExit (Python/pythonrun.c)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(str(code))
        sys.stderr.write("\n")
    except BaseException:
        pass
    return 1


def _flush_std_files(originals=False):
    status_ok = True
    streams = [sys.stdout, sys.stderr]
    if originals:
        # CPython flushes these when it destroys them at teardown, e.g. after a
        # program replaced sys.stdout and never put it back.
        streams += [sys.__stdout__, sys.__stderr__]
    for stream in streams:
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except BaseException:
            status_ok = False
    return status_ok


# Per type: whether a teardown may run code for its objects (a `__del__`, a generator's
# `finally`, a file's flush): filled as types are met, shared by every program's copy.
_finalizing = {}
for _t in (dict, list, tuple, set, frozenset, type, types.FunctionType, types.MethodType,
           types.ModuleType, types.CellType, types.CodeType, weakref.ref, property,
           staticmethod, classmethod, types.BuiltinFunctionType, types.SimpleNamespace):
    _finalizing[_t] = getattr(_t, "__del__", None) is not None or issubclass(_t, _io._IOBase)


# File objects of `_io`'s own types whose finalizer has nothing left to do once closed
# (the traced run's capture file, a file the program closed), and memory streams, which
# write nowhere.
_io_files = (_io.FileIO, _io.BufferedReader, _io.BufferedWriter, _io.BufferedRandom,
             _io.BufferedRWPair, _io.TextIOWrapper)
_finalizing[_io.BytesIO] = _finalizing[_io.StringIO] = False


def _finalizable_left(older):
    """Whether an object of the program's whose destruction may run code (see
    _finalizing) is alive: one in the young generations, in any generation when an
    older collection ran during the program."""
    found = gc.get_objects() if older else gc.get_objects(0) + gc.get_objects(1)
    for obj in found:
        t = type(obj)
        finalizing = _finalizing.get(t)
        if finalizing is None:
            finalizing = _finalizing[t] = t is not types.FrameType and (
                getattr(t, "__del__", None) is not None or issubclass(t, _io._IOBase)
            )
        if finalizing:
            if t in _io_files and obj.closed:
                continue
            return True
    return False


def _fast_exit(program, status):
    """The observable steps of Py_FinalizeEx, in its order, without tearing
    down NumPy's modules (which costs ~20 ms in a forked child): join
    non-daemon threads, run atexit callbacks, flush stdio, drop the last
    uncaught exception's traceback and release the program's globals (so their
    __del__ run, as at interpreter exit), flush again, exit with the same
    status. Returns False after the flush, before anything is released, when
    an object whose destruction may run code is alive (a `__del__`, a
    suspended generator, a file): it may be kept where releasing the globals
    does not reach (another module, sys.modules, zwc) and see those globals
    when it is destroyed, so the caller leaves through the interpreter's own
    teardown, which destroys everything in the official run's order."""
    threading = sys.modules.get("threading")
    try:
        # Nothing to join and no hook (most programs): skipped, it writes ~40 pages.
        if threading is not None and _threads_to_join(threading):
            threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    if not _flush_std_files():
        status = 120
    older = _older_collections() != program.older_collections
    try:
        if _finalizable_left(older):
            return False
    except BaseException:
        return False
    try:
        # The teardown drops the last uncaught exception first (its frames hold locals).
        sys.last_type = sys.last_value = sys.last_traceback = None
        sys.modules.pop("__main__", None)
        namespace = program.module.__dict__
        program.module = None
        namespace.clear()
        del namespace
        # Every object the program made that may be garbage now is in generations
        # 0-1 unless an older collection ran since it started; then (and only then)
        # the full collection, which also walks the worker's own old objects and
        # empties the free lists (~55 copied pages).
        if not older:
            gc.collect(1)
        else:
            gc.collect()
    except BaseException:
        pass
    if not _flush_std_files(originals=True) and status == 0:
        status = 120
    if status == "sigint":
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        status = 130
    _mark(M_EXITING)
    os._exit(status & 0xFF)


def _program_limits(sandbox, timeout):
    """The setrlimit arguments every program of `timeout` gets, (which, (soft, hard)),
    but those the worker holds itself for its programs to inherit."""
    lim = sandbox.limits
    cpu = max(int(lim["cpu_seconds"]), int(timeout) + 2)
    return tuple(
        (which, (value, value))
        for which, value in (
            (resource.RLIMIT_AS, lim["address_space"]),
            (resource.RLIMIT_FSIZE, lim["file_size"]),
            (resource.RLIMIT_NOFILE, lim["open_files"]),
            (resource.RLIMIT_CPU, cpu),
            (resource.RLIMIT_CORE, 0),
        )
        if which not in sandbox.preset_limits
    )


def _preset_limits(lim):
    """Sets on the worker itself the limits every program gets that cannot hurt it, so
    programs inherit them (hard and soft, as a program's own setrlimit leaves them):
    RLIMIT_NOFILE, RLIMIT_CORE, and RLIMIT_AS while the worker uses under a quarter of
    it. The ones that held."""
    held = []
    wanted = [(resource.RLIMIT_NOFILE, lim["open_files"]), (resource.RLIMIT_CORE, 0)]
    try:
        for line in _read_small("/proc/self/status").splitlines():
            if line.startswith(b"VmSize:") and int(line.split()[1]) * 1024 * 4 < lim["address_space"]:
                wanted.append((resource.RLIMIT_AS, lim["address_space"]))
    except (ValueError, IndexError):
        pass
    for which, value in wanted:
        try:
            resource.setrlimit(which, (value, value))
            held.append(which)
        except (OSError, ValueError):
            pass
    return tuple(held)


# What Worker.serve returns when the caller is to fork the program (boot.py's top-level loop).
FORK_HERE = object()


class Capture:
    """Captured output, at most `cap` bytes: the head and the tail survive."""

    def __init__(self, cap):
        self.cap = cap
        self.head_cap = cap // 4
        self.data = bytearray()
        self.omitted = 0

    def add(self, chunk):
        self.data += chunk
        if len(self.data) > self.cap + 65536:
            keep_tail = self.cap - self.head_cap
            cut = len(self.data) - self.head_cap - keep_tail
            del self.data[self.head_cap : self.head_cap + cut]
            self.omitted += cut

    def finish(self):
        if len(self.data) > self.cap:
            keep_tail = self.cap - self.head_cap
            cut = len(self.data) - self.head_cap - keep_tail
            del self.data[self.head_cap : self.head_cap + cut]
            self.omitted += cut
        return bytes(self.data)


def _read_cgroup_max_events(cgroup):
    if not cgroup:
        return 0
    for line in _read_small(cgroup + "/pids.events").splitlines():
        key, _, value = line.partition(b" ")
        if key == b"max":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _descendants(me):
    """Every process whose parent chain leads to `me`, from a scan of /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            parents[int(entry)] = int(stat.rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    children = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found = set()
    stack = list(children.get(me, []))
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, []))
    return found


def _sweep(cgroup):
    """Kill every process of this worker's cgroup (or, without one, every descendant), except the worker."""
    me = os.getpid()
    first_round = None
    for _ in range(500):
        victims = set()
        if cgroup:
            try:
                with open(os.path.join(cgroup, "cgroup.procs")) as f:
                    victims.update(int(x) for x in f.read().split())
            except (OSError, ValueError):
                cgroup = None
        if not cgroup:
            victims = _descendants(me)
        victims.discard(me)
        # Processes outside the reader's pid namespace (the monitor of a worker that
        # is a namespace's init) are listed as 0, which kill() takes as our own group.
        victims.discard(0)
        alive = 0
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
                alive += 1
            except ProcessLookupError:
                pass
        _reap()
        if first_round is None:
            first_round = alive
        if not alive:
            break
        time.sleep(0.002)
    return first_round or 0


def _namespace_others_alive():
    """In a worker that is its namespace's init, after the program was reaped: whether
    anything else runs (orphans are the init's children; zombies are reaped here). No
    child at all (ECHILD, the usual case) answers without reading /proc: every process
    left in the namespace is the init's child, reparented before the program's exit
    could be reaped."""
    if _reap():
        return False
    return bool(_read_small("/proc/1/task/1/children").split())


def _kill_namespace():
    """In a worker that is its namespace's init: kill every other process in the
    namespace (kill(-1) spares only the caller) and reap them all. A process being
    killed cannot fork, so one signal reaches every one of them."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        _reap()
        if not _read_small("/proc/1/task/1/children").split():
            return
        time.sleep(0.001)


def _wait_exit(pid):
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _reap():
    """Reaps every child that has ended; True when the caller has no child left at all."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


def _report_crash():
    try:
        os.write(2, ("sebx worker: " + traceback.format_exc()).encode())
    except BaseException:
        pass


def _last_line(data):
    lines = [l for l in data.decode("utf-8", "replace").splitlines() if l.strip()]
    return lines[-1] if lines else ""


class Worker:
    def __init__(self, sandbox, proto_in, proto_out):
        self.sandbox = sandbox
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.inbuf = b""
        # The program being run, as written to main.py.
        self.source = None
        self.counter = 0
        self.sent_at = 0.0
        self.cap = sandbox.config.get("capture_cap", 1 << 20)
        # Every program runs in the same directory: the worker takes on the
        # programs' environment once and each program inherits it for free.
        rundir = os.path.join(sandbox.work_base, "program")
        _set_environment(_program_environment(sandbox, rundir))
        sandbox.environment_for = rundir
        self.rundir = rundir
        self.main_path = os.path.join(rundir, "main.py")
        sandbox.signals_to_default = [
            int(s) for s in (signal.SIGTERM, signal.SIGCHLD) if signal.getsignal(s) is not signal.SIG_DFL
        ]
        sandbox.stdio_template = _stdio_template()
        if sandbox.stdio_template is not None:
            # The worker's own sys streams from now on (it never writes to them: its
            # reports go to its descriptors), so a program inherits them in place. Its
            # descriptors 0-2 are what the template was made for (/dev/null, a pipe).
            _program_stdio(sandbox.stdio_template)
        # Likewise sys.argv, sys.path[0] and a __main__ module for main.py, the same for
        # every program (one directory): each program gets a pristine copy with its fork
        # instead of ~10 copied pages making them. The worker's own module stays
        # referenced (_WORKER_MODULE); everything it imports later is imported now, so no
        # import of the worker searches the program's directory.
        global _WORKER_MODULE
        _WORKER_MODULE = sys.modules["__main__"]
        _take_on_program_sys(rundir)
        sys.modules["__main__"] = _main_module(os.path.join(rundir, "main.py"))
        sandbox.main_module_for = rundir
        # The stack of the last ended _PauseInit, reused by the next one.
        self.init_stack = None
        # Never written: its end-of-file tells a cloned B that the worker is gone.
        self.life_r, self.life_w = os.pipe()
        _warm_traceback(rundir)
        # The cgroup's count of refused forks when the last program ended: nothing of a
        # program runs between two programs (all are reaped or killed before the count
        # is read), so it is the next program's starting count too.
        self.max_events = _read_cgroup_max_events(sandbox.cgroup)
        # Where the worker is its namespace's init (every process of a program is gone
        # when its result is made): a clean program's folder is kept for the next one
        # (see _FolderWatch) and is the worker's own working directory, and the constant
        # limits are held by the worker for its programs to inherit. (Not /dev/null: a
        # description shared by every program would carry one's fcntl flags to the next.)
        self.watch = None
        self.folder_kept = False
        # Worker._lean_limits, by timeout.
        self.lean_limits = {}
        if sandbox.namespace_init:
            self.watch = _FolderWatch.start(sandbox.private_shm)
            sandbox.preset_limits = _preset_limits(sandbox.limits)

    def send(self, data):
        view = memoryview(data)
        while view:
            n = os.write(self.proto_out, view)
            view = view[n:]

    def sebx_gone(self):
        """While a program runs, sebx's pipe is readable: the next request arrived
        (sebx queues one ahead; it is kept for read_request) or sebx went away."""
        try:
            chunk = os.read(self.proto_in, 1 << 16)
        except OSError:
            return True
        self.inbuf += chunk
        return not chunk

    def read_request(self):
        """The next request, (program bytes, timeout), or None at the end of input: a
        header line `<bytes> <timeout seconds>` and the program's UTF-8 bytes."""
        while b"\n" not in self.inbuf:
            chunk = os.read(self.proto_in, 1 << 16)
            if not chunk:
                return None
            self.inbuf += chunk
        line, _, rest = self.inbuf.partition(b"\n")
        size, timeout = line.split(b" ")
        size = int(size)
        while len(rest) < size:
            chunk = os.read(self.proto_in, max(1 << 16, size - len(rest)))
            if not chunk:
                return None
            rest += chunk
        self.inbuf = rest[size:]
        return rest[:size], float(timeout)

    def serve(self):
        """The request loop. Returns None when sebx has gone, FORK_HERE when the program
        is to be forked by the caller (the top level: see `forked_parent`), or, in a
        program process of the other modes (C), its Program."""
        while True:
            request = self.read_request()
            if request is None:
                _sweep(self.sandbox.cgroup)
                return None
            _mark(M_REQUEST)
            result = self.run(*request)
            if result is FORK_HERE or isinstance(result, Program):
                return result
            self.reply(result)

    def forked_child(self):
        """In the program forked at the top level: its set-up; its Program."""
        _mark(M_CHILD)
        rundir, path, timeout, _, _, out_w, _, err_w, _, _, program, _, limits = self.pending
        if limits is None:
            # The worker's descriptors are closed by _become_program's closerange.
            return self._program_child((), rundir, path, out_w, err_w, timeout, program=program)
        # What _become_program does, where the worker holds all the rest for its programs
        # (see _lean_set_up): in one frame, with the limits' arguments made by the worker.
        try:
            os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, 65536)
            for which, pair in limits:
                try:
                    resource.setrlimit(which, pair)
                except (OSError, ValueError):
                    pass
            _signal.signal(_SIGINT, _signal.default_int_handler)
            for sig in self.sandbox.signals_to_default:
                _signal.signal(sig, _signal.SIG_DFL)
            _mark(M_SET_UP)
            return program
        except BaseException:
            _report_crash()
            os._exit(1)

    def _lean_limits(self, rundir, timeout, program):
        """The setrlimit arguments of a program of `timeout`, made once per timeout, where
        its set-up needs nothing but descriptors, limits and signals (forked_child): the
        worker leads the session, dropped every privilege, holds the program's working
        directory, environment, stdio and Program. None otherwise."""
        sandbox = self.sandbox
        if not (
            program is not None and sandbox.own_session and sandbox.nproc_limit is None
            and sandbox.inherited_privileges_dropped and sandbox.capabilities_dropped
            and sandbox.cwd_for == rundir and sandbox.environment_for == rundir
            and sandbox.stdio_template is not None
            and (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
            == sandbox.stdio_template * 2
        ):
            return None
        limits = self.lean_limits.get(timeout)
        if limits is None:
            limits = self.lean_limits[timeout] = _program_limits(sandbox, timeout)
        return limits

    def forked_parent(self, pid_c):
        """In the worker, once the top level forked the program `pid_c`: its result sent."""
        pending, self.pending = self.pending, None
        self.reply(self._follow_init(pid_c, *pending))

    def reply(self, result):
        header, out, err = result
        header["stdout_len"] = len(out)
        header["stderr_len"] = len(err)
        if _MARKS is not None:
            _mark(M_COLLECTED)
            header["profile"] = _marks_read(self.sent_at)
        self.send(json.dumps(header).encode() + b"\n" + out + err)
        if _MARKS is not None:
            self.sent_at = time.perf_counter()

    def run(self, source, timeout):
        sandbox = self.sandbox
        self.counter += 1
        # One program at a time per worker and a private /tmp: a fixed path keeps
        # tracebacks identical from run to run.
        rundir = self.rundir
        path = self.main_path
        self.source = source
        data = memoryview(self.source)
        if self.folder_kept:
            # The last program left the folder as it found it: main.py rewritten in place.
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
        else:
            try:
                os.mkdir(rundir, 0o755)
            except FileExistsError:
                _remove_tree(rundir)
                os.mkdir(rundir, 0o755)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
        if self.watch is not None and not self.folder_kept:
            # A new folder: watched from now on, the worker's working directory, and
            # the events of its making (and of the last one's removal) forgotten.
            self.folder_kept = self.watch.add(rundir.encode(), _FOLDER_EVENTS) and self.watch.add(
                path.encode(), _FILE_EVENTS
            )
            if self.folder_kept:
                try:
                    os.chdir(rundir)
                    sandbox.cwd_for = rundir
                except OSError:
                    sandbox.cwd_for = None
            self.watch.untouched()
        _mark(M_WRITTEN)
        if _ZWC_CALLS is not None:
            _ZWC_CALLS[0] = 0
        max_events_before = self.max_events
        if sandbox.namespace_init:
            return self._prepare_init(rundir, path, timeout, max_events_before)
        if sandbox.light_init:
            result = self._run_light(rundir, path, timeout, max_events_before)
            if result is not None:
                return result
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        worker_pid = os.getpid()
        start = time.monotonic()
        st_r, st_w = os.pipe()
        if sandbox.pid_namespace:
            # B straight from the worker, already pid 1 of a new namespace: no
            # monitor process and no Python fork handlers (half the cost of a fork).
            pid_b = _clone_new_pid_namespace()
            if pid_b == 0:
                return self._process_b_cloned(rundir, path, out_r, err_r, st_r, out_w, err_w, st_w, timeout)
            if pid_b > 0:
                os.close(out_w)
                os.close(err_w)
                os.close(st_w)
                return self._supervise(pid_b, out_r, err_r, st_r, start, timeout, rundir, max_events_before)
        pid_a = os.fork()
        if pid_a == 0:
            # A: the monitor. Never returns except as the program (C).
            try:
                os.close(self.proto_in)
                os.close(self.proto_out)
                os.close(self.life_r)
                os.close(self.life_w)
                os.close(out_r)
                os.close(err_r)
                os.close(st_r)
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                if os.getppid() != worker_pid:
                    os._exit(1)
                if sandbox.pid_namespace:
                    _unshare(CLONE_NEWPID, "unshare(CLONE_NEWPID)")
                pid_b = os.fork()
                if pid_b == 0:
                    return self._process_b(rundir, path, out_w, err_w, st_w, timeout)
                os.close(out_w)
                os.close(err_w)
                os.close(st_w)
                while True:
                    try:
                        os.waitpid(pid_b, 0)
                        break
                    except ChildProcessError:
                        break
                    except InterruptedError:
                        continue
                os._exit(0)
            except SystemExit:
                raise
            except BaseException:
                os._exit(1)
        os.close(out_w)
        os.close(err_w)
        os.close(st_w)
        return self._supervise(pid_a, out_r, err_r, st_r, start, timeout, rundir, max_events_before)

    def _prepare_init(self, rundir, path, timeout, max_events_before):
        """The program as a plain child of the worker, pid 1 of their namespace: all but
        the fork, which the top level makes (FORK_HERE) so that the program process has
        no frame of the worker's to return through (each one's locals released in every
        program: ~45 copied pages, measured)."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        for fd in (out_w, err_w):
            try:
                # Room for a program's whole output (see the quiet wait below).
                fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)
            except OSError:
                pass
        # Made before the fork: see below.
        out = Capture(self.cap)
        err = Capture(self.cap)
        _fresh_random_state()
        # The program's Program made here, where it costs no copied page: the child only
        # returns it (its module is the pristine __main__ the worker holds).
        program = None
        if self.sandbox.main_module_for == rundir:
            program = _program_on_main(self.sandbox, path, self.source)
        _mark(M_FORK)
        start = time.monotonic()
        limits = self._lean_limits(rundir, timeout, program)
        self.pending = (rundir, path, timeout, max_events_before, out_r, out_w, err_r, err_w, out, err, program, start, limits)
        return FORK_HERE

    def _follow_init(self, pid_c, rundir, path, timeout, max_events_before, out_r, out_w, err_r, err_w, out, err, program, start, limits):
        """The worker's side of `_prepare_init`'s program once forked."""
        program = None
        os.close(out_w)
        os.close(err_w)
        exited = os.pidfd_open(pid_c)
        # Until the program ends, every page the worker writes to is still shared
        # with it and gets copied. Most programs end within milliseconds and their
        # output fits in the pipes, so first wait for the end alone, writing
        # nothing; the output is read afterwards. A program still running after
        # QUIET_WAIT (or blocked on a full pipe: more than PIPE_SIZE of output)
        # is served by the loop below. Measured interleaved: +5% programs/s.
        status = None
        if select.select([exited], [], [], min(QUIET_WAIT, timeout))[0] and time.monotonic() < start + timeout:
            # It ended (most do, within the quiet wait). With no child of the worker's
            # left once it is reaped, nothing else runs in the namespace and nothing
            # holds the pipes' other ends: the output is read to its end, no wait.
            _, status = os.waitpid(pid_c, 0)
            os.close(exited)
            exited = None
            if _reap():
                for fd, capture in ((out_r, out), (err_r, err)):
                    while True:
                        chunk = os.read(fd, 1 << 16)
                        if not chunk:
                            break
                        capture.add(chunk)
                    os.close(fd)
                elapsed = time.monotonic() - start
                _mark(M_SEEN)
                _mark(M_FOLLOWED)
                return self._collect({}, None, out, err, status, False, False, False, rundir, max_events_before, elapsed, timeout)
        _mark(M_SEEN)
        open_fds, status, timed_out, worker_exit, elapsed, leftovers = self._follow(
            pid_c, exited, out_r, err_r, out, err, start, timeout, _namespace_others_alive, status
        )
        _mark(M_FOLLOWED)
        if leftovers or open_fds:
            # Every process of the namespace but the worker, the program included.
            _kill_namespace()
        if exited in open_fds:
            del open_fds[exited]
            os.close(exited)
        if timed_out or worker_exit:
            status = None
        return self._collect(open_fds, None, out, err, status, timed_out, worker_exit, leftovers, rundir, max_events_before, elapsed, timeout)

    def _run_light(self, rundir, path, timeout, max_events_before):
        """The program as the worker's own child in the pid namespace of a pause-only init.

        Returns the result, the Program (in the program process), or None when the
        namespace could not be made (the caller falls back to the B process)."""
        # First: the init keeps a copy of every descriptor open now, which must
        # not include the program's pipes (their end of file ends the run).
        init = _PauseInit.start(self.init_stack)
        self.init_stack = None
        if init is None:
            return None
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        _fresh_random_state()
        start = time.monotonic()
        try:
            pid_c = init.fork_inside(self.sandbox.own_pid_namespace)
        except OSError:
            init.kill()
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            return None
        if pid_c == 0:
            # If the worker dies first, the pool kills its cgroup, this included.
            return self._program_child(
                (self.proto_in, self.proto_out, out_r, err_r, self.sandbox.own_pid_namespace),
                rundir, path, out_w, err_w, timeout, private_proc=self.sandbox.private_proc,
            )
        os.close(out_w)
        os.close(err_w)
        return self._supervise_light(init, pid_c, out_r, err_r, start, timeout, rundir, max_events_before)

    def _program_child(self, close, rundir, path, out_w, err_w, timeout, private_proc=False, program=None):
        """In the forked program process (reseeded by the worker): drop the worker's
        descriptors `close`, die with the worker, become the program."""
        try:
            for fd in close:
                os.close(fd)
            if not self.sandbox.namespace_init:
                # (The init of the program's namespace, the worker, takes every process
                # of it along when it dies: no signal needed there.)
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if private_proc:
                try:
                    _private_proc()
                except OSError:
                    pass
            return _become_program(
                self.sandbox, rundir, path, out_w, err_w, timeout, reseed=False, source=self.source,
                program=program,
            )
        except SystemExit:
            raise
        except BaseException:
            _report_crash()
            os._exit(1)

    def _follow(self, pid_c, exited, out_r, err_r, out, err, start, timeout, others_alive, status=None):
        """Reads the program's output until it has ended (`exited`, its pidfd, is
        reaped; None with its `status` when it is already) and closed both pipes, the
        deadline passes or sebx goes away; then gives what it started a moment to end
        (`others_alive`). Returns the fds still open, the wait status, timed out, sebx
        gone, elapsed seconds, leftovers."""
        open_fds = {out_r: out, err_r: err}
        if exited is not None:
            open_fds[exited] = None
        deadline = start + timeout
        timed_out = False
        worker_exit = False
        while open_fds:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select(list(open_fds) + [self.proto_in], [], [], remaining)
            for fd in ready:
                if fd == self.proto_in:
                    # The next request (kept), or sebx went away: stop everything.
                    worker_exit = self.sebx_gone()
                elif fd == exited:
                    _, status = os.waitpid(pid_c, 0)
                    del open_fds[fd]
                    os.close(fd)
                else:
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        open_fds[fd].add(chunk)
                    else:
                        del open_fds[fd]
                        os.close(fd)
            if worker_exit:
                break
        elapsed = time.monotonic() - start
        leftovers = False
        if not open_fds:
            # The program ended; what it started may take a moment to end too.
            grace = time.monotonic() + 0.05
            leftovers = others_alive()
            while leftovers and time.monotonic() < grace:
                time.sleep(0.002)
                leftovers = others_alive()
        return open_fds, status, timed_out, worker_exit, elapsed, leftovers

    def _supervise_light(self, init, pid_c, out_r, err_r, start, timeout, rundir, max_events_before):
        out = Capture(self.cap)
        err = Capture(self.cap)
        exited = os.pidfd_open(pid_c)
        open_fds, status, timed_out, worker_exit, elapsed, leftovers = self._follow(
            pid_c, exited, out_r, err_r, out, err, start, timeout, init.others_alive
        )
        # The init's end ends the namespace: every process still in it is killed.
        # The init's exit waits until the program (the worker's child) is reaped.
        self.init_stack = init.kill(reap_first=None if exited not in open_fds else pid_c)
        if exited in open_fds:
            del open_fds[exited]
            os.close(exited)
        if timed_out or worker_exit:
            status = None
        return self._collect(open_fds, None, out, err, status, timed_out, worker_exit, leftovers, rundir, max_events_before, elapsed, timeout)

    def _process_b_cloned(self, rundir, path, out_r, err_r, st_r, out_w, err_w, st_w, timeout):
        """B made by `_clone_new_pid_namespace`: drop the worker's descriptors, then as B."""
        try:
            os.close(self.proto_in)
            os.close(self.proto_out)
            os.close(self.life_w)
            os.close(out_r)
            os.close(err_r)
            os.close(st_r)
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            # getppid() is 0 across the namespace boundary: the life pipe tells
            # whether the worker died before the death signal was armed.
            if select.select([self.life_r], [], [], 0)[0]:
                os._exit(1)
            os.close(self.life_r)
        except BaseException:
            os._exit(1)
        return self._process_b(rundir, path, out_w, err_w, st_w, timeout)

    def _process_b(self, rundir, path, out_w, err_w, st_w, timeout):
        """B: pid 1 of the program's namespace (or a plain parent): start C, report its end."""
        try:
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if self.sandbox.private_proc:
                try:
                    _private_proc()
                except OSError:
                    pass
            pid_c = os.fork()
            if pid_c == 0:
                os.close(st_w)
                return _become_program(self.sandbox, rundir, path, out_w, err_w, timeout, source=self.source)
            os.close(out_w)
            os.close(err_w)
            os.write(st_w, b"P%d\n" % pid_c)
            while True:
                try:
                    pid, status = os.wait()
                except ChildProcessError:
                    break
                except InterruptedError:
                    continue
                if pid == pid_c:
                    os.write(st_w, b"S%d\n" % status)
                    if not self.sandbox.pid_namespace:
                        break
            os._exit(0)
        except SystemExit:
            raise
        except BaseException:
            _report_crash()
            os._exit(1)

    def _supervise(self, pid_a, out_r, err_r, st_r, start, timeout, rundir, max_events_before):
        sandbox = self.sandbox
        out = Capture(self.cap)
        err = Capture(self.cap)
        status_text = b""
        status = None
        pid_c = None
        open_fds = {out_r: out, err_r: err, st_r: None}
        deadline = start + timeout
        timed_out = False
        worker_exit = False
        while True:
            if status is not None and out_r not in open_fds and err_r not in open_fds:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select(list(open_fds) + [self.proto_in], [], [], remaining)
            for fd in ready:
                if fd == self.proto_in:
                    # The next request (kept), or sebx went away: stop everything.
                    worker_exit = self.sebx_gone()
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    del open_fds[fd]
                    os.close(fd)
                    continue
                if fd == st_r:
                    status_text += chunk
                    for line in status_text.split(b"\n")[:-1]:
                        if line.startswith(b"P") and pid_c is None:
                            pid_c = int(line[1:])
                        elif line.startswith(b"S"):
                            status = int(line[1:])
                else:
                    open_fds[fd].add(chunk)
            if worker_exit:
                break
        elapsed = time.monotonic() - start
        leftovers = False
        if not timed_out and not worker_exit and st_r in open_fds:
            # The program ended; B leaves once every other process has. Give it a moment.
            grace = time.monotonic() + 0.05
            while st_r in open_fds and time.monotonic() < grace:
                ready, _, _ = select.select([st_r], [], [], max(0.0, grace - time.monotonic()))
                if ready and not os.read(st_r, 4096):
                    del open_fds[st_r]
                    os.close(st_r)
            leftovers = st_r in open_fds
        clean_end = sandbox.pid_namespace and st_r not in open_fds and not timed_out and not worker_exit
        plain_end = not sandbox.pid_namespace and status is not None and not timed_out and not worker_exit
        if clean_end:
            # B, the namespace's init, has exited: nothing of the program is left; A follows B.
            _wait_exit(pid_a)
        elif plain_end:
            # A and B end right after the program; whatever the sweep finds was left behind.
            _wait_exit(pid_a)
            _reap()
            if _sweep(sandbox.cgroup):
                leftovers = True
        else:
            # Kill whatever is left: A (its death takes B and the namespace), C's group, the sweep.
            try:
                os.kill(pid_a, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if pid_c is not None and not sandbox.pid_namespace:
                try:
                    os.killpg(pid_c, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _sweep(sandbox.cgroup)
        return self._collect(open_fds, st_r, out, err, status, timed_out, worker_exit, leftovers, rundir, max_events_before, elapsed, timeout)

    def _collect(self, open_fds, st_r, out, err, status, timed_out, worker_exit, leftovers, rundir, max_events_before, elapsed, timeout):
        """Once every process of the program is gone: the rest of the output, cleanup, the result."""
        sandbox = self.sandbox
        contained = []
        # Drain what the killed processes left in the pipes, briefly.
        drain_until = time.monotonic() + 0.2
        while any(fd != st_r for fd in open_fds) and time.monotonic() < drain_until:
            ready, _, _ = select.select(list(open_fds), [], [], max(0.0, drain_until - time.monotonic()))
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    del open_fds[fd]
                    os.close(fd)
                elif open_fds[fd] is not None:
                    open_fds[fd].add(chunk)
        for fd in list(open_fds):
            os.close(fd)
        # A program that ended by itself and left nothing running and no change in its
        # folder or /dev/shm: nothing to clean; its folder is kept for the next one.
        kept = (
            self.folder_kept and status is not None and not timed_out and not worker_exit
            and not leftovers and not open_fds and self.watch.untouched()
        )
        if not kept:
            self.folder_kept = False
            sandbox.cwd_for = None
            _reap()
            try:
                # Most programs leave their directory as they found it.
                os.unlink(self.main_path)
                os.rmdir(rundir)
            except OSError:
                _remove_tree(rundir)
        if sandbox.private_shm and not kept:
            for entry in os.listdir("/dev/shm"):
                target = os.path.join("/dev/shm", entry)
                if os.path.isdir(target) and not os.path.islink(target):
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    try:
                        os.unlink(target)
                    except OSError:
                        pass
        if worker_exit:
            os._exit(0)
        stdout = out.finish()
        stderr = err.finish()
        exit_code = None
        sig = None
        if status is not None and not timed_out:
            if os.WIFEXITED(status):
                exit_code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
        if timed_out:
            contained.append(f"timeout: still running after {timeout:g} s; every process of the program was killed")
            stdout = b""
        self.max_events = _read_cgroup_max_events(sandbox.cgroup)
        if self.max_events > max_events_before:
            contained.append("process limit: a fork was refused (pids.max reached)")
        last = _last_line(stderr)
        if exit_code == 1 and last.split(":", 1)[0].endswith("MemoryError"):
            contained.append(f"memory limit: allocation refused (address space {sandbox.limits['address_space'] >> 20} MiB)")
        if "[Errno 27]" in last or sig == signal.SIGXFSZ:
            contained.append(f"file-size limit: a file reached {sandbox.limits['file_size'] >> 20} MiB")
        if "[Errno 24]" in last:
            contained.append(f"open-files limit: more than {sandbox.limits['open_files']} files open")
        if sig in (signal.SIGXCPU,):
            contained.append("CPU limit: CPU time exhausted")
        if "[Errno 101]" in last or "[Errno -3]" in last or "[Errno -2]" in last or "Network is unreachable" in last:
            if any(i["name"] == "no network" and i["active"] for i in sandbox.protections.items):
                contained.append("network: no network inside the sandbox")
        if "[Errno 30]" in last:
            contained.append("read-only filesystem: writing outside the program's directory was refused")
        if leftovers:
            contained.append("background processes still running after the program ended were killed")
        header = {
            "timed_out": timed_out,
            "elapsed": elapsed,
            "exit_code": exit_code,
            "signal": sig,
            "contained": contained,
            "stdout_omitted": 0 if timed_out else out.omitted,
            "stderr_omitted": err.omitted,
            # A killed program's count is how far it got: not a fact of the program.
            "zwc_calls": None if _ZWC_CALLS is None or timed_out else _ZWC_CALLS[0],
        }
        return header, stdout, stderr


def main():
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open("/dev/null", os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    config = json.loads(sys.argv[1])

    def say(obj):
        data = json.dumps(obj).encode() + b"\n"
        os.write(proto_out, data)

    try:
        zwc_root = config.get("zwc_root")
        # sys.path[0] is this file's directory; programs get theirs instead.
        rest = [p for p in sys.path[1:] if p != zwc_root]
        sys.path[:] = [sys.path[0]] + rest + ([zwc_root] if zwc_root else [])
        try:
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
        except OSError:
            pass
        sandbox = Sandbox(config)
        # Under the private /tmp these must stay visible: zwc, and the Python
        # installation itself (NumPy and the stdlib import submodules lazily).
        keep_visible = [zwc_root, sys.prefix, sys.base_prefix, sys.exec_prefix]
        keep_visible += [p for p in sys.path if p and os.path.isdir(p)]
        sandbox.setup([p for p in keep_visible if p], monitor_closes=(proto_in, proto_out))
        import numpy
        import numpy.linalg  # noqa: F401  (zwc.rfx; saves every program the import)
        import numpy.random  # noqa: F401  (reseeded in every program)

        # Programs get the generator's state set directly (_become_program);
        # reseeding once here leaves them no SeedSequence (it would be the worker's).
        numpy.random.seed()
        global _NUMPY_RESEED
        try:
            _NUMPY_RESEED = _NumpyReseed(numpy)
        except Exception:
            _NUMPY_RESEED = None

        if zwc_root:
            import zwc

            global _ZWC_CALLS
            _ZWC_CALLS = _shared_zwc_counter(zwc)
        _warm_up(numpy)
        sandbox.finish_mounts()
        sandbox.drop_privileges()
        if config.get("probe"):
            say({"ready": True, "protections": sandbox.protections.items})
            return None
        say(
            {
                "ready": True,
                "python": sys.version.split()[0],
                "numpy": numpy.__version__,
                "pid": sandbox.outer_pid,
                "protections": sandbox.protections.items,
            }
        )
    except BaseException as exc:
        say({"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        raise
    if config.get("profile"):
        import mmap

        global _MARKS
        _MARKS = mmap.mmap(-1, 4096)

    worker = Worker(sandbox, proto_in, proto_out)
    # Worker objects never need collecting: the start-up's garbage is freed (fewer pages
    # for every fork to map) and the rest frozen, so programs' collections skip them
    # (and do not copy the worker's pages).
    gc.collect()
    gc.freeze()
    return worker


# Standard-library modules solutions commonly import; importing them once here spares
# every forked program the cost (a fresh `python main.py` pays it too, but per program).
# Heavier ones (statistics, decimal, fractions, dataclasses: ~1.2 MB and 15 mappings)
# are left out: every fork copies the worker's page tables and every exit tears them
# down, and the parity rollouts import none of them (math, collections, bisect,
# operator, itertools, cmath and copy are all they use).
_COMMON_MODULES = (
    "math", "typing", "collections", "itertools", "functools", "re",
    "heapq", "bisect", "operator", "string", "copy", "cmath", "numbers", "enum",
)



def _warm_up(numpy):
    """Does once, before forking, the first-use work most programs would repeat:
    common imports and NumPy's array printing (its formatter set-up is lazy)."""
    import importlib

    for name in _COMMON_MODULES:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    try:
        for value in (
            numpy.array([1, 2]), numpy.array([1.5, -2.25]), numpy.array([[1.0, 2.0], [3.0, 4.0]]),
            numpy.array([True, False]), numpy.array([1 + 2j]), numpy.array([], dtype=float),
            numpy.float64(3.5), numpy.int64(3), numpy.bool_(True),
        ):
            str(value)
            repr(value)
    except Exception:
        pass


# worker.py is started only through boot.py (`python -c BOOT_PY worker.py CONFIG`, see
# src/grade/pool/worker.rs), which runs the top level's loop in its own bottom frame: the
# worker serves; where it is its namespace's init, each program is forked right there, so
# the program process starts at the top level, as deep as `python main.py` runs it.
