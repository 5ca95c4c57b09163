# The runtime oracle's tracer, embedded in sebx (src/grade/trace.rs). It runs one
# assembled program (the code and the official harness) with every site the static
# analysis reports on rewritten into a call of a hook: attribute loads, binary, unary
# and augmented operators, and calls of abs/round/float/int. Each hook records the
# runtime type of the receiver or operands and whether the operation raised, then
# behaves exactly as the operation would. Python 3.11 has no sys.monitoring, and
# sys.settrace cannot see operand values, hence the rewriting.
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
# counterfactual run that tells whether the answer depends on what zwc computed.


def _sebx_trace(_source, _code_lines, _options=None):
    import ast
    import builtins
    import importlib
    import json
    import operator
    import os
    import sys
    import types

    options = json.loads(_options) if _options else {}

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
        ok(site, type_name(obj))
        return value

    def binary(left, right, site):
        try:
            value = ops[site](left, right)
        except BaseException as exc:
            failed(site, type_name(left) + "," + type_name(right), exc)
            raise
        ok(site, type_name(left) + "," + type_name(right))
        return value

    def unary(operand, site):
        try:
            value = ops[site](operand)
        except BaseException as exc:
            failed(site, type_name(operand), exc)
            raise
        ok(site, type_name(operand))
        return value

    def call(func, site, *args, **kwargs):
        what = type_name(args[0]) if args else "-"
        try:
            value = func(*args, **kwargs)
        except BaseException as exc:
            failed(site, what, exc)
            raise
        ok(site, what)
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
        sites.append(
            [kind, name, node.lineno, node.col_offset, node.end_lineno,
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

    class Rewrite(ast.NodeTransformer):
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
            self.generic_visit(node)
            sym, fn, _ = binary_ops[type(node.op)]
            site = new_site("binop", sym, node, fn)
            return hook("_sebx_binary_", node, [node.left, node.right, ast.Constant(site)])

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

        def visit_Subscript(self, node):
            # `sys.modules["numpy"]`: the value it gives is recorded.
            looked_up = (
                isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "modules"
            )
            self.generic_visit(node)
            if not looked_up:
                return node
            return hook("_sebx_value_", node, [node, ast.Constant(node.lineno)])

        def visit_Call(self, node):
            func = node.func
            # `getattr(zwc, "_np")`, `sys.modules.get("numpy")`: the value is recorded.
            looked_up = (isinstance(func, ast.Name) and func.id == "getattr") or (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and isinstance(func.value, ast.Attribute)
                and func.value.attr == "modules"
            )
            self.generic_visit(node)
            if looked_up:
                return hook("_sebx_value_", node, [node, ast.Constant(node.lineno)])
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("abs", "round", "float", "int"):
                site = new_site("call", func.id + "()", node)
                return hook(
                    "_sebx_call_", node, [func, ast.Constant(site)] + node.args, node.keywords
                )
            return node

    # Modules the code got by looking them up (`sys.modules[...]`, `getattr`), by line.
    modules = []

    def value(got, line):
        if type(got) is types.ModuleType and len(modules) < 64:
            entry = [line, type_name(got)]
            if entry not in modules:
                modules.append(entry)
        return got

    builtins._sebx_value_ = value
    builtins._sebx_attr_ = attr
    builtins._sebx_binary_ = binary
    builtins._sebx_unary_ = unary
    builtins._sebx_call_ = call

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
        # The importer itself must be the code (or text it runs), not a library.
        if frame.f_globals is not main.__dict__ and not frame.f_code.co_filename.startswith("<"):
            return
        line = code_line(frame)
        if line is not None and [line, name] not in imports:
            imports.append([line, name])

    real_import = builtins.__import__

    def traced_import(name, globals=None, locals=None, fromlist=(), level=0):
        module = real_import(name, globals, locals, fromlist, level)
        if level == 0:
            note_import(name, sys._getframe(1))
        return module

    real_import_module = importlib.import_module

    def traced_import_module(name, package=None):
        module = real_import_module(name, package)
        note_import(name, sys._getframe(1))
        return module

    builtins.__import__ = traced_import
    importlib.import_module = traced_import_module

    # The counterfactual run: every zwc function but the kept ones returns a value that
    # raises on any use; the kept ones (array constructors) record whether what they wrap
    # holds an array value they did not build themselves.
    wraps = [0, 0]
    built = {}
    if options.get("poison") and zwc is not None:

        class PoisonError(Exception):
            pass

        def refuse(*_args, **_kwargs):
            raise PoisonError("a value computed by zwc was used (sebx's counterfactual run)")

        class Poison:
            __slots__ = ()

        for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod",
                   "pow", "lshift", "rshift", "and", "xor", "or"):
            for form in ("__%s__", "__r%s__", "__i%s__"):
                setattr(Poison, form % op, refuse)
        for dunder in ("__getattr__", "__setattr__", "__bool__", "__len__", "__iter__",
                       "__reversed__", "__contains__", "__getitem__", "__setitem__",
                       "__delitem__", "__call__", "__repr__", "__str__", "__format__",
                       "__bytes__", "__int__", "__float__", "__complex__", "__index__",
                       "__round__", "__trunc__", "__floor__", "__ceil__", "__abs__",
                       "__neg__", "__pos__", "__invert__", "__lt__", "__le__", "__gt__",
                       "__ge__", "__eq__", "__ne__", "__hash__", "__array__", "__enter__",
                       "__exit__"):
            setattr(Poison, dunder, refuse)
        poison = Poison()

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
        for module, prefix in ((zwc, ""), (getattr(zwc, "rfx", None), "rfx.")):
            if not isinstance(module, types.ModuleType):
                continue
            for name, value in list(vars(module).items()):
                if isinstance(value, types.FunctionType) and not name.startswith("_"):
                    setattr(module, name, kept(value) if prefix + name in keep else poisoned)

    def record_crash(exc):
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

    def case_start(index):
        case[0] = index
        last_raised.clear()
        if index is not None:
            cases_run[0] += 1

    def case_failed(exc):
        record_crash(exc)
        case_start(None)

    # What each case's call returned: its type and the text `print` would show.
    results = []

    def case_result(value):
        try:
            text = str(value)
        except BaseException as exc:
            text = "<str() raised %s>" % type(exc).__name__
        results.append(
            {"case": case[0], "type": type_name(value), "text": text[:4000], "cut": len(text) > 4000}
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

    class Capture:
        encoding = "utf-8"

        def write(self, text):
            text = str(text)
            room = limit - size[0]
            if room > 0:
                out[phase[0]].append(text[:room])
            size[0] += len(text)
            return len(text)

        def flush(self):
            pass

        def isatty(self):
            return False

    capture = Capture()

    def harness_starts():
        harness_ran[0] = True
        taken[0] = sys.stdout is not capture or builtins.print is not real_print
        phase[0] = "harness"

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
        sys.stdout = real_stdout
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
        if options.get("poison"):
            result["wraps"] = {"calls": wraps[0], "plain": wraps[1]}
        real_stdout.write(marker + " " + json.dumps(result) + "\n")
        real_stdout.flush()

    real_os_exit = os._exit

    def traced_os_exit(status):
        left[0] = {"how": "os._exit", "line": code_line(sys._getframe(1))}
        phase[0] = "after"
        finish()
        real_os_exit(status)

    os._exit = traced_os_exit

    crash = None
    try:
        tree = Rewrite().visit(ast.parse(_source))
        Lines().visit(tree)
        ast.fix_missing_locations(tree)
        code = compile(tree, main.__file__, "exec", dont_inherit=True)
        sys.modules["__main__"] = main
        sys.stdout = capture
        exec(code, main.__dict__)
    except BaseException as exc:
        crash = exc
        if isinstance(exc, SystemExit):
            left[0] = {"how": "SystemExit", "line": None}
    if crash is not None:
        record_crash(crash)
        if left[0] is not None:
            left[0]["line"] = crashes[-1]["line"]
    # What atexit handlers print comes after the harness's results.
    phase[0] = "after"
    try:
        import atexit

        atexit._run_exitfuncs()
        atexit._clear()
    except BaseException:
        pass
    finish()
