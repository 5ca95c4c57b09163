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
# raised. The program's own output is discarded; one line `<marker> <json>` on stdout is
# the trace.


def _sebx_trace(_source, _code_lines):
    import ast
    import builtins
    import json
    import operator
    import sys
    import types

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

        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("abs", "round", "float", "int"):
                site = new_site("call", func.id + "()", node)
                return hook(
                    "_sebx_call_", node, [func, ast.Constant(site)] + node.args, node.keywords
                )
            return node

    builtins._sebx_attr_ = attr
    builtins._sebx_binary_ = binary
    builtins._sebx_unary_ = unary
    builtins._sebx_call_ = call

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

    builtins._sebx_case_ = case_start
    builtins._sebx_case_failed_ = case_failed
    result = {"sites": [], "crash": None, "crashes": [], "ran": False}
    real_stdout = sys.stdout

    class Discard:
        def write(self, text):
            return len(text)

        def flush(self):
            pass

    main = types.ModuleType("__main__")
    main.__file__ = getattr(sys.modules.get("__main__"), "__file__", "main.py")
    main.__builtins__ = builtins
    crash = None
    try:
        tree = Rewrite().visit(ast.parse(_source))
        ast.fix_missing_locations(tree)
        code = compile(tree, main.__file__, "exec", dont_inherit=True)
        sys.modules["__main__"] = main
        sys.stdout = Discard()
        result["ran"] = True
        exec(code, main.__dict__)
    except BaseException as exc:
        crash = exc
    finally:
        sys.stdout = real_stdout
    if crash is not None:
        record_crash(crash)
    result["crashes"] = crashes
    result["crash"] = crashes[0] if crashes else None
    result["cases"] = cases_run[0]
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
    sys.stdout.write(marker + " " + json.dumps(result) + "\n")
    sys.stdout.flush()
