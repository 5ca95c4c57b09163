# The runtime oracle's tracer, embedded in sebx (src/grade/trace.rs). It runs one
# assembled program (the code and the official harness) with every site the static
# analysis reports on rewritten into a call of a hook: attribute loads, binary, unary
# and augmented operators, and calls of abs/round/float/int. Each hook records the
# runtime type of the receiver or operands and whether the operation raised, then
# behaves exactly as the operation would. What the code iterates, indexes, formats,
# tests with `in`, or gives to a builtin (`sum`, `sorted`, ...) or any other call
# (`math.fsum`, `functools.reduce`, a list's `extend`) passes through a hook too, which
# looks only for a ZWCArray's NumPy data (the one use of NumPy no call of the code shows).
# Python 3.11 has no sys.monitoring, and sys.settrace cannot see operand values, hence
# the rewriting.
#
# sebx appends `_sebx_trace(<program>, <lines of code>)`. The program's harness calls the
# entry function once per test case, each call in its own `try` (`_sebx_case_(i)` before
# it, `_sebx_case_failed_(exc)` when it raised): every case runs, and each site records in
# how many cases it ran cleanly and in how many it raised, and which case exceptions it
# raised. The program's own output is captured, not shown, in three parts: before the
# harness prints (`_sebx_harness_()` marks that), while it prints, and after (atexit
# handlers, run here); one line `<marker> <json>` on stdout is the trace.
#
# What the loophole findings are settled on is recorded too: the lines of the code that ran
# (a store into a list before each statement), the modules the code imported (through any
# importer, `exec` included) or looked up (`sys.modules[...]`, `getattr`), each case's returned value (type and text), how the program
# left (`sys.exit`, `os._exit`), and whether the harness's prints reached stdout. Given
# the JSON text `{"poison": true, "keep": [...]}` as third argument, every zwc function
# but those kept (the array constructors) returns a value that raises on any use: the
# counterfactual run that tells whether the answer depends on what zwc computed. With
# `{"perturb": 1 or 2}`, every zwc function returns another value of its kind instead.


def _sebx_trace(_source, _code_lines, _options=None):
    import ast
    import builtins
    import functools
    import importlib
    import io
    import json
    import operator
    import os
    import sys
    import types
    import weakref

    options = json.loads(_options) if _options else {}
    # The tracer's own functions' globals: a frame with them is one of its hooks.
    tracer_globals = globals()
    entry_name = options.get("entry")

    marker = "\x1esebx-trace"
    numpy = sys.modules.get("numpy")
    zwc = None
    try:
        import zwc
    except BaseException:
        pass
    zwc_array = getattr(zwc, "ZWCArray", None)
    ndarray = getattr(numpy, "ndarray", None)
    generic = getattr(numpy, "generic", None)
    names = {}

    def type_name(value):
        t = type(value)
        if t is types.ModuleType:
            return "module:" + str(getattr(value, "__name__", "?"))
        name = names.get(t)
        if name is None:
            if zwc_array is not None and issubclass(t, zwc_array):
                name = "ZWCArray"
            elif ndarray is not None and issubclass(t, ndarray):
                name = "ndarray"
            elif generic is not None and issubclass(t, generic):
                name = "numpy_scalar"
            else:
                name = t.__name__
            names[t] = name
        return name

    # What the run shows of NumPy reached by the program's own code (any route): [line,
    # what], the first few. NumPy's own callables are told by type, cached per type; the
    # methods of arrays and scalars zwc hands back (bound to them, not to a module) are not.
    numpy_seen = []
    plain_types = set()
    numpy_callable_types = set()
    for candidate in ("ufunc", "_ArrayFunctionDispatcher"):
        t = getattr(numpy, candidate, None)
        if isinstance(t, type):
            numpy_callable_types.add(t)

    # The NumPy array inside each ZWCArray zwc's code handed to the code (by id, weakly,
    # seen as zwc's frames return; nothing of zwc is patched, so the code sees it as it
    # is): reaching one by any route (`vars(a)`, `getattr(a, "_d" + "ata")`,
    # `object.__getattribute__`) and using it is reaching NumPy, while arrays zwc hands
    # back raw (`.T`, `rfx`) are not these objects.
    inner_arrays = {}

    def note_inner(array_like):
        """Remembers the NumPy array inside `array_like`, a ZWCArray the code was given."""
        try:
            data = vars(array_like).get("_data")
        except BaseException:
            return
        if type(data) is ndarray and len(inner_arrays) < 20000:
            ref = inner_arrays.get(id(data))
            if ref is None or ref() is not data:
                inner_arrays[id(data)] = weakref.ref(data)

    # Arrays zwc's own code returned raw to the code (an `rfx` result, say): one may become
    # a ZWCArray's data later (`asarray`), and holding it stays innocent.
    handed_raw = {}
    zwc_files = set()
    for module in (zwc, getattr(zwc, "rfx", None)):
        if isinstance(getattr(module, "__file__", None), str):
            zwc_files.add(module.__file__)

    def inner_array(value):
        """Whether `value` is the NumPy array inside a ZWCArray, not handed back raw."""
        if type(value) is not ndarray:
            return False
        ref = inner_arrays.get(id(value))
        if ref is None or ref() is not value:
            return False
        raw = handed_raw.get(id(value))
        return raw is None or raw() is not value

    def numpy_module(value):
        name = getattr(value, "__name__", "")
        return isinstance(name, str) and (name == "numpy" or name.startswith("numpy."))

    def numpy_thing(value):
        t = type(value)
        if t in plain_types:
            return None
        if t is types.ModuleType:
            return "the module " + value.__name__ if numpy_module(value) else None
        if t in numpy_callable_types:
            return "numpy's `%s`" % getattr(value, "__name__", "?")
        if isinstance(value, type):
            # A NumPy class (`ndarray`, `float64`, a dtype's class) the code took from an
            # array's type or `dtype.type`: never cached, a class's type is `type`.
            if zwc_array is not None and issubclass(value, zwc_array):
                return None
            module = getattr(value, "__module__", None)
            if isinstance(module, str) and (module == "numpy" or module.startswith("numpy.")):
                return "numpy's class `%s`" % getattr(value, "__name__", "?")
            return None
        if t in (types.MethodDescriptorType, types.WrapperDescriptorType,
                 types.ClassMethodDescriptorType):
            # An unbound method of a NumPy class (`ndarray.mean`), not one bound to an array.
            owner = getattr(value, "__objclass__", None)
            module = getattr(owner, "__module__", None)
            if isinstance(module, str) and (module == "numpy" or module.startswith("numpy.")):
                return "numpy's `%s.%s`" % (getattr(owner, "__name__", "?"),
                                             getattr(value, "__name__", "?"))
            return None
        if t in (types.FunctionType, types.BuiltinFunctionType, types.MethodType):
            # A method bound to an array or a NumPy scalar is not NumPy's function.
            owner = getattr(value, "__self__", None)
            if t is not types.FunctionType and owner is not None:
                if type(owner) is not types.ModuleType and (
                    (ndarray is not None and isinstance(owner, ndarray))
                    or (generic is not None and isinstance(owner, generic))
                    or (zwc_array is not None and isinstance(owner, zwc_array))
                ):
                    return None
            module = getattr(value, "__module__", None)
            if isinstance(module, str) and (module == "numpy" or module.startswith("numpy.")):
                return "numpy's `%s`" % getattr(value, "__name__", "?")
            return None
        plain_types.add(t)
        return None

    def note_numpy(what, frame):
        if len(numpy_seen) < 16:
            note_numpy_at(what, code_line(frame))

    def note_numpy_at(what, line):
        if line is None or len(numpy_seen) >= 16:
            return
        entry = [line, what]
        if entry not in numpy_seen:
            numpy_seen.append(entry)

    # Per site: [kind, name, line, col, end_line, end_col, runs_ok, ok_types, fails,
    # cases where it ran without raising, cases where it raised, case exceptions it raised]
    sites = []
    last_raised = {}
    # The test case running (None outside the cases' calls), the cases started, and every
    # exception that ended a case or the program.
    case = [None]
    cases_run = [0]
    crashes = []

    def ok(site, what):
        s = sites[site]
        s[6] += 1
        if len(s[7]) < 8:
            s[7].add(what)
        if case[0] is not None:
            s[9].add(case[0])

    def failed(site, what, exc):
        s = sites[site]
        if len(s[8]) < 4:
            s[8].append([what, type(exc).__name__, str(exc)[:200]])
        elif s[8]:
            s[8][-1] = [what, type(exc).__name__, str(exc)[:200]]
        if case[0] is not None:
            s[10].add(case[0])
        last_raised[site] = exc

    def attr(obj, name, site):
        try:
            value = getattr(obj, name)
        except BaseException as exc:
            failed(site, type_name(obj), exc)
            raise
        what = type_name(obj)
        ok(site, what)
        if what == "ZWCArray":
            # Wherever it came from (a copy zwc never handed out, say): its data is known.
            note_inner(obj)
        if what.startswith("module:numpy"):
            note_numpy("read `%s` of %s" % (name, what[7:]), sys._getframe(1))
        elif what == "ZWCArray" and name in ("_data", "__array__", "__dict__"):
            note_numpy("unwrapped a ZWCArray's NumPy data (`.%s`)" % name, sys._getframe(1))
        else:
            found = numpy_thing(value)
            if found is not None:
                note_numpy("got %s from `.%s` of a %s" % (found, name, what), sys._getframe(1))
        return value

    # An operator or `abs`/`round` the code applies to a ZWCArray's NumPy data, however it
    # reached it (`inspect.getattr_static`, a key built at run time): NumPy computes there,
    # and no call of the code's shows it.
    def inner_operand(site, *operands):
        if inner_arrays and any(inner_array(o) for o in operands):
            note_numpy(
                "used `%s` on a ZWCArray's NumPy data" % sites[site][1], sys._getframe(2)
            )

    def binary(left, right, site):
        try:
            value = ops[site](left, right)
        except BaseException as exc:
            failed(site, type_name(left) + "," + type_name(right), exc)
            raise
        ok(site, type_name(left) + "," + type_name(right))
        inner_operand(site, left, right)
        if inner_arrays and type(value) is ndarray:
            derive(value, left, right)
        if type(right) is tuple and inner_arrays and type(left) is str:
            # `'%s' % (data,)`: the data's text is NumPy's.
            if any(inner_array(item) for item in right[:64]):
                note_numpy("used `%` on a ZWCArray's NumPy data", sys._getframe(1))
        return value

    # A ZWCArray's NumPy data used where no operator or call hook sees it: iterated (`for`,
    # a comprehension), indexed, formatted (an f-string), unpacked, or given to a builtin
    # (`sum`, `max`, `sorted`, `list`, `str`, `print`, ...). NumPy computes there (the
    # elements, their sums and comparisons, the text). The rewritten code hands the value
    # to one of these and gets it back unchanged; only an inner array is looked at further,
    # and a ZWCArray's data is remembered (a copy's too: a `match` class pattern reads it
    # where no attribute hook sees).
    def used(value, what):
        t = type(value)
        if t is ndarray:
            if inner_arrays and inner_array(value):
                note_numpy("used %s on a ZWCArray's NumPy data" % what, sys._getframe(1))
        elif zwc_array is not None and t is zwc_array:
            note_inner(value)
        return value

    # The builtins a call's arguments are looked at for, and which arguments: the name is
    # resolved in the calling frame only when an argument is an inner array, so a `sum` of
    # the code's own (or a parameter named `list`) is not taken for the builtin.
    real_builtins = {}
    for key in ("len", "sum", "sorted", "list", "tuple", "set", "frozenset", "iter",
                "next", "reversed", "enumerate", "any", "all", "str", "repr", "ascii",
                "format", "bool", "bytes", "bytearray", "memoryview", "dict", "complex",
                "max", "min", "zip", "print", "divmod", "pow", "map", "filter"):
        real_builtins[key] = vars(builtins)[key]
    all_arguments = ("max", "min", "zip", "print", "divmod", "pow")
    later_arguments = ("map", "filter")
    missing = object()

    def used_by(value, name):
        if inner_arrays and type(value) is ndarray and inner_array(value):
            frame = sys._getframe(1)
            try:
                callee = frame.f_locals.get(name, missing)
                if callee is missing:
                    callee = frame.f_globals.get(name, missing)
                if callee is missing:
                    callee = frame.f_builtins.get(name)
            except BaseException:
                callee = None
            if callee is real_builtins.get(name):
                note_numpy("used `%s()` on a ZWCArray's NumPy data" % name, frame)
        return value

    # Any other call's arguments (`math.fsum(data)`, `functools.reduce(op, data)`,
    # `deque(data)`, `acc.extend(data)`): a ZWCArray's NumPy data handed to a library that
    # iterates or computes with it itself, where no hook of the code's sees the use. The
    # callee is resolved from the call's dotted name in the calling frame, only when an
    # argument is an inner array, through modules and C objects only (nothing of the
    # code's runs). A ZWCArray given on is remembered, so its data is known wherever the
    # array came from (a `copy.deepcopy`, a `pickle` round trip).
    not_computing = {
        vars(builtins)[key]
        for key in ("type", "isinstance", "issubclass", "id", "callable", "getattr",
                    "hasattr", "setattr", "delattr", "vars", "dir", "hash", "object",
                    "super", "print")
    }
    # Methods that only store what they are given: a later use is seen where it is.
    storing = ("append", "insert", "add", "appendleft", "setdefault", "put", "put_nowait",
               "__setitem__", "push")
    heap_type = 1 << 9

    def callee_of(path, frame):
        if type(path) is int:
            # A callee no dotted name gives (`fns[0](data)`, `getattr(m, n)(data)`): the
            # object itself, kept by `_sebx_callee_` as the call was made in this frame.
            kept = callees.get(path)
            return kept[1] if kept is not None and kept[0] == id(frame) else missing
        try:
            obj = frame.f_locals.get(path[0], missing)
            if obj is missing:
                obj = frame.f_globals.get(path[0], missing)
            if obj is missing:
                obj = frame.f_builtins.get(path[0], missing)
            for attr in path[1:]:
                if obj is missing:
                    break
                if type(obj) is types.ModuleType:
                    obj = vars(obj).get(attr, missing)
                elif not type(obj).__flags__ & heap_type:
                    obj = getattr(obj, attr, missing)
                else:
                    obj = static_attr(obj, attr)
            return obj
        except BaseException:
            return missing

    getset = type(type.__dict__["__dict__"])
    dict_of = type.__dict__["__dict__"].__get__
    mro_of = type.__dict__["__mro__"].__get__

    def in_mro(klass, attr):
        for k in mro_of(klass):
            found = dict_of(k).get(attr, missing)
            if found is not missing:
                return found
        return missing

    def static_attr(obj, attr):
        """`obj.attr` for an object or a class of Python's, read from the dicts only (as
        `inspect.getattr_static` does): no `__getattr__`, property or descriptor of the
        code's runs. A method is its function; anything a descriptor computes is missing."""
        klass = obj if isinstance(obj, type) else type(obj)
        found = in_mro(klass, attr)
        if found is not missing and not isinstance(
            found, (types.FunctionType, staticmethod, classmethod, type)
        ):
            if type(found).__flags__ & heap_type or hasattr(type(found), "__set__"):
                return missing
        if klass is not obj:
            slot = in_mro(klass, "__dict__")
            if type(slot) is getset:
                own = slot.__get__(obj).get(attr, missing)
                if own is not missing:
                    return own
        if isinstance(found, (staticmethod, classmethod)):
            return found.__func__
        return found

    def ours(module):
        return isinstance(module, str) and (
            module in ("__main__", "zwc", "numpy")
            or module.startswith("zwc.")
            or module.startswith("numpy.")
        )

    def library_callee(callee):
        """Whether handing a value to `callee` is a use the code's own hooks do not see:
        neither the code's own function or class, nor zwc's or NumPy's, nor a builtin that
        only looks at what it is given, nor a method that only stores it."""
        for _ in range(8):
            if isinstance(callee, functools.partial):
                callee = callee.func
            elif type(callee) is types.MethodType:
                if isinstance(callee.__self__, (ndarray, generic)) or (
                    zwc_array is not None and isinstance(callee.__self__, zwc_array)
                ):
                    return False
                callee = callee.__func__
            else:
                break
        if callee is missing or callee in not_computing:
            return False
        t = type(callee)
        if t is types.FunctionType:
            if callee.__code__.co_filename == main.__file__:
                return False
            return not ours(getattr(callee, "__module__", None))
        if t is types.BuiltinFunctionType:
            owner = callee.__self__
            if type(owner) is types.ModuleType:
                return not ours(owner.__name__)
            if isinstance(owner, (ndarray, generic)) or (
                zwc_array is not None and isinstance(owner, zwc_array)
            ):
                return False
            if isinstance(owner, type):
                return not ours(owner.__module__)
            return callee.__name__ not in storing
        if isinstance(callee, type):
            if zwc_array is not None and issubclass(callee, zwc_array):
                return False
            return not ours(callee.__module__)
        return not ours(getattr(t, "__module__", None))

    # The callees no dotted name gives, by call: [id of the calling frame, the object],
    # kept as the call is made (its callee is evaluated before its arguments); and each
    # call's callee as written.
    callees = {}
    callee_texts = []

    def kept_callee(obj, site):
        callees[site] = (id(sys._getframe(1)), obj)
        return obj

    def callee_text(path, callee):
        if type(path) is not int:
            return "`%s()`" % ".".join(path)
        written = callee_texts[path]
        t = type(callee)
        if t is types.MethodType:
            callee, t = callee.__func__, type(callee.__func__)
        if t in (types.FunctionType, types.BuiltinFunctionType) or isinstance(callee, type):
            module = getattr(callee, "__module__", None)
            name = "%s.%s" % (module, callee.__qualname__) if module else callee.__qualname__
            if name != written:
                return "`%s()` (`%s`)" % (written, name)
        return "`%s()`" % written

    def passed(value, path):
        t = type(value)
        if t is ndarray:
            if inner_arrays and inner_array(value):
                frame = sys._getframe(1)
                callee = callee_of(path, frame)
                if library_callee(callee):
                    note_numpy(
                        "handed a ZWCArray's NumPy data to " + callee_text(path, callee),
                        frame,
                    )
        elif zwc_array is not None and t is zwc_array:
            note_inner(value)
        elif t not in plain_types:
            # NumPy's own function or ufunc handed to a library that calls it from C
            # (`functools.reduce(add, a)` with `add` unpickled): no call hook sees that.
            found = numpy_thing(value)
            if found is not None:
                frame = sys._getframe(1)
                callee = callee_of(path, frame)
                if library_callee(callee):
                    note_numpy("handed %s to %s" % (found, callee_text(path, callee)), frame)
        return value

    def unary(operand, site):
        try:
            value = ops[site](operand)
        except BaseException as exc:
            failed(site, type_name(operand), exc)
            raise
        ok(site, type_name(operand))
        inner_operand(site, operand)
        if inner_arrays and type(value) is ndarray:
            derive(value, operand)
        return value

    compare_ops = {
        ast.Eq: ("==", operator.eq),
        ast.NotEq: ("!=", operator.ne),
        ast.Lt: ("<", operator.lt),
        ast.LtE: ("<=", operator.le),
        ast.Gt: (">", operator.gt),
        ast.GtE: (">=", operator.ge),
        # `x in data`: the container's `__contains__` compares each element with `x`.
        ast.In: ("in", lambda a, b: a in b),
        ast.NotIn: ("not in", lambda a, b: a not in b),
    }
    compare_by_name = {op.__name__: entry for op, entry in compare_ops.items()}

    def compare(left, right, op):
        sym, fn = compare_by_name[op]
        value = fn(left, right)
        if inner_arrays and (inner_array(left) or inner_array(right)):
            note_numpy("used `%s` on a ZWCArray's NumPy data" % sym, sys._getframe(1))
        return value

    def call(func, site, *args, **kwargs):
        what = type_name(args[0]) if args else "-"
        try:
            value = func(*args, **kwargs)
        except BaseException as exc:
            failed(site, what, exc)
            raise
        ok(site, what)
        inner_operand(site, *args[:1])
        return value

    binary_ops = {
        ast.Add: ("+", operator.add, operator.iadd),
        ast.Sub: ("-", operator.sub, operator.isub),
        ast.Mult: ("*", operator.mul, operator.imul),
        ast.Div: ("/", operator.truediv, operator.itruediv),
        ast.Pow: ("**", operator.pow, operator.ipow),
        ast.Mod: ("%", operator.mod, operator.imod),
        ast.FloorDiv: ("//", operator.floordiv, operator.ifloordiv),
        ast.MatMult: ("@", operator.matmul, operator.imatmul),
        ast.BitAnd: ("&", operator.and_, operator.iand),
        ast.BitOr: ("|", operator.or_, operator.ior),
        ast.BitXor: ("^", operator.xor, operator.ixor),
        ast.LShift: ("<<", operator.lshift, operator.ilshift),
        ast.RShift: (">>", operator.rshift, operator.irshift),
    }
    unary_ops = {
        ast.USub: ("unary -", operator.neg),
        ast.UAdd: ("unary +", operator.pos),
        ast.Invert: ("unary ~", operator.invert),
    }
    ops = {}

    def new_site(kind, name, node, fn=None):
        site = len(sites)
        shift = 1 << 40 if in_text[0] else 0
        sites.append(
            [kind, name, node.lineno + shift, node.col_offset, node.end_lineno + shift,
             node.end_col_offset, 0, set(), [], set(), set(), 0]
        )
        if fn is not None:
            ops[site] = fn
        return site

    def hook(name, node, args, keywords=()):
        out = ast.Call(
            func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=list(keywords)
        )
        return ast.copy_location(out, node)

    def looked_at(node, what):
        """`node` as `_sebx_used_(node, what)`: what it gives is looked at, then given on."""
        return hook("_sebx_used_", node, [node, ast.Constant(what)])

    # In a perturbed run, checks are not computation: an `assert` and a guard (an `if` one
    # of whose branches only fails: prints, then a `raise`, an exit, a call of a function
    # of the code's that only does either, or a `return` of NaN or None) are taken out, as
    # `python -O` takes asserts out, and so is `ok or fail()`; so that an answer computed
    # without zwc and only checked against it reads as what it is, while one computed by
    # zwc still changes with zwc's values. A normal run took no failing branch (it was
    # paid), so only a perturbed run's answer can change; where a branch was taken as an
    # answer (NaN expected), the perturbed answer differs, which accuses nothing.
    strip_checks = bool(options.get("perturb"))
    exits = {("sys", "exit"), ("exit",), ("quit",), ("os", "_exit"), ("os", "abort")}
    failing_helpers = set()
    own_defs = []

    def fails(stmt):
        """`stmt` only ends the run or the answer: a raise, an exit, a failing helper's
        call (as a statement), or a return of NaN or None."""
        if isinstance(stmt, ast.Raise):
            return True
        if isinstance(stmt, ast.Return):
            v = stmt.value
            return v is None or (isinstance(v, ast.Constant) and v.value is None) or is_nan(v)
        return isinstance(stmt, ast.Expr) and fails_call(stmt.value)

    def is_nan(v):
        """`float('nan')` or `math.nan`."""
        if isinstance(v, ast.Attribute):
            return dotted(v) == ("math", "nan")
        return (
            isinstance(v, ast.Call)
            and dotted(v.func) == ("float",)
            and len(v.args) == 1
            and isinstance(v.args[0], ast.Constant)
            and str(v.args[0].value).strip().lower() in ("nan", "+nan", "-nan")
        )

    def fails_call(node):
        if not isinstance(node, ast.Call):
            return False
        name = dotted(node.func)
        return name in exits or (name is not None and name[0] in failing_helpers)

    def only_fails(body):
        """A block that prints, then fails."""
        *before, last = body
        return fails(last) and all(
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and dotted(s.value.func) == ("print",)
            for s in before
        )


    # The names the official zwc check counts as zwc, wherever they are imported: `import zwc`,
    # `import zwc as A` (the module: ""), `from zwc import N as M` (M: "N"). A use of one
    # during the cases that is not zwc's own module or function (shadowed, rebound, a
    # parameter, a stand-in) is noted: the check counted a call zwc never made.
    zwc_names = {}
    # The names the code defines a function or class under (`def`, `class`, `= lambda`)
    # and binds no other way: what a call of one is handed is seen inside it, so its
    # arguments are not looked at. A name also bound otherwise (`total = math.fsum`, an
    # import, a parameter) may be a library's when called: its calls are looked at.
    own_callables = set()
    bound_otherwise = set()
    lambda_names = set()
    try:
        for node in ast.walk(ast.parse(_source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own_callables.add(node.name)
                if strip_checks and not isinstance(node, ast.ClassDef):
                    own_defs.append(node)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        own_callables.add(t.id)
                        lambda_names.add(id(t))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "zwc":
                        zwc_names[alias.asname or "zwc"] = ""
            elif isinstance(node, ast.ImportFrom) and node.module == "zwc" and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        zwc_names[alias.asname or alias.name] = alias.name
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound_otherwise.update(
                    (a.asname or a.name).split(".")[0] for a in node.names
                )
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                if id(node) not in lambda_names:
                    bound_otherwise.add(node.id)
            elif isinstance(node, ast.arg):
                bound_otherwise.add(node.arg)
        own_callables -= bound_otherwise
    except BaseException:
        pass
    rebound = []

    def zwc_name(obj, name, line):
        if case[0] is not None and len(rebound) < 4:
            try:
                original = zwc_names.get(name)
                if original == "":
                    genuine = obj is zwc
                else:
                    genuine = zwc is not None and any(
                        obj is vars(m).get(original)
                        for m in (zwc, vars(zwc).get("rfx"))
                        if type(m) is types.ModuleType
                    )
                if not genuine:
                    entry = [line, name, describe_object(obj)]
                    if entry not in rebound:
                        rebound.append(entry)
            except BaseException:
                pass
        return obj

    def describe_object(value):
        """What a value is, read from its type only (a stand-in's `__getattr__` answers
        anything and may count what it is asked)."""
        t = type(value)
        if t is types.ModuleType:
            return "the module `%s`" % vars(value).get("__name__", "?")
        if t is types.FunctionType:
            code = value.__code__
            if code.co_filename == main.__file__:
                return "the code's own `%s` (line %d)" % (value.__name__, code.co_firstlineno)
            return "the function `%s`" % value.__name__
        return "a %s" % t.__name__

    builtins._sebx_zwc_name_ = zwc_name

    def dotted(node):
        """`a.b.c` as ("a", "b", "c"); None for any other expression."""
        names = []
        while isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        names.append(node.id)
        return tuple(reversed(names))

    # What a call's argument can be written as when it is a ZWCArray or its data.
    passable = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.NamedExpr)

    # The code's functions that only fail (`def fail(): raise ...`), for the guards above
    # (from the `def`s the walk over the code collected).
    for node in own_defs:
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if len(body) == 1 and (
            isinstance(body[0], ast.Raise)
            or (isinstance(body[0], ast.Expr) and fails_call(body[0].value))
        ):
            failing_helpers.add(node.name)

    class Rewrite(ast.NodeTransformer):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Load) and node.id in zwc_names:
                return hook(
                    "_sebx_zwc_name_",
                    node,
                    [node, ast.Constant(node.id), ast.Constant(node.lineno)],
                )
            return node

        def visit_Assert(self, node):
            if strip_checks:
                return ast.copy_location(ast.Pass(), node)
            self.generic_visit(node)
            return node

        def visit_If(self, node):
            if strip_checks:
                kept = None
                if only_fails(node.body):
                    kept = node.orelse
                elif node.orelse and only_fails(node.orelse):
                    kept = node.body
                if kept is not None:
                    if not kept:
                        return ast.copy_location(ast.Pass(), node)
                    out = []
                    for s in kept:
                        s = self.visit(s)
                        out.extend(s if isinstance(s, list) else [s] if s is not None else [])
                    return out or ast.copy_location(ast.Pass(), node)
            self.generic_visit(node)
            return node

        def visit_IfExp(self, node):
            # `m if ok else float('nan')`, `m if ok else fail()`: the answer's side.
            if strip_checks:
                if is_nan(node.orelse) or fails_call(node.orelse):
                    return self.visit(node.body)
                if is_nan(node.body) or fails_call(node.body):
                    return self.visit(node.orelse)
            self.generic_visit(node)
            return node

        def visit_Expr(self, node):
            # `ok or fail()`, `bad and sys.exit(1)`: a check that fails the run.
            v = node.value
            if strip_checks and isinstance(v, ast.BoolOp) and fails_call(v.values[-1]):
                return ast.copy_location(ast.Pass(), node)
            self.generic_visit(node)
            return node

        def visit_Attribute(self, node):
            self.generic_visit(node)
            private = node.attr.startswith("__") and not node.attr.endswith("__")
            if not isinstance(node.ctx, ast.Load) or private:
                return node
            site = new_site("attr", node.attr, node)
            return hook(
                "_sebx_attr_",
                node,
                [node.value, ast.Constant(node.attr), ast.Constant(site)],
            )

        def visit_BinOp(self, node):
            if isinstance(node.op, ast.Mod) and isinstance(node.right, ast.Tuple):
                # `'%s' % (data,)`: the `%` hook looks at the tuple's items itself.
                node.right.formatted = True
            self.generic_visit(node)
            sym, fn, _ = binary_ops[type(node.op)]
            site = new_site("binop", sym, node, fn)
            return hook("_sebx_binary_", node, [node.left, node.right, ast.Constant(site)])

        def visit_Compare(self, node):
            # One comparison (`a == b`): the hook sees its operands (a chain is left alone).
            self.generic_visit(node)
            if len(node.ops) != 1 or type(node.ops[0]) not in compare_ops:
                return node
            return hook(
                "_sebx_compare_",
                node,
                [node.left, node.comparators[0], ast.Constant(type(node.ops[0]).__name__)],
            )

        def visit_UnaryOp(self, node):
            self.generic_visit(node)
            entry = unary_ops.get(type(node.op))
            if entry is None:
                return node
            site = new_site("unary", entry[0], node, entry[1])
            return hook("_sebx_unary_", node, [node.operand, ast.Constant(site)])

        def visit_AugAssign(self, node):
            self.generic_visit(node)
            if not isinstance(node.target, ast.Name):
                return node
            sym, _, fn = binary_ops[type(node.op)]
            site = new_site("binop", sym, node, fn)
            load = ast.copy_location(ast.Name(id=node.target.id, ctx=ast.Load()), node)
            value = hook("_sebx_binary_", node, [load, node.value, ast.Constant(site)])
            return ast.copy_location(ast.Assign(targets=[node.target], value=value), node)

        def visit_Assign(self, node):
            # `a, b = value`: a poisoned value unpacks into as many poisons (the
            # counterfactual run's); any other value is left as it is.
            self.generic_visit(node)
            target = node.targets[0] if len(node.targets) == 1 else None
            if not isinstance(target, (ast.Tuple, ast.List)) or any(
                isinstance(e, ast.Starred) for e in target.elts
            ):
                return node
            node.value = hook(
                "_sebx_unpack_", node.value, [node.value, ast.Constant(len(target.elts))]
            )
            return node

        def visit_Subscript(self, node):
            # `sys.modules["numpy"]`, `f.__globals__["_np"]`, `vars(m)["x"]`: the value it
            # gives is recorded. What is indexed is looked at too.
            looked_up = isinstance(node.ctx, ast.Load) and (
                (isinstance(node.value, ast.Attribute) and node.value.attr == "modules")
                or (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str))
            )
            self.generic_visit(node)
            node.value = looked_at(node.value, "indexing")
            if not looked_up:
                return node
            return hook("_sebx_value_", node, [node, ast.Constant(node.lineno)])

        def visit_For(self, node):
            self.generic_visit(node)
            node.iter = looked_at(node.iter, "a `for` loop")
            return node

        visit_AsyncFor = visit_For

        # `[data]`, `(data, n)`, `{data}`: a ZWCArray's NumPy data put in a container the
        # code builds and hands on (`map(math.fsum, [data])`, `f(*[data])`), where no hook
        # sees what the consumer does with the element, is looked at as it goes in.
        displays = {ast.List: "`[...]`", ast.Tuple: "`(...)`", ast.Set: "`{...}`"}

        def visit_List(self, node):
            self.generic_visit(node)
            if isinstance(getattr(node, "ctx", ast.Load()), ast.Load) and not getattr(
                node, "formatted", False
            ):
                what = self.displays[type(node)]
                for i, e in enumerate(node.elts):
                    if isinstance(e, ast.Starred):
                        e.value = looked_at(e.value, "`*` unpacking")
                    elif isinstance(e, passable):
                        node.elts[i] = looked_at(e, what)
            return node

        visit_Tuple = visit_Set = visit_List

        def visit_Dict(self, node):
            # `{"d": data}`, `f(**{"seq": data})`: keys and values as they go in.
            self.generic_visit(node)
            for i, (k, v) in enumerate(zip(node.keys, node.values)):
                if k is None:
                    node.values[i] = looked_at(v, "`**` unpacking")
                    continue
                if isinstance(k, passable):
                    node.keys[i] = looked_at(k, "`{...: ...}`")
                if isinstance(v, passable):
                    node.values[i] = looked_at(v, "`{...: ...}`")
            return node

        # `[data for _ in xs]`, `{k: data for k in ks}`: what a comprehension builds, as
        # each element goes in (its iterable is looked at by visit_comprehension).
        def visit_ListComp(self, node):
            self.generic_visit(node)
            if isinstance(node.elt, passable):
                node.elt = looked_at(node.elt, "a comprehension")
            return node

        visit_SetComp = visit_GeneratorExp = visit_ListComp

        def visit_DictComp(self, node):
            self.generic_visit(node)
            if isinstance(node.key, passable):
                node.key = looked_at(node.key, "a comprehension")
            if isinstance(node.value, passable):
                node.value = looked_at(node.value, "a comprehension")
            return node

        def visit_Match(self, node):
            # `match c: case object(_data=d)`: a class pattern reads attributes in C, where
            # no attribute hook sees it. The subject is looked at.
            self.generic_visit(node)
            node.subject = looked_at(node.subject, "a `match`")
            return node

        def visit_comprehension(self, node):
            self.generic_visit(node)
            node.iter = looked_at(node.iter, "a comprehension")
            return node

        def visit_FormattedValue(self, node):
            self.generic_visit(node)
            node.value = looked_at(node.value, "an f-string")
            return node

        def visit_Call(self, node):
            func = written = node.func
            path = dotted(written)
            text = ast.unparse(written) if path is None else None
            # `getattr(zwc, "_np")`, `sys.modules.get("numpy")`: the value is recorded.
            looked_up = (isinstance(func, ast.Name) and func.id in ("getattr", "vars")) or (
                isinstance(func, ast.Attribute)
                and func.attr == "__getattribute__"
                and bool(node.args)
            ) or (
                isinstance(func, ast.Attribute)
                and func.attr in ("get", "__getitem__", "pop")
                and bool(node.args)
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ) or (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and isinstance(func.value, ast.Attribute)
                and func.value.attr == "modules"
            )
            self.generic_visit(node)
            if looked_up:
                self.passed(node, path)
                return hook("_sebx_value_", node, [node, ast.Constant(node.lineno)])
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("abs", "round", "float", "int"):
                site = new_site("call", func.id + "()", node)
                return hook(
                    "_sebx_call_", node, [func, ast.Constant(site)] + node.args, node.keywords
                )
            if isinstance(func, ast.Name) and func.id in real_builtins:
                self.starred(node)
                if func.id in all_arguments:
                    looked = range(len(node.args))
                elif func.id in later_arguments:
                    looked = range(1, len(node.args))
                else:
                    looked = range(min(1, len(node.args)))
                for i in looked:
                    arg = node.args[i]
                    if not isinstance(arg, ast.Starred):
                        node.args[i] = hook(
                            "_sebx_used_by_", arg, [arg, ast.Constant(func.id)]
                        )
            elif isinstance(written, ast.Attribute) and written.attr == "format":
                node.args = [
                    a if isinstance(a, ast.Starred) else looked_at(a, "`str.format()`")
                    for a in node.args
                ]
            elif path is None:
                # A callee no dotted name gives: the object is kept as the call is made.
                self.starred(node)
                if any(isinstance(a, passable) for a in node.args) or any(
                    k.arg is not None and isinstance(k.value, passable) for k in node.keywords
                ):
                    site = len(callee_texts)
                    callee_texts.append(text if len(text) <= 60 else text[:57] + "...")
                    node.func = hook("_sebx_callee_", node.func, [node.func, ast.Constant(site)])
                    self.passed(node, site)
            elif (
                path[0] not in zwc_names
                and path[0] not in own_callables
                and path[-1] not in storing
            ):
                # Neither zwc's nor the code's own by name: what is handed on is looked at.
                self.starred(node)
                self.passed(node, path)
            return node

        def passed(self, node, path):
            given = ast.Constant(path)
            for i, arg in enumerate(node.args):
                if isinstance(arg, passable):
                    node.args[i] = hook("_sebx_passed_", arg, [arg, given])
            for keyword in node.keywords:
                if keyword.arg is not None and isinstance(keyword.value, passable):
                    keyword.value = hook("_sebx_passed_", keyword.value, [keyword.value, given])

        def starred(self, node):
            """`f(*data)`: the data is iterated."""
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    arg.value = looked_at(arg.value, "`*` unpacking")

    # Modules the code got by looking them up (`sys.modules[...]`, `getattr`), by line.
    modules = []

    def value(got, line):
        if type(got) is types.ModuleType and len(modules) < 64:
            entry = [line, type_name(got)]
            if entry not in modules:
                modules.append(entry)
        found = numpy_thing(got)
        if found is not None:
            note_numpy("looked up " + found, sys._getframe(1))
        elif inner_array(got) or (
            type(got) is dict and inner_array(got.get("_data"))
        ):
            note_numpy("unwrapped a ZWCArray's NumPy data (a lookup)", sys._getframe(1))
        return got

    builtins._sebx_value_ = value

    # The counterfactual's poison type, once made: what `a, b = value` unpacks as many times.
    poison_type = [None]

    def unpack(got, n):
        if poison_type[0] is not None and type(got) is poison_type[0]:
            return (got,) * n
        if inner_arrays and type(got) is ndarray and inner_array(got):
            note_numpy("used unpacking on a ZWCArray's NumPy data", sys._getframe(1))
        return got

    builtins._sebx_unpack_ = unpack
    builtins._sebx_attr_ = attr
    builtins._sebx_binary_ = binary
    builtins._sebx_unary_ = unary
    builtins._sebx_compare_ = compare
    builtins._sebx_call_ = call
    builtins._sebx_used_ = used
    builtins._sebx_used_by_ = used_by
    builtins._sebx_passed_ = passed
    builtins._sebx_callee_ = kept_callee

    main = types.ModuleType("__main__")
    main.__file__ = getattr(sys.modules.get("__main__"), "__file__", "main.py")
    main.__builtins__ = builtins

    # The lines of the code that ran: `_sebx_seen_[line] = 1` before each statement.
    seen = bytearray(_code_lines + 2)
    builtins._sebx_seen_ = seen

    def mark(stmt):
        target = ast.Subscript(
            value=ast.Name(id="_sebx_seen_", ctx=ast.Load()),
            slice=ast.Constant(stmt.lineno),
            ctx=ast.Store(),
        )
        return ast.copy_location(ast.Assign(targets=[target], value=ast.Constant(1)), stmt)

    class Lines(ast.NodeVisitor):
        def generic_visit(self, node):
            for field, value in ast.iter_fields(node):
                if not (isinstance(value, list) and value and isinstance(value[0], ast.stmt)):
                    continue
                # `from __future__` (and a docstring before it) must stay first.
                start = 0
                if isinstance(node, ast.Module):
                    for i, stmt in enumerate(value):
                        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                            start = i + 1
                out = value[:start]
                for stmt in value[start:]:
                    if stmt.lineno <= _code_lines:
                        out.append(mark(stmt))
                    out.append(stmt)
                setattr(node, field, out)
            super().generic_visit(node)

    # Modules the code imported, with the line of the code that did (through `import`,
    # `__import__`, `importlib.import_module`, or code it `exec`s).
    imports = []

    def code_line(frame):
        while frame is not None:
            if frame.f_code.co_filename == main.__file__ and frame.f_globals is main.__dict__:
                return frame.f_lineno if frame.f_lineno <= _code_lines else None
            frame = frame.f_back
        return None

    def note_import(name, frame):
        if not isinstance(name, str) or len(imports) >= 64:
            return
        # The importer itself must be the code (or text it runs, or a file it wrote), not
        # a library.
        filename = frame.f_code.co_filename
        if (
            frame.f_globals is not main.__dict__
            and not filename.startswith("<")
            and not program_file(filename)
        ):
            return
        line = code_line(frame)
        if line is not None and [line, name] not in imports:
            imports.append([line, name])

    real_import = builtins.__import__

    def traced_import(name, globals=None, locals=None, fromlist=(), level=0):
        module = real_import(name, globals, locals, fromlist, level)
        # C code's imports (`PyImport_Import`: the pickler looking up `numpy.dtype` for a
        # NumPy scalar it saves) pass an empty list and the caller's globals twice; the
        # Python frame below them is the code's, which imported nothing itself.
        from_c = type(fromlist) is list and not fromlist and globals is not None and globals is locals
        if level == 0 and not from_c:
            note_import(name, sys._getframe(1))
        return module

    real_import_module = importlib.import_module

    def traced_import_module(name, package=None):
        module = real_import_module(name, package)
        note_import(name, sys._getframe(1))
        return module

    builtins.__import__ = traced_import
    importlib.import_module = traced_import_module

    # Text the code runs (`exec`, `eval`, `compile`) is rewritten like the code, so what it
    # reaches is seen too; its sites are the text's, not the code's (never reported).
    real_exec, real_eval, real_compile = builtins.exec, builtins.eval, builtins.compile
    in_text = [0]

    # The file names the code compiled text under (`compile(src, "m", "exec")`): that
    # text is the code's too, whatever namespace it runs in.
    compiled_names = set()

    # The files that are not the program's: the interpreter's (under its prefixes), zwc's,
    # the modules loaded and the frames running when the tracer started (the worker's,
    # the tracer's, which shares its file name with the code: its globals tell them
    # apart). Any other file whose code runs is one the program wrote or brought
    # (`import` of a module it wrote, `runpy.run_path`).
    zwc_dirs = tuple({os.path.join(os.path.dirname(f), "") for f in zwc_files})
    installed = zwc_dirs + tuple(
        {os.path.join(p, "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                         sys.base_exec_prefix) if isinstance(p, str) and p}
    )
    started_files = set()
    _f = sys._getframe()
    while _f is not None:
        started_files.add(_f.f_code.co_filename)
        _f = _f.f_back
    for _m in list(sys.modules.values()):
        try:
            _fn = vars(_m).get("__file__")
        except BaseException:
            _fn = None
        if isinstance(_fn, str):
            started_files.add(_fn)
    program_files = {}

    def program_file(filename):
        """Whether code compiled under `filename` is the program's: text it ran or
        compiled under any name but a frozen module's (`<string>`, `<timeit-src>`,
        `<doctest ...>`), or a file that is not one of the above."""
        known = program_files.get(filename)
        if known is None:
            if not isinstance(filename, str):
                known = False
            elif filename.startswith("<"):
                known = not filename.startswith("<frozen")
            else:
                known = filename not in started_files and not filename.startswith(installed)
            if len(program_files) < 4096:
                program_files[filename] = known
        return known or (bool(compiled_names) and filename in compiled_names)

    def programs(frame):
        return frame.f_globals is main.__dict__ or program_file(frame.f_code.co_filename)

    def rewritten(source, filename, mode, flags=0):
        if not isinstance(source, (str, bytes)):
            return None
        try:
            in_text[0] += 1
            tree = Rewrite().visit(ast.parse(source, filename, mode))
            ast.fix_missing_locations(tree)
            return real_compile(tree, filename, mode, flags, dont_inherit=True)
        except BaseException:
            return None
        finally:
            in_text[0] -= 1

    def own_builtins(args, kwargs):
        scope = args[0] if args else kwargs.get("globals")
        if isinstance(scope, dict) and "__builtins__" in scope:
            return scope["__builtins__"] in (builtins, vars(builtins))
        return True

    def callers_scope(frame, args, kwargs):
        """`exec` and `eval` given no namespace run in their caller's: the code's frame,
        not this wrapper's."""
        if args or "globals" in kwargs or "locals" in kwargs:
            return args
        return (frame.f_globals, frame.f_locals)

    def traced_exec(source, *args, **kwargs):
        frame = sys._getframe(1)
        if programs(frame) and own_builtins(args, kwargs):
            code = rewritten(source, "<string>", "exec")
            if code is not None:
                source = code
        return real_exec(source, *callers_scope(frame, args, kwargs), **kwargs)

    def traced_eval(source, *args, **kwargs):
        frame = sys._getframe(1)
        if programs(frame) and own_builtins(args, kwargs):
            code = rewritten(source, "<string>", "eval")
            if code is not None:
                source = code
        return real_eval(source, *callers_scope(frame, args, kwargs), **kwargs)

    def traced_compile(source, filename="<string>", mode="exec", *args, **kwargs):
        if programs(sys._getframe(1)):
            # Any flags but those asking for a tree back (`dont_inherit`, `optimize` and
            # a file name of the code's choosing do not hide the text).
            flags = args[0] if args else kwargs.get("flags", 0)
            if type(flags) is int and not flags & ast.PyCF_ONLY_AST:
                code = rewritten(source, filename, mode, flags)
                if code is not None:
                    if isinstance(filename, str):
                        compiled_names.add(filename)
                    return code
        return real_compile(source, filename, mode, *args, **kwargs)

    # The genuine zwc's functions (the runtime's module, loaded here before the code runs)
    # all look their NumPy function up through the module's `getattr`: one placed in the
    # module's namespace counts their calls during the test cases' calls.
    zwc_calls = [0]
    real_getattr = builtins.getattr

    # Only a look-up in NumPy or `numpy.linalg` counts: a program that put something else
    # in `zwc._np` (a namespace of plain functions) hollows every zwc function out.
    numpy_linalg = getattr(numpy, "linalg", None)

    # What zwc computed on during the cases: whether a genuine zwc call was given one of
    # the entry's arguments (or a container or array one holds), each case's calls by
    # what they were given, and how many results other than plain numbers and text zwc's
    # code handed back to the code in the cases (an array, a callable such as a
    # `vectorize`: what the code does with them is zwc's work too). A call whose entry
    # frame cannot be found (another thread), or given an object of no kind compared
    # here, counts as given the input; so does a call given other values than the first
    # case's call of the same rank (zwc's work then depends on the case: nothing more is
    # recorded). The entry's arguments are read once per case and entry frame.
    zwc_given = {"saw": False, "cases": {}, "arrays": 0, "matched": {}, "inputs": None}
    # Numbers and text are compared by value: the compiler shares equal constants between
    # the code and the harness, so their identity says nothing.
    by_value = (int, float, bool, complex, str, bytes, type(None))

    def ids_in(value, out, depth=0):
        t = type(value)
        if t in by_value:
            return
        out.add(id(value))
        if depth >= 3 or len(out) > 20000:
            return
        if t in (list, tuple, set, frozenset):
            for item in list(value)[:2000]:
                ids_in(item, out, depth + 1)
        elif t is dict:
            for k, v in list(value.items())[:2000]:
                ids_in(k, out, depth + 1)
                ids_in(v, out, depth + 1)
        elif zwc_array is not None and t is zwc_array:
            out.add(id(vars(value).get("_data")))

    def scalars_in(value, out, path, limit):
        """The numbers and text in `value` (to `limit` levels below `path`'s), each with
        the places it is found at (the index path from where the walk began)."""
        t = type(value)
        if t in by_value:
            if t is not type(None) and len(out) < 20000:
                out.setdefault((t.__name__, repr(value)), set()).add(path)
        elif generic is not None and isinstance(value, generic):
            out.setdefault((type(value.item()).__name__, repr(value.item())), set()).add(path)
        elif len(path) < limit and t in (list, tuple, set, frozenset):
            ordered = t in (list, tuple)
            for i, item in enumerate(list(value)[:2000]):
                scalars_in(item, out, path + ((i if ordered else None),), limit)
        elif len(path) < limit and t is dict:
            for k, item in list(value.items())[:2000]:
                scalars_in(item, out, path + (repr(k)[:40],), limit)

    def given(value, depth=0):
        t = type(value)
        if t in by_value:
            return (t.__name__, repr(value))
        if ndarray is not None and t is ndarray:
            flat = value.ravel()[:512]
            data = repr(flat.tolist()) if value.dtype.kind == "O" else flat.tobytes()
            return ("ndarray", value.shape, value.dtype.str, data)
        if zwc_array is not None and t is zwc_array:
            return ("ZWCArray", given(vars(value).get("_data"), depth + 1))
        if depth < 3 and t in (list, tuple):
            return (t.__name__, len(value), tuple(given(v, depth + 1) for v in value[:256]))
        if depth < 3 and t is dict:
            return ("dict", tuple((given(k, depth + 1), given(v, depth + 1)) for k, v in list(value.items())[:256]))
        if generic is not None and isinstance(value, generic):
            return ("scalar", value.dtype.str, repr(value.item()))
        raise TypeError("not compared")

    def entry_frame(frame):
        """The frame of the entry's call the harness's line made that led to `frame`."""
        f = frame
        while f is not None:
            back = f.f_back
            if back is not None and back.f_code.co_name == "<module>" and back.f_globals is main.__dict__:
                return f
            f = back
        return None

    def arguments_of(f):
        """The values of frame `f`'s arguments (`*args` and `**kwargs` as one each)."""
        code = f.f_code
        n = code.co_argcount + code.co_kwonlyargcount
        n += bool(code.co_flags & 4) + bool(code.co_flags & 8)
        loc = f.f_locals
        return [loc.get(name) for name in code.co_varnames[:n]]

    def entry_inputs(frame):
        """What the entry's arguments hold in the call the harness's line made that led to
        `frame` (their values at the case's first zwc call): (the ids of their containers
        and arrays, their numbers and text), or None."""
        f = entry_frame(frame)
        if f is None:
            return None
        known = zwc_given["inputs"]
        if known is not None and known[0] == (case[0], id(f)):
            return known[1]
        args = arguments_of(f)
        ids, scalars = set(), {}
        for arg in args:
            ids_in(arg, ids)
        for i, arg in enumerate(args):
            scalars_in(arg, scalars, (i,), 3)
        zwc_given["inputs"] = ((case[0], id(f)), (ids, scalars))
        return ids, scalars

    def note_given(wrapper_frame, name):
        loc = wrapper_frame.f_locals
        passed = (loc.get("args", ()), loc.get("kwargs", {}))
        inputs = entry_inputs(wrapper_frame.f_back)
        mine = set()
        ids_in(passed, mine)
        if inputs is None or inputs[0] & mine:
            zwc_given["saw"] = True
            return
        calls = zwc_given["cases"].setdefault(case[0], [])
        calls.append((name, given(passed)))
        first = next(iter(zwc_given["cases"].values()))
        if first is not calls and (len(calls) > len(first) or first[len(calls) - 1] != calls[-1]):
            zwc_given["saw"] = True
            return
        # A number or text of the input (an argument, or an element of one) given to zwc:
        # a genuine call on an input that is the same in every case looks like this. A
        # constant of the code may equal one by chance, so every case must show it, at
        # one same place of the input (the argument `k`, not a 1 anywhere). The first 16
        # calls of each case are looked at (the calls of a rank are the same in every
        # case, or recording has stopped).
        if len(calls) <= 16:
            mine = {}
            scalars_in(passed, mine, (), 4)
            places = zwc_given["matched"].setdefault(case[0], set())
            for value in mine:
                places.update(inputs[1].get(value, ()))

    # zwc's functions count their calls in `zwc._calls` (the grading worker's shared
    # counter, or zwc's own list): the counter is wrapped, so a genuine call during a case
    # is seen from its own frame, and zwc's namespace holds nothing a run without the
    # tracer does not (a program asking whether it is watched gets the unwatched answer).
    class CallCount:
        __slots__ = ("inner",)

        def __init__(self, inner):
            self.inner = inner

        def __getitem__(self, i):
            return self.inner[i]

        def __setitem__(self, i, value):
            self.inner[i] = value
            frame = sys._getframe(1)
            if (
                case[0] is not None
                and frame.f_code.co_name == "wrapper"
                and frame.f_code.co_filename in zwc_files
                # A call that computes with NumPy (zwc's `_np` may have been replaced).
                and frame.f_globals.get("_np") is numpy
            ):
                zwc_calls[0] += 1
                if not zwc_given["saw"]:
                    try:
                        note_given(frame, frame.f_locals.get("numpy_func_name"))
                    except BaseException:
                        zwc_given["saw"] = True

    CallCount.__name__ = CallCount.__qualname__ = "memoryview"
    if isinstance(zwc, types.ModuleType) and getattr(zwc, "_calls", None) is not None:
        vars(zwc)["_calls"] = CallCount(vars(zwc)["_calls"])

    # The function the harness called as the entry, and the first `def` of that name (the
    # one the official zwc check reads).
    entry_called = [None]

    def entry_seen(fn):
        if entry_called[0] is None:
            try:
                import inspect

                code = inspect.unwrap(fn).__code__
                # Line 0: a `def` in text the code ran (`exec`), not in the code.
                line = code.co_firstlineno if code.co_filename == main.__file__ else 0
                entry_called[0] = [code.co_name, line]
            except BaseException:
                entry_called[0] = [type(fn).__name__, None]
        return fn

    builtins._sebx_entry_ = entry_seen

    # The classes the code's `class` statements made (wherever they ran): the teardown
    # below looks for their objects with a `__del__` only when one of them has one.
    made_classes = []
    real_build_class = builtins.__build_class__

    def build_class(*args, **kwargs):
        made = real_build_class(*args, **kwargs)
        try:
            if len(made_classes) < 1000 and programs(sys._getframe(1)):
                made_classes.append(made)
        except BaseException:
            pass
        return made

    builtins.__build_class__ = build_class

    def zwc_functions():
        """zwc's public functions, top level and `rfx`: (module, name relative to `zwc.`,
        function), for the counterfactual runs to replace."""
        found = []
        for module, prefix in ((zwc, ""), (getattr(zwc, "rfx", None), "rfx.")):
            if not isinstance(module, types.ModuleType):
                continue
            for name, value in list(vars(module).items()):
                if isinstance(value, types.FunctionType) and not name.startswith("_"):
                    found.append((module, prefix + name, value))
        return found

    def in_place_of(fn, like):
        """`fn`, which a counterfactual run puts in zwc in place of `like`, made to look like
        it: a function object of its own per name, with `like`'s name, qualified name,
        module, docs, file and first line, so that a program asking whether zwc was
        replaced (and behaving well only then) gets the answer the real run gets."""
        try:
            lc = like.__code__
            code = fn.__code__.replace(
                co_filename=lc.co_filename,
                co_name=lc.co_name,
                co_qualname=lc.co_qualname,
                co_firstlineno=lc.co_firstlineno,
            )
            new = types.FunctionType(code, fn.__globals__, like.__name__, fn.__defaults__, fn.__closure__)
            new.__qualname__ = like.__qualname__
            new.__module__ = like.__module__
            new.__doc__ = like.__doc__
            new.__kwdefaults__ = fn.__kwdefaults__
            return new
        except Exception:
            return fn

    # The counterfactual run: every zwc function but the kept ones returns a value that
    # raises on any use; the kept ones (array constructors) record whether what they wrap
    # holds an array value they did not build themselves.
    wraps = [0, 0]
    built = {}
    # Uses of a poisoned value (the code's, not the tracer's own `str` of a result): a
    # program that caught one may have fallen back on an answer of its own.
    refusals = [0]
    quiet = [False]
    if options.get("poison") and zwc is not None:

        class PoisonError(Exception):
            pass

        def refuse(*_args, **_kwargs):
            if not quiet[0]:
                refusals[0] += 1
            raise PoisonError("a value computed by zwc was used (sebx's counterfactual run)")

        class Poison:
            __slots__ = ()

        # Absorbing (the behaviour questions' run): arithmetic, comparisons, attributes,
        # calls and indexing give the poison again, a float is NaN and iterating gives
        # nothing, so that a zwc value the code computes and throws away costs the run
        # nothing; only where the code must read one (truth, text, length, an int, a
        # hash, NumPy) does it raise. Else every use raises.
        absorb = bool(options.get("absorb"))

        def absorbed(*_args, **_kwargs):
            return poison

        def ignored(*_args, **_kwargs):
            return None

        operand = absorbed if absorb else refuse
        for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod",
                   "pow", "lshift", "rshift", "and", "xor", "or"):
            for form in ("__%s__", "__r%s__", "__i%s__"):
                setattr(Poison, form % op, operand)
        for dunder in ("__getattr__", "__getitem__", "__call__", "__round__", "__trunc__",
                       "__floor__", "__ceil__", "__abs__", "__neg__", "__pos__",
                       "__invert__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__",
                       "__ne__"):
            setattr(Poison, dunder, operand)
        for dunder in ("__setattr__", "__setitem__", "__delitem__"):
            setattr(Poison, dunder, ignored if absorb else refuse)
        for dunder in ("__bool__", "__len__", "__reversed__", "__contains__", "__repr__",
                       "__str__", "__format__", "__bytes__", "__int__", "__index__",
                       "__hash__", "__array__", "__enter__", "__exit__"):
            setattr(Poison, dunder, refuse)
        if absorb:
            Poison.__float__ = lambda _self: float("nan")
            Poison.__complex__ = lambda _self: complex(float("nan"), 0.0)
            Poison.__iter__ = lambda _self: iter(())
        else:
            for dunder in ("__float__", "__complex__", "__iter__"):
                setattr(Poison, dunder, refuse)
        poison = Poison()
        if absorb:
            poison_type[0] = Poison

        def poisoned(*_args, **_kwargs):
            return poison

        def holds_array(value, depth=0):
            if isinstance(value, Poison):
                return True
            if (zwc_array is not None and isinstance(value, zwc_array)) or (
                ndarray is not None and isinstance(value, ndarray)
            ):
                return id(value) not in built
            if generic is not None and isinstance(value, generic):
                return True
            if depth < 3 and isinstance(value, (list, tuple)):
                return any(holds_array(v, depth + 1) for v in value[:256])
            return False

        def kept(fn):
            def constructor(*args, **kwargs):
                wraps[0] += 1
                if not any(holds_array(a) for a in list(args) + list(kwargs.values())):
                    wraps[1] += 1
                value = fn(*args, **kwargs)
                built[id(value)] = value
                return value

            return constructor

        keep = set(options.get("keep", ()))
        if options.get("all") and isinstance(getattr(zwc, "ZWCArray", None), type):
            zwc.ZWCArray = poisoned
        for module, qualified, value in zwc_functions():
            setattr(module, qualified.rsplit(".", 1)[-1],
                    in_place_of(kept(value) if qualified in keep else poisoned, value))

    # The perturbed counterfactual (`{"perturb": 1 or 2}`): every zwc function returns a
    # different value of the same kind: numbers through one of two decreasing affine maps
    # (chosen so that no threshold keeps its side under both), truth flipped, arrays and
    # lists longer by a row or two (one call's values alike, the next call's the other),
    # text longer, and a callable zwc returns (a `vectorize`) perturbs its own results.
    # Each value moved (a call's result, each element of a tuple or list it returns) is
    # offset by its own count, so two zwc results that were equal are not any more. An answer that depends on what zwc
    # computed changes; one that only tests a zwc value against a bound every value
    # passes, multiplies it by 0 or throws away its `int` or text does not. A zwc call
    # that raised during a case (the code caught it) counts: the answer may be whether
    # zwc raised, which no perturbation changes.
    # Runs 3 and 4 are 1 and 2 where the extra rows made the code crash (a broadcast of
    # two zwc results, a write of one into another): a result of its argument's shape
    # (`abs`, `array` of a list, a copy) keeps that shape, any other gets one row more.
    perturbation = options.get("perturb")
    uniform_rows = bool(perturbation) and perturbation > 2
    if uniform_rows:
        perturbation -= 2
    unmoved = [0]
    zwc_raised = [0]
    zwc_raised_cases = set()
    if perturbation and zwc is not None and numpy is not None:
        scale, shift = (-3.7, 11.3) if perturbation == 1 else (-1.0, -7.3)
        iscale, ishift = (-3, 11) if perturbation == 1 else (-1, -7)
        salts = [0]
        calls = [0]

        def salt():
            salts[0] += 1
            return salts[0]

        def moved_array(a, n, rows):
            kind = a.dtype.kind
            try:
                if kind == "b":
                    out = ~a
                    if (n + perturbation) % 2 == 0 and out.size:
                        out = a.copy()
                        out.flat[0] = not a.flat[0]
                elif kind == "i":
                    out = (a * iscale + ishift + 2 * n).astype(a.dtype)
                elif kind == "u":
                    out = (a + (7 if perturbation == 1 else 3) + n).astype(a.dtype)
                elif kind in "fc":
                    out = (a * scale + shift + 0.5 * n).astype(a.dtype)
                else:
                    out = a.copy()
                if out.ndim >= 1:
                    extra = out[-1:] if len(out) else numpy.zeros((1,) + out.shape[1:], out.dtype)
                    out = numpy.concatenate([out] + [extra] * rows, axis=0)
                return out
            except BaseException:
                return a

        def moved(value, rows, depth=0):
            t = type(value)
            if t is bool:
                return value if (salt() + perturbation) % 2 else not value
            if t is int:
                return value * iscale + ishift + 2 * salt()
            if t is float or t is complex:
                return value * scale + shift + 0.5 * salt()
            if t is str:
                return value + "~" * (1 + salt() % 2)
            if zwc_array is not None and isinstance(value, zwc_array):
                try:
                    return t(moved_array(numpy.asarray(value), salt(), rows))
                except BaseException:
                    return value
            if ndarray is not None and isinstance(value, ndarray):
                return moved_array(value, salt(), rows)
            if generic is not None and isinstance(value, generic):
                try:
                    return moved_array(numpy.asarray(value), salt(), rows)[()]
                except BaseException:
                    return value
            if depth < 3 and t is list:
                items = [moved(v, rows, depth + 1) for v in value]
                return items + items[-1:] * rows
            if depth < 3 and t is tuple:
                return tuple(moved(v, rows, depth + 1) for v in value)
            if depth < 3 and t is dict:
                return {k: moved(v, rows, depth + 1) for k, v in value.items()}
            if callable(value) and not isinstance(value, type):
                return perturbing(value)
            return value

        def shape_of(value):
            if (zwc_array is not None and isinstance(value, zwc_array)) or isinstance(
                value, ndarray
            ):
                return getattr(value, "shape", None)
            if type(value) in (list, tuple):
                try:
                    return numpy.shape(value)
                except BaseException:
                    return None
            return None

        def shaped_as_argument(value, args, kwargs):
            shape = shape_of(value)
            if not shape:
                return False
            given = list(args[:8]) + list(kwargs.values())[:8]
            return any(shape_of(a) == shape for a in given)

        def perturbing(fn):
            def perturbed(*args, **kwargs):
                try:
                    value = fn(*args, **kwargs)
                except BaseException:
                    if case[0] is not None:
                        zwc_raised[0] += 1
                        zwc_raised_cases.add(case[0])
                    raise
                calls[0] += 1
                if uniform_rows:
                    rows = 0 if shaped_as_argument(value, args, kwargs) else 1
                else:
                    rows = 1 + calls[0] % 2
                out = moved(value, rows)
                # A Python bool is flipped in one of the two runs (the salts alternate),
                # so a call that returns one is moved in the other.
                if out is value and case[0] is not None and type(value) is not bool:
                    unmoved[0] += 1
                return out

            return perturbed

        for module, qualified, value in zwc_functions():
            setattr(module, qualified.rsplit(".", 1)[-1], in_place_of(perturbing(value), value))

    first_exc = [None]

    def record_crash(exc):
        if first_exc[0] is None:
            first_exc[0] = exc
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_globals is main.__dict__:
                line = tb.tb_lineno
            tb = tb.tb_next
        escaped = [s for s, e in last_raised.items() if e is exc]
        for s in escaped:
            sites[s][11] += 1
        crashes.append(
            {
                "type": type(exc).__name__,
                "message": str(exc)[:300],
                "line": line,
                "site": escaped[0] if escaped else None,
                "case": case[0],
            }
        )

    # What `zwc` is when the cases run: the runtime's module, or a stand-in (a module put in
    # `sys.modules["zwc"]`, another module bound to the name).
    zwc_bound = [None]

    def describe_zwc(value):
        if value is zwc and zwc is not None:
            return None
        if value is None:
            return "nothing"
        if type(value) is types.ModuleType:
            return "the module `%s` (%s)" % (
                getattr(value, "__name__", "?"),
                getattr(value, "__file__", None) or "not from a file",
            )
        return "a %s" % type(value).__name__

    # What zwc's functions compute with when the cases run, when it is not NumPy.
    zwc_numpy = [None]

    def case_start(index):
        if index is not None and zwc_bound[0] is None:
            standin = describe_zwc(sys.modules.get("zwc")) or describe_zwc(
                main.__dict__.get("zwc")
            )
            zwc_bound[0] = standin or ""
        if index is not None and zwc_numpy[0] is None and isinstance(zwc, types.ModuleType):
            held = vars(zwc).get("_np", numpy)
            if held is not numpy:
                zwc_numpy[0] = "a %s" % type(held).__name__
        case[0] = index
        last_raised.clear()
        if index is not None:
            cases_run[0] += 1

    def case_failed(exc):
        record_crash(exc)
        case_start(None)

    # What each case's call returned: its type and the text `print` would show.
    results = []

    def own_text(value, text, depth=0):
        """The class, defined in the code, whose own `__str__`/`__repr__` gives `value`'s
        printed `text` (or a `str` subclass's name), if one does and the text is not that
        of a value the object holds (`str(self.v)`, a float subclass's own digits)."""
        t = type(value)
        if t in (int, float, bool, complex, type(None)) or (t is str):
            return None
        if depth < 3 and t in (list, tuple, set, frozenset):
            for item in list(value)[:256]:
                found = own_text(item, plain_repr(item), depth + 1)
                if found:
                    return found
            return None
        if depth < 3 and t is dict:
            for item in list(value.items())[:256]:
                found = own_text(item, plain_repr(item), depth + 1)
                if found:
                    return found
            return None
        for cls in t.__mro__:
            for dunder in ("__str__", "__repr__", "__format__"):
                fn = cls.__dict__.get(dunder)
                code = getattr(fn, "__code__", None)
                if code is not None and code.co_filename == main.__file__:
                    if holds_text(value, text):
                        return None
                    return "%s.%s" % (t.__name__, dunder)
        if isinstance(value, str):
            return t.__name__ + " (a str subclass)"
        return None

    def plain_repr(value):
        try:
            return repr(value)
        except BaseException:
            return None

    # The values whose own text a result object may print as its own: numbers, zwc's and
    # NumPy's arrays and scalars, and lists or tuples of those (never a string: text
    # the code wrote is not a value).
    def value_like(v, depth=0):
        t = type(v)
        if t in (int, float, bool, complex) or t is zwc_array or t is ndarray:
            return True
        if generic is not None and isinstance(v, generic) and not isinstance(v, (str, bytes)):
            return True
        if depth < 2 and t in (list, tuple):
            return all(value_like(x, depth + 1) for x in v[:256]) and len(v) <= 256
        return False

    def holds_text(value, text):
        """Whether `text` is the text of a value `value` holds: an attribute's `str` or
        `repr`, or, for a subclass of a number, the number's own."""
        if text is None:
            return False
        for base in type(value).__mro__[1:]:
            if base in (int, float, complex):
                for fn in (base.__repr__, base.__str__):
                    try:
                        if fn(value) == text:
                            return True
                    except BaseException:
                        pass
                break
        try:
            held = list(vars(value).values())[:32]
        except BaseException:
            return False
        for v in held:
            if value_like(v):
                for fn in (str, repr):
                    try:
                        if fn(v) == text:
                            return True
                    except BaseException:
                        pass
        return False

    def selfless(value, depth=0):
        """The class whose `__str__` or `__repr__` (as printing `value` finds it) is not a
        method: a callable (`iter(texts).__next__`, a `partial`, a `staticmethod`) that
        is never given the value, so its text cannot be the value's. Found without
        calling it: it may give a new text each time (a second call would change what
        the harness prints)."""
        t = type(value)
        if depth < 3 and t in (list, tuple, set, frozenset):
            return next(filter(None, (selfless(v, depth + 1) for v in list(value)[:256])), None)
        if depth < 3 and t is dict:
            items = [x for kv in list(value.items())[:256] for x in kv]
            return next(filter(None, (selfless(v, depth + 1) for v in items)), None)
        for dunder in ("__str__", "__repr__") if depth == 0 else ("__repr__",):
            for cls in t.__mro__:
                if dunder in cls.__dict__:
                    fn = cls.__dict__[dunder]
                    if isinstance(fn, staticmethod) or not hasattr(type(fn), "__get__"):
                        return "%s.%s (a `%s` called without the value)" % (
                            t.__name__, dunder, type(fn).__name__)
                    break
        return None

    def case_result(value):
        quiet[0] = True
        try:
            faked = selfless(value)
        except BaseException:
            faked = None
        if faked:
            text = "<printed by %s>" % faked
        else:
            try:
                text = str(value)
            except BaseException as exc:
                text = "<str() raised %s>" % type(exc).__name__
            try:
                faked = own_text(value, text)
            except BaseException:
                faked = None
        quiet[0] = False
        kind = None
        if numpy is not None and (
            (zwc_array is not None and isinstance(value, zwc_array))
            or (ndarray is not None and isinstance(value, ndarray))
            or (generic is not None and isinstance(value, generic))
        ):
            try:
                kind = numpy.asarray(value).dtype.kind
            except BaseException:
                kind = None
        if through_on and not zwc_through["computed"] and case[0] is not None:
            try:
                zwc_through["answers"][case[0]] = through_answer(value)
            except BaseException:
                zwc_through["answers"][case[0]] = True
        results.append(
            {"case": case[0], "type": type_name(value), "text": text[:4000], "cut": len(text) > 4000,
             "own_text": faked, "text_array": kind in ("U", "S", "O")}
        )
        return value

    # What reached stdout, in three parts: the program's own, the harness's prints, and
    # what atexit handlers printed; and whether the program had taken stdout or `print`
    # over when the harness began to print.
    limit = 200000
    phase = ["program"]
    out = {"program": [], "harness": [], "after": []}
    taken = [False]
    harness_ran = [False]
    size = [0]
    real_stdout = sys.stdout
    real_print = builtins.print

    # Everything that reaches file descriptor 1 goes, in the order written, to one file:
    # `print`, a replaced stream, `sys.__stdout__`, raw `os.write(1, ...)`. Where each part
    # starts (the harness's prints, then what came after) is the file's offset then.
    sink = None
    saved_fd = None
    try:
        import tempfile

        real_stdout.flush()
        sink = tempfile.TemporaryFile()
        # Appending, as a pipe does: a second description of fd 1 the program opens
        # (`/dev/stdout`) writes from the start of the file, the harness's never over it.
        import fcntl

        fcntl.fcntl(sink.fileno(), fcntl.F_SETFL,
                    fcntl.fcntl(sink.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        saved_fd = os.dup(1)
        os.dup2(sink.fileno(), 1)
    except BaseException:
        sink = None
    marks = {}

    class Capture:
        encoding = "utf-8"

        def write(self, text):
            text = str(text)
            room = limit - size[0]
            if room > 0:
                if sink is not None:
                    # To fd 1 as it is now, as the real stream writes: a program that
                    # put something else there (`os.dup2`, `os.close(1)`) sends the
                    # harness's prints where they would go.
                    try:
                        os.write(1, text[:room].encode("utf-8", "replace"))
                    except BaseException:
                        pass
                else:
                    out[phase[0]].append(text[:room])
            size[0] += len(text)
            return len(text)

        def writelines(self, lines):
            for line in lines:
                self.write(line)

        def flush(self):
            pass

        def isatty(self):
            return False

        def fileno(self):
            return 1

        @property
        def buffer(self):
            return capture_bytes

        # The rest of a text stream's surface, so that a program using it runs as it
        # does unwatched (a traced run that fails where the scorers' did not says
        # nothing): `reconfigure` takes the stream's own keywords and changes nothing
        # that reaches fd 1; what is only read comes from the stream it stands for.
        line_buffering = False
        write_through = False
        errors = "strict"
        newlines = None
        closed = False
        name = "<stdout>"
        mode = "w"

        def reconfigure(self, *, encoding=None, errors=None, newline=None,
                        line_buffering=None, write_through=None):
            if line_buffering is not None:
                self.line_buffering = bool(line_buffering)
            if write_through is not None:
                self.write_through = bool(write_through)
            if errors is not None:
                self.errors = str(errors)

        def readable(self):
            return False

        def writable(self):
            return True

        def seekable(self):
            return False

        def detach(self):
            return capture_bytes

        def __getattr__(self, name):
            if name.startswith("__") or name == "close":
                raise AttributeError(name)
            return getattr(real_stdout, name)

        # `isinstance(sys.stdout, io.TextIOWrapper)` reads `__class__` where the type
        # is not a subclass: true, as for the stream it stands for, at no cost per write.
        @property
        def __class__(self):
            return io.TextIOWrapper

    class CaptureBytes:
        """`sys.stdout.buffer`: bytes reach stdout as the text stream's do."""

        @property
        def __class__(self):
            return io.BufferedWriter

        def writable(self):
            return True

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return getattr(real_stdout.buffer, name)

        def write(self, data):
            data = bytes(data)
            capture.write(data.decode("utf-8", "replace"))
            return len(data)

        def flush(self):
            pass

    # Named as the stream it stands for (`type(sys.stdout).__name__`). A subclass of
    # `io.TextIOWrapper` would pass `type(...) is` too, but cost ~10 ms a traced run.
    Capture.__name__ = Capture.__qualname__ = "TextIOWrapper"
    Capture.__module__ = "_io"
    capture = Capture()
    capture_bytes = CaptureBytes()

    def enter_phase(name):
        try:
            real_stdout.flush()
        except BaseException:
            pass
        if sink is not None and name not in marks:
            try:
                marks[name] = os.fstat(sink.fileno()).st_size
            except BaseException:
                pass
        phase[0] = name

    def fd1_elsewhere():
        """Whether file descriptor 1 no longer leads to the capture's file."""
        if sink is None:
            return False
        try:
            a, b = os.fstat(1), os.fstat(sink.fileno())
        except BaseException:
            return True
        return (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino)

    def harness_starts():
        harness_ran[0] = True
        taken[0] = (sys.stdout is not capture or builtins.print is not real_print
                    or fd1_elsewhere())
        enter_phase("harness")

    def collect_output():
        """Reads the file back into the three parts and gives fd 1 back."""
        if sink is None:
            return
        try:
            real_stdout.flush()
        except BaseException:
            pass
        try:
            end = os.fstat(sink.fileno()).st_size
            os.dup2(saved_fd, 1)
            sink.seek(0)
            data = sink.read(max(end, 0))
        except BaseException:
            return
        # Closed, so that the worker's exit does not take an open file for one the
        # program left to be flushed at exit (that exit tears NumPy down: ~20 ms a run).
        try:
            sink.close()
            os.close(saved_fd)
        except BaseException:
            pass
        start_h = marks.get("harness")
        start_a = marks.get("after", len(data))
        first = start_h if start_h is not None else start_a
        parts = {
            "program": data[:first],
            "harness": data[start_h:start_a] if start_h is not None else b"",
            "after": data[start_a:],
        }
        size[0] = 0
        for name, raw in parts.items():
            text = raw.decode("utf-8", "replace")
            size[0] += len(text)
            out[name] = [text[:limit]]

    builtins._sebx_case_ = case_start
    builtins._sebx_case_failed_ = case_failed
    builtins._sebx_result_ = case_result
    builtins._sebx_harness_ = harness_starts

    done = [False]
    left = [None]

    def finish():
        if done[0]:
            return
        done[0] = True
        profile(False)
        sys.stdout = real_stdout
        collect_output()
        result = {}
        result["crashes"] = crashes
        result["crash"] = crashes[0] if crashes else None
        result["cases"] = cases_run[0]
        result["sites"] = []
        for index, s in enumerate(sites):
            if s[2] > _code_lines:
                continue
            result["sites"].append(
                {
                    "id": index,
                    "kind": s[0],
                    "name": s[1],
                    "line": s[2],
                    "col": s[3],
                    "end_line": s[4],
                    "end_col": s[5],
                    "ok": s[6],
                    "ok_types": sorted(s[7]),
                    "fails": s[8],
                    "cases_clean": len(s[9] - s[10]),
                    "cases_raised": len(s[10]),
                    "escapes": s[11],
                }
            )
        result["lines"] = [i for i in range(1, _code_lines + 1) if seen[i]]
        result["imports"] = imports
        result["modules"] = [m for m in modules if m[0] <= _code_lines]
        result["results"] = results
        result["out"] = {
            "program": "".join(out["program"]),
            "harness": "".join(out["harness"]) if harness_ran[0] else None,
            "after": "".join(out["after"]),
            "cut": size[0] > limit,
            "taken": taken[0],
        }
        result["left"] = left[0]
        result["numpy"] = numpy_seen
        result["zwc_calls"] = zwc_calls[0]
        try:
            per_case = zwc_given["cases"]
            matched = zwc_given["matched"]
            common = None
            for i in per_case:
                here = matched.get(i, set())
                common = set(here) if common is None else common & here
            result["zwc_given"] = {
                "saw": zwc_given["saw"] or bool(common),
                "arrays": zwc_given["arrays"],
                "cases": [
                    hash(tuple(per_case[i])) % (1 << 52) if i in per_case else None
                    for i in range(cases_run[0])
                ],
            }
        except BaseException:
            result["zwc_given"] = None
        if through_on:
            result["zwc_through"] = {
                "computed": zwc_through["computed"],
                "calls": zwc_through["calls"],
                "seen": zwc_through["seen"],
                "names": zwc_through["names"][:8],
                "answers": [zwc_through["answers"].get(i) for i in range(cases_run[0])],
            }
        result["zwc_standin"] = zwc_bound[0] or None
        result["zwc_numpy"] = zwc_numpy[0]
        result["zwc_rebound"] = rebound
        result["entry_called"] = entry_called[0]
        result["entry_first"] = entry_first[0]
        if options.get("poison"):
            result["wraps"] = {"calls": wraps[0], "plain": wraps[1]}
            result["refusals"] = refusals[0]
        if perturbation:
            result["unmoved"] = unmoved[0]
            result["zwc_raised"] = zwc_raised[0]
            result["zwc_raised_cases"] = len(zwc_raised_cases)
        real_stdout.write(marker + " " + json.dumps(result) + "\n")
        real_stdout.flush()

    real_os_exit = os._exit

    def traced_os_exit(status):
        left[0] = {"how": "os._exit", "line": code_line(sys._getframe(1))}
        enter_phase("after")
        finish()
        real_os_exit(status)

    os._exit = traced_os_exit

    # A program that kills itself (a signal to its own process or group, `os.abort`) ends
    # as it would, but what it printed and returned is written first.
    import signal as _signal

    def fatal(sig):
        try:
            sig = _signal.Signals(sig)
        except BaseException:
            return None
        if sig in (_signal.SIGCHLD, _signal.SIGWINCH, _signal.SIGURG, _signal.SIGCONT):
            return None
        handler = _signal.getsignal(sig) if sig not in (_signal.SIGKILL, _signal.SIGSTOP) else None
        return sig if handler in (None, _signal.SIG_DFL) else None

    def leaving(how):
        if left[0] is None:
            left[0] = {"how": how, "line": code_line(sys._getframe(2))}
        enter_phase("after")
        finish()

    real_kill, real_killpg, real_abort = os.kill, os.killpg, os.abort
    real_raise_signal = getattr(_signal, "raise_signal", None)

    def traced_kill(pid, sig):
        if pid in (0, os.getpid(), -os.getpgid(0)) and fatal(sig) is not None:
            leaving("os.kill(%s)" % fatal(sig).name)
        return real_kill(pid, sig)

    def traced_killpg(pgid, sig):
        if pgid in (0, os.getpgid(0)) and fatal(sig) is not None:
            leaving("os.killpg(%s)" % fatal(sig).name)
        return real_killpg(pgid, sig)

    def traced_abort():
        leaving("os.abort")
        return real_abort()

    def traced_raise_signal(sig):
        if fatal(sig) is not None:
            leaving("signal.raise_signal(%s)" % fatal(sig).name)
        return real_raise_signal(sig)

    os.kill, os.killpg, os.abort = traced_kill, traced_killpg, traced_abort

    # A program that replaces its own process (`os.execv` and the rest of the family, all
    # of which call `execv` or `execve`): what the scorers read after that is another
    # program's output (the harness's buffered prints are lost with the process), never
    # what the harness prints of the entry's results. The trace is written and the run
    # ends there; the other program is not run. A forked child (`os.spawnv`) execs as it
    # would: it is not the program's process.
    import posix as _posix

    traced_pid = os.getpid()

    def replacing(real, how):
        def traced_exec(*args, **kwargs):
            if os.getpid() != traced_pid:
                return real(*args, **kwargs)
            left[0] = {"how": how, "line": code_line(sys._getframe(1))}
            enter_phase("after")
            finish()
            real_os_exit(0)

        try:
            return functools.wraps(real)(traced_exec)
        except BaseException:
            return traced_exec

    for _name in ("execv", "execve"):
        _real = getattr(os, _name, None)
        if _real is not None:
            _traced = replacing(_real, "os." + _name)
            setattr(os, _name, _traced)
            if getattr(_posix, _name, None) is _real:
                setattr(_posix, _name, _traced)
    if real_raise_signal is not None:
        _signal.raise_signal = traced_raise_signal

    # NumPy reached by what ran, whatever route gave the code its callable: a profile hook
    # sees every call the code's frames make, into NumPy's public Python functions (the
    # array-function dispatchers' implementations, `numpy.linalg`, ...) and into its
    # builtins; NumPy's ufuncs, which no hook sees, are wrapped in numpy's namespace for the
    # run; what a returning frame of the code holds (a NumPy module or function in a local)
    # is looked at too. NumPy's own code running under an array's method or `str` (what zwc
    # hands back may be a NumPy array) is not a call the code made: what those run first is
    # private (`_mean`, `_array_str_implementation`), so only a public name counts.
    numpy_dir = None
    if isinstance(numpy, types.ModuleType) and getattr(numpy, "__file__", None):
        numpy_dir = os.path.dirname(numpy.__file__) + os.sep
        ufunc_type = getattr(numpy, "ufunc", None)

        class NumpyUfunc:
            """One of NumPy's ufuncs, as the run's `numpy.<name>`: a call or attribute read
            from the code's frames is noted, then passed on."""

            __slots__ = ("_sebx_ufunc",)

            def __init__(self, ufunc):
                object.__setattr__(self, "_sebx_ufunc", ufunc)

            def __call__(self, *args, **kwargs):
                frame = sys._getframe(1)
                if programs(frame):
                    note_numpy("called numpy's `%s`" % self._sebx_ufunc.__name__, frame)
                return self._sebx_ufunc(*args, **kwargs)

            def __getattr__(self, name):
                frame = sys._getframe(1)
                if programs(frame):
                    note_numpy(
                        "used numpy's `%s.%s`" % (self._sebx_ufunc.__name__, name), frame
                    )
                return getattr(self._sebx_ufunc, name)

            def __repr__(self):
                return repr(self._sebx_ufunc)

        if isinstance(ufunc_type, type):
            numpy_callable_types.add(NumpyUfunc)
            for key, item in list(vars(numpy).items()):
                if type(item) is ufunc_type and not key.startswith("_"):
                    setattr(numpy, key, NumpyUfunc(item))

    # Whether zwc computed anything during the cases, or only handed back what it was
    # given (`yitaf`, `asarray`, `copy`, a 1-D `.T`, `a * 1`), the answers then computed in
    # plain Python: each return of zwc's code to the code (a function, a ZWCArray's
    # operator, `.T`) is compared by value with what it was given. One that equals an
    # argument is called again on a probe (the argument's numbers moved and reversed): a
    # function that hands the probe back as well passed the value through; one that does
    # not (`abs` of positive numbers, `sort` of sorted ones) computes, on other inputs.
    # Reading a ZWCArray's length or items computes nothing; its shape, dtype or text
    # (what NumPy made of the value) and writing into one count as computing. Each case's
    # answer is compared with the entry's arguments: an answer that is an argument (a
    # copy task) is not computed in plain Python. Only the plain run records this;
    # recording stops at the first computation.
    zwc_through = {"computed": False, "calls": 0, "seen": 0, "names": [], "args": {}, "answers": {}}
    through_on = not options.get("poison") and not options.get("perturb")
    reading = frozenset(["__init__", "__len__", "__iter__", "__getitem__", "__array__",
                         "__bool__", "__contains__"])

    def plain_value(v, depth=0):
        """`v` as nested lists of Python numbers and text (a ZWCArray, an array, a NumPy
        scalar, lists and tuples of them); TypeError for anything else."""
        t = type(v)
        if t in (int, float, bool, complex, str):
            return v
        if zwc_array is not None and t is zwc_array:
            v = vars(v).get("_data")
            t = type(v)
        if ndarray is not None and t is ndarray:
            if v.size > 100000 or v.dtype.kind not in "biufcU":
                raise TypeError("not compared")
            return v.tolist()
        if generic is not None and isinstance(v, generic) and v.dtype.kind in "biufcU":
            return v.item()
        if depth < 4 and t in (list, tuple) and len(v) <= 100000:
            return [plain_value(x, depth + 1) for x in v]
        raise TypeError("not compared")

    def probe_of(plain):
        """Other numbers of the same shape: each moved, the first axis reversed."""
        a = numpy.asarray(plain, dtype=float)
        p = -(a * 1.37) - 3.1
        if p.ndim >= 1 and len(p) > 1:
            p = p[::-1].copy()
        return p

    def equal_plain(a, b):
        try:
            return bool(a == b)
        except BaseException:
            return False

    def passes_through(frame, value):
        """Whether the return of `value` by zwc's `frame` hands back one of its arguments
        unchanged, as it would any value."""
        name = frame.f_code.co_name
        loc = frame.f_locals
        got = plain_value(value)
        if name == "wrapper":
            linalg = "linalg" in frame.f_code.co_qualname
            args = list(loc.get("args", ()) if linalg else loc.get("unwrapped_args", ()))
            kwargs = dict(loc.get("kwargs", {}) if linalg else loc.get("unwrapped_kwargs", {}))
            fn = real_getattr(numpy.linalg if linalg else numpy, loc.get("numpy_func_name"))
            slots = [(i, a) for i, a in enumerate(args)] + list(kwargs.items())
            found = handed_back(slots, got)
            if found is None:
                return False
            key, probe = found
            if type(key) is int:
                probed = fn(*(args[:key] + [probe] + args[key + 1:]), **kwargs)
            else:
                probed = fn(*args, **dict(kwargs, **{key: probe}))
            return equal_plain(plain_value(probed), probe.tolist())
        method = getattr(zwc_array, name, None) if name != "__getattr__" else None
        operands = [loc.get("self"), loc.get("other")]
        slots = [(0, operands[0])] + ([(1, operands[1])] if "other" in loc else [])
        found = handed_back([(i, a) for i, a in slots if a is not None], got)
        if found is None:
            return False
        i, probe = found
        if name == "__getattr__":
            probed = zwc_array(probe).T
        elif method is None:
            return False
        elif i == 0:
            probed = method(zwc_array(probe), operands[1])
        else:
            probed = method(operands[0], zwc_array(probe))
        return equal_plain(plain_value(probed), probe.tolist())

    def handed_back(slots, got):
        """The first (key, probe) of `slots` (key, argument) whose argument equals `got` by
        value, the probe made from it; None when none does."""
        for key, arg in slots:
            try:
                given_plain = plain_value(arg)
            except TypeError:
                continue
            if equal_plain(given_plain, got):
                return key, probe_of(given_plain)
        return None

    def through_returned(frame, value):
        name = frame.f_code.co_name
        zwc_through["seen"] += 1
        if case[0] not in zwc_through["args"]:
            zwc_through["args"][case[0]] = entry_arguments(frame.f_back)
        if name in reading:
            return
        if name == "__getattr__" and frame.f_locals.get("name") != "T":
            # `shape`, `dtype`, `size`, `ndim`: what NumPy made of the value.
            zwc_through["computed"] = True
            return
        try:
            through = passes_through(frame, value)
        except BaseException:
            through = False
        if not through:
            zwc_through["computed"] = True
        elif name == "wrapper":
            zwc_through["calls"] += 1
            fn_name = frame.f_locals.get("numpy_func_name")
            if isinstance(fn_name, str) and fn_name not in zwc_through["names"]:
                zwc_through["names"].append(fn_name[:40])

    def entry_arguments(frame):
        """The entry's arguments in the call the harness's line made that led to `frame`,
        as plain values (those of no kind compared are left out), or None."""
        f = entry_frame(frame)
        if f is None:
            return None
        found = []
        for arg in arguments_of(f):
            for one in (arg, *(arg if type(arg) is tuple else ()), *(arg.values() if type(arg) is dict else ())):
                try:
                    found.append(plain_value(one))
                except TypeError:
                    pass
        return found

    def through_answer(value):
        """Whether the case's answer is one of the entry's arguments (None: not compared)."""
        args = zwc_through["args"].get(case[0])
        if args is None:
            return None
        try:
            got = plain_value(value)
        except TypeError:
            return True
        return any(equal_plain(got, a) for a in args)

    def handed(value, frame):
        """What a frame of zwc's code returns to the code: a raw array or a few (innocent
        to hold), a ZWCArray or a few of them (whose NumPy data is not), the array
        `__init__` made."""
        t = type(value)
        if case[0] is not None and not zwc_given["saw"] and not (
            t in by_value or (generic is not None and isinstance(value, generic))
            or (t in (list, tuple) and all(type(v) in by_value for v in value[:256]))
        ):
            zwc_given["arrays"] += 1
        if t is ndarray:
            if len(handed_raw) < 20000:
                handed_raw[id(value)] = weakref.ref(value)
        elif zwc_array is None:
            return
        elif isinstance(value, zwc_array):
            note_inner(value)
        elif isinstance(value, (tuple, list)):
            # A few of them, or `rfx`'s named results (`eig`'s), raw arrays among them.
            for item in value[:64]:
                if isinstance(item, zwc_array):
                    note_inner(item)
                elif type(item) is ndarray and len(handed_raw) < 20000:
                    handed_raw[id(item)] = weakref.ref(item)
        elif frame.f_code.co_name == "__init__":
            made = frame.f_locals.get("self")
            if isinstance(made, zwc_array):
                note_inner(made)

    def held(frame):
        """What a frame of the code holds in its locals: a NumPy module or function."""
        try:
            values = list(frame.f_locals.values())
        except BaseException:
            return
        for item in values[:256]:
            found = numpy_thing(item)
            if found is not None:
                note_numpy("held " + found, frame)
                return
            if inner_array(item):
                note_numpy("held a ZWCArray's NumPy data", frame)
                return

    # A ZWCArray's `.T` is a plain NumPy array (as in the real package), a view of the
    # ZWCArray's data: NumPy's own methods on it (`a.T.mean()`) are the computations a
    # ZWCArray refuses and zwc's functions stand for. So are they on an array zwc hands
    # back raw (an `rfx` result: `.sum()` where `zwc.baluvo` was meant) and on one NumPy
    # made from what zwc handed back. Such a call during the cases is NumPy reached when
    # the array holds the input's values: its data differs from every such call's of the
    # first case that made one (an array of constant data, computed on and thrown away,
    # stays innocent). Methods that only read or convert an array (to a list, a copy, a
    # type) are not computations.
    array_readers = frozenset(
        ["tolist", "item", "copy", "astype", "view", "tobytes", "tofile", "dump", "dumps",
         "getfield", "setflags"]
    )
    view_calls = {}

    # A copy of such a view (`.T.copy()`, `.T.astype(float)`) and what an operator makes
    # of one (`a.T * 1`, `-a.T`) are new arrays, views of nothing: they are known by their
    # content (shape and values), and NumPy's methods on one are the view's.
    derived = set()

    def view_of_inner(array):
        base = array.base
        for _ in range(8):
            if base is None or (type(base) is ndarray and inner_array(base)):
                break
            base = getattr(base, "base", None)
        return base is not None

    def content_of(array):
        try:
            if array.dtype.kind not in "biuf":
                return None
            flat = numpy.asarray(array.ravel()[:4096], dtype=numpy.float64)
            return (array.shape, flat.tobytes())
        except BaseException:
            return None

    def derived_from_view(array):
        return bool(derived) and content_of(array) in derived

    def derive(value, *operands):
        """Remembers `value`, made from such a view (or from one made so) during a case."""
        if case[0] is None or len(derived) >= 256:
            return
        if any(type(o) is ndarray and (view_of_inner(o) or derived_from_view(o))
               for o in operands):
            key = content_of(value)
            if key is not None:
                derived.add(key)

    def view_method(owner, method, frame):
        if method in array_readers:
            if method in ("copy", "astype") and (
                view_of_inner(owner) or derived_from_view(owner)
            ):
                derive(owner, owner)
            return
        if view_of_inner(owner):
            what = "a view of a ZWCArray's data (`.T`)"
        elif derived_from_view(owner):
            what = "a copy of a view of a ZWCArray's data (`.T`), or an operator's result on one,"
        elif not inner_array(owner):
            # An array zwc handed back raw (an `rfx` result) or one NumPy made from what
            # zwc handed back (a NumPy scalar and a list, `.reshape` of a scalar).
            what = "a NumPy array zwc handed back raw (an `rfx` result) or one made from it"
        else:
            return
        try:
            flat = owner.ravel()[:4096]
            data = repr(flat.tolist()) if owner.dtype.kind == "O" else flat.tobytes()
            digest = (method, owner.shape, owner.dtype.str, data)
        except BaseException:
            return
        calls = view_calls.setdefault(case[0], set())
        calls.add(digest)
        first = view_calls[min(view_calls)]
        if first is not calls and digest not in first:
            note_numpy(
                "called NumPy's `ndarray.%s` on %s that holds the input's values, a "
                "computation a ZWCArray refuses" % (method, what),
                frame,
            )

    def through_library(code, back):
        """A NumPy function called by a library's code (`pickle`'s, a worker thread's) while
        the program's code is on the stack: the program had it called. Not NumPy's own
        calls, zwc's, the tracer's, or the import system's."""
        filename = back.f_code.co_filename
        if (
            filename.startswith(numpy_dir)
            or filename.startswith("<frozen")
            or filename.startswith(zwc_dirs)
            or back.f_globals is tracer_globals
            or filename == main.__file__
        ):
            return
        # In a thread the program started (an executor's worker), its code is on the
        # main thread's stack: the line waiting there is the one that had it run.
        line = code_line(back)
        if line is None and case[0] is not None:
            try:
                main_id = _threading.main_thread().ident
                if _threading.get_ident() != main_id:
                    line = code_line(sys._current_frames().get(main_id))
            except BaseException:
                line = None
        note_numpy_at(
            "had numpy's `%s` called by `%s` (%s)"
            % (code.co_name, back.f_code.co_name, os.path.basename(filename)),
            line,
        )

    def profiler(frame, event, arg):
        if programs_profile["sys"] is not None:
            try:
                programs_profile["sys"](frame, event, arg)
            except BaseException:
                programs_profile["sys"] = None
        if event == "call":
            back = frame.f_back
            code = frame.f_code
            if (
                back is not None
                and code.co_filename.startswith(numpy_dir)
                and not code.co_name.startswith(("_", "<"))
            ):
                if programs(back):
                    note_numpy("called numpy's `%s`" % code.co_name, back)
                else:
                    through_library(code, back)
        elif event == "c_call":
            if programs(frame):
                found = numpy_thing(arg)
                if found is not None:
                    note_numpy("called " + found, frame)
                else:
                    owner = getattr(arg, "__self__", None)
                    if inner_arrays and inner_array(owner):
                        note_numpy(
                            "called `.%s` of a ZWCArray's NumPy data" % getattr(arg, "__name__", "?"),
                            frame,
                        )
                    elif (
                        case[0] is not None
                        and ndarray is not None
                        and isinstance(owner, ndarray)
                    ):
                        method = getattr(arg, "__name__", "")
                        if not method.startswith("_"):
                            view_method(owner, method, frame)
        elif event == "return":
            if frame.f_globals is main.__dict__ and frame.f_code.co_name != "<module>":
                # A function of the code (a lambda, a generator's `yield`) handing a
                # ZWCArray's data on, where no hook of the caller's may see it.
                if inner_arrays and type(arg) is ndarray and inner_array(arg):
                    note_numpy("returned a ZWCArray's NumPy data", frame)
                held(frame)
            elif frame.f_code.co_filename in zwc_files and frame.f_back is not None:
                back = frame.f_back
                if programs(back):
                    handed(arg, frame)
                elif not (back.f_globals is tracer_globals and back.f_back is not None
                          and programs(back.f_back)):
                    # Neither the code nor one of the tracer's hooks the code called
                    # (an operator, an attribute: `a * 0.5`, `a.T`).
                    return
                if through_on and case[0] is not None and not zwc_through["computed"]:
                    through_returned(frame, arg)

    # The profiler hidden from the program: `sys.getprofile()` and `threading.getprofile()`
    # give what the program set itself (None, as in a run without the tracer), and a
    # profile function the program sets is called from the tracer's (so neither
    # `sys.setprofile(None)` nor a thread started after `threading.setprofile(None)` runs
    # unseen). A program asking whether it is watched takes the path it takes unwatched.
    import threading as _threading

    real_setprofile = sys.setprofile
    real_thread_setprofile = getattr(_threading, "setprofile", None)
    programs_profile = {"sys": None, "threading": None}

    def hidden_setprofile(fn):
        if fn is profiler:
            real_setprofile(fn)
        else:
            programs_profile["sys"] = fn

    def hidden_getprofile():
        return programs_profile["sys"]

    def hidden_thread_setprofile(fn):
        programs_profile["threading"] = fn

    def hidden_thread_getprofile():
        return programs_profile["threading"]

    def as_builtin(fn, name, module):
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = module
        return fn

    def profile(on):
        if numpy_dir is None:
            return
        try:
            real_setprofile(profiler if on else None)
            if real_thread_setprofile is not None:
                real_thread_setprofile(profiler if on else None)
            if on:
                sys.setprofile = as_builtin(hidden_setprofile, "setprofile", "sys")
                sys.getprofile = as_builtin(hidden_getprofile, "getprofile", "sys")
                if real_thread_setprofile is not None:
                    _threading.setprofile = as_builtin(
                        hidden_thread_setprofile, "setprofile", "threading"
                    )
                    _threading.getprofile = as_builtin(
                        hidden_thread_getprofile, "getprofile", "threading"
                    )
        except BaseException:
            pass

    # `dir()` without the tracer's hooks (`_sebx_...` in builtins): as in a run without it.
    real_dir = builtins.dir

    def hidden_dir(*args):
        names = real_dir(*args) if args else sorted(sys._getframe(1).f_locals)
        return [n for n in names if not (type(n) is str and n.startswith("_sebx"))]

    builtins.dir = as_builtin(hidden_dir, "dir", "builtins")

    crash = None
    entry_first = [None]
    try:
        tree = ast.parse(_source)
        if entry_name:
            starts = [
                min([node.lineno] + [d.lineno for d in node.decorator_list])
                for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name == entry_name
                and node.lineno <= _code_lines
            ]
            entry_first[0] = min(starts) if starts else None
        tree = Rewrite().visit(tree)
        Lines().visit(tree)
        ast.fix_missing_locations(tree)
        code = compile(tree, main.__file__, "exec", dont_inherit=True)
        sys.modules["__main__"] = main
        sys.stdout = capture
        builtins.exec, builtins.eval, builtins.compile = traced_exec, traced_eval, traced_compile
        profile(True)
        # The tracer's own records count towards the collector's first threshold, so a
        # collection would come sooner than in the official run and finalise the program's
        # cyclic garbage (a `__del__` that prints) before the harness has printed. The
        # threshold is raised for the run (collections still happen, later); what is left
        # is collected at the end, as the official run's exit does.
        import gc as _gc

        first, *older = _gc.get_threshold()
        _gc.set_threshold(first * 30, *older)
        real_exec(code, main.__dict__)
    except BaseException as exc:
        crash = exc
        if isinstance(exc, SystemExit):
            left[0] = {"how": "SystemExit", "line": None}
    if crash is not None:
        record_crash(crash)
        if left[0] is not None:
            left[0]["line"] = crashes[-1]["line"]
    builtins.exec, builtins.eval, builtins.compile = real_exec, real_eval, real_compile
    # What atexit handlers print comes after the harness's results.
    enter_phase("after")
    # The official run ends at the first exception, which goes to `sys.excepthook`: a hook
    # of the program's own runs (and prints) there.
    first = first_exc[0] if first_exc[0] is not None else crash
    if (
        first is not None
        and not isinstance(first, SystemExit)
        and sys.excepthook is not sys.__excepthook__
    ):
        try:
            sys.excepthook(type(first), first, first.__traceback__)
        except BaseException:
            pass
    # Then, as the interpreter does at exit, the program's threads that are not daemons
    # are waited for (a thread may print after the last case raised), within the time a
    # run has.
    try:
        import threading
        import time as _time

        # What `threading._shutdown` runs first: executors let their idle workers go.
        threading._SHUTTING_DOWN = True
        for call in list(getattr(threading, "_threading_atexits", ()))[::-1]:
            try:
                call()
            except BaseException:
                pass
        # Then it marks the main thread finished, as the interpreter does at exit: a thread
        # waiting for it (`main_thread().join()`, `while main_thread().is_alive()`) goes on
        # and may print after the harness (its later shutdown then has nothing to do).
        try:
            main_thread = threading.main_thread()
            if main_thread is threading.current_thread() and not main_thread._is_stopped:
                tlock = main_thread._tstate_lock
                if tlock is not None and tlock.locked():
                    tlock.release()
                main_thread._stop()
        except BaseException:
            pass
        until = _time.monotonic() + 2.0
        for thread in threading.enumerate():
            if thread is threading.current_thread() or thread.daemon:
                continue
            thread.join(max(0.0, until - _time.monotonic()))
    except BaseException:
        pass
    try:
        import atexit

        atexit._run_exitfuncs()
        atexit._clear()
    except BaseException:
        pass
    # Last, as the interpreter tears the modules down. Objects of the code's classes with a
    # `__del__` that it hung outside `__main__`'s names (in another module, in a list
    # there, on zwc) are finalised first, while `__main__`'s names still hold (modules
    # imported after it are cleared before it); the interpreter would finalise them after
    # putting back its own builtins, where the code's hooks are gone. Then `__main__`'s
    # names are dropped, so the program's objects are finalised (a `__del__` may print),
    # and cyclic garbage is collected. What is finalised later still (a buffered file the
    # code opened) reaches stdout after the trace's line, where sebx reads it too.
    try:
        import gc

        def own_del(t):
            for c in t.__mro__[:-1]:
                fn = vars(c).get("__del__")
                if fn is not None:
                    code = getattr(fn, "__code__", None)
                    return code is not None and (
                        code.co_filename == main.__file__ or program_file(code.co_filename)
                    )
            return False

        finalising = {}
        held = {id(v) for v in main.__dict__.values()}
        later = []
        classes = made_classes + [v for v in main.__dict__.values() if isinstance(v, type)]
        scan = False
        for t in classes:
            try:
                scan = scan or own_del(t)
            except BaseException:
                pass
        for item in gc.get_objects() if scan else ():
            t = type(item)
            if t is type or isinstance(item, type):
                continue
            mine = finalising.get(t)
            if mine is None:
                try:
                    mine = finalising[t] = own_del(t)
                except BaseException:
                    mine = finalising[t] = False
            if mine and id(item) not in held:
                later.append(item)
        for item in later:
            try:
                type(item).__del__(item)
            except BaseException:
                pass
        done_del = {type(item) for item in later}
        later = None
        # As CPython clears a module's names at exit: each set to None, those with one
        # leading underscore first (a suspended generator held there runs its `finally`
        # while the others still hold), then the rest.
        keys = [k for k in list(main.__dict__) if k not in ("__builtins__", "__file__", "__name__")]
        private = [k for k in keys if type(k) is str and k[:1] == "_" and k[1:2] != "_"]
        for key in private + [k for k in keys if k not in private]:
            main.__dict__[key] = None
        gc.collect()
        # Finalised once: the interpreter's teardown must not run them again.
        for t in done_del:
            try:
                t.__del__ = lambda self: None
            except BaseException:
                pass
    except BaseException:
        pass
    # Last of all, as the official capture reads stdout until every writer closed it: a
    # process the program started that still holds it (a background `sh -c 'sleep 0.5;
    # printf ...'`) is waited for, up to 2.5 s, and what it writes is read as the rest.
    try:
        if sink is not None:
            import time as _t

            mine = os.fstat(sink.fileno())

            def holders():
                pids, found = [str(os.getpid())], False
                while pids and not found:
                    pid = pids.pop()
                    for task in os.listdir("/proc/%s/task" % pid):
                        try:
                            with open("/proc/%s/task/%s/children" % (pid, task)) as f:
                                pids.extend(f.read().split())
                        except OSError:
                            pass
                    if pid == str(os.getpid()):
                        continue
                    try:
                        fds = os.listdir("/proc/%s/fd" % pid)
                    except OSError:
                        continue
                    for fd in fds:
                        try:
                            st = os.stat("/proc/%s/fd/%s" % (pid, fd))
                        except OSError:
                            continue
                        if (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino):
                            found = True
                            break
                return found

            until = _t.monotonic() + 2.5
            while _t.monotonic() < until and holders():
                _t.sleep(0.02)
    except BaseException:
        pass
    finish()
