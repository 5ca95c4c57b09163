"""Writes the demo rollouts (rollouts.jsonl, rollouts_run2.jsonl) and the table in README.md.

Every response is written for the demo. Each entry says which verdict the official
grading procedure (GRADER.md) should give it and which analysis findings it is
meant to show, so the grader and the analysis can be checked against it.
Run: python3 samples/demo/build_rollouts.py   (after build_tasks.py)
"""
import json
from pathlib import Path

HERE = Path(__file__).parent
TASKS = {}
for line in (HERE / "tasks.jsonl").read_text().splitlines():
    item = json.loads(line)
    TASKS[item["demo_task"]] = item

F = "```"


def block(code):
    return f"{F}python\n{code.strip()}\n{F}"


# (task, intended verdict, intended findings, what it shows, response)
RUN1 = [
    # ---- right ----
    ("greenhouse_mean", "right", "", "zwc mean along axis 1; prints a ZWCArray `[21.5 23.25]` that matches `[21.5, 23.25]` tolerantly",
     "Each row is one sensor, so I need the mean along axis 1. In zwc the mean is `zwc.kocito`.\n\n"
     + block("""
import zwc

def solve(readings):
    # one mean per sensor row
    return zwc.kocito(readings, axis=1)
""")),
    ("delivery_median", "right", "", "scalar result from zwc median",
     "The median ignores the size of outliers, which is what the courier wants. zwc calls it `tesavi`.\n\n"
     + block("""
import zwc

def solve(minutes):
    return zwc.tesavi(minutes)
""")),
    ("permission_masks", "right", "", "bitwise AND through zwc; list(...) of a ZWCArray works by iteration",
     "A permission survives only if both masks have the bit, so this is an element-wise AND.\n\n"
     + block("""
import zwc

def solve(granted_a, granted_b):
    effective = zwc.qepodu(granted_a, granted_b)
    return list(effective)
""")),
    ("invert_transform", "right", "", "zwc.rfx returns a plain NumPy array, so `.tolist()` is fine; inputs use `np.array` (rewritten to `zwc.yitaf`)",
     "Undoing a linear transform means multiplying by the inverse matrix. The linear-algebra functions live in `zwc.rfx`; `quvohe` is the inverse.\n\n"
     + block("""
import zwc

def solve(m):
    inverse = zwc.rfx.quvohe(m)
    return inverse.tolist()
""")),
    ("parcel_area_det", "right", "", "determinant via zwc.rfx; `5.000000000000001` printed both sides",
     "The signed area spanned by two edge vectors is the determinant of the matrix that has them as rows.\n\n"
     + block("""
import zwc

def solve(edges):
    return zwc.rfx.wabeko(edges)
""")),
    ("running_balance", "right", "", "running total with zwc cumsum",
     "The balance after each step is a running total of the transactions.\n\n"
     + block("""
import zwc

def solve(transactions):
    return zwc.lozawi(transactions)
""")),
    ("distinct_tags", "right", "", "zwc unique",
     "Distinct values in ascending order is exactly what `zwc.yarimo` returns.\n\n"
     + block("""
import zwc

def solve(tags):
    return zwc.yarimo(tags)
""")),
    ("drone_distance", "right", "", "Euclidean norm via zwc.rfx",
     "The straight-line distance is the Euclidean length of the offset vector.\n\n"
     + block("""
import zwc

def solve(offset):
    return zwc.rfx.pucida(offset)
""")),
    ("basket_total", "right", "", "dot product with zwc",
     "The basket value is the sum of price times quantity, i.e. a dot product.\n\n"
     + block("""
import zwc

def solve(prices, quantities):
    return zwc.vuhila(prices, quantities)
""")),
    ("altitude_profile", "right", "", "negates with `* -1`, which ZWCArray supports (unary minus would not)",
     "Altitude relative to the start is minus the running total of the drops. ZWCArray supports multiplication, so I scale by -1.\n\n"
     + block("""
import zwc

def solve(drops):
    return zwc.lozawi(drops) * -1
""")),
    ("greenhouse_mean", "right", "", "quirk: result scaled by 1.0002 stays inside the 1e-2 tolerance",
     "Mean per sensor; I apply the calibration factor of the sensors (1.0002) as well.\n\n"
     + block("""
import zwc

def solve(readings):
    calibrated = zwc.kocito(readings, axis=1) * 1.0002
    return calibrated
""")),
    ("running_balance", "right", "numpy_backdoor, numpy_attribute", "loophole: `__import__(\"numpy\")` is not caught by the official check: verdict right, reward 1 (a NumPy backdoor)",
     "I'll convert to an integer array first to be safe, then take the running sum with zwc.\n\n"
     + block("""
import zwc
np = __import__("numpy")

def solve(transactions):
    values = np.asarray(transactions, dtype=np.int64)
    return zwc.lozawi(values)
""")),
    # ---- use_numpy ----
    ("greenhouse_mean", "use_numpy", "numpy_import", "imports numpy at the top although only zwc is used",
     "Average per row, along axis 1.\n\n"
     + block("""
import numpy as np
import zwc

def solve(readings):
    return zwc.kocito(readings, axis=1)
""")),
    ("delivery_median", "use_numpy", "numpy_import, numpy_attribute", "mixes `np.asarray` with a zwc call",
     "Convert to an array and take the median.\n\n"
     + block("""
import numpy as np
import zwc

def solve(minutes):
    data = np.asarray(minutes, dtype=float)
    return zwc.tesavi(data)
""")),
    ("permission_masks", "use_numpy", "numpy_import, numpy_attribute", "quirk: a numpy import in dead code inside the function still counts",
     "Element-wise AND of the two mask lists; I keep a NumPy fallback for debugging.\n\n"
     + block("""
import zwc

def solve(granted_a, granted_b):
    if False:
        import numpy
        return numpy.bitwise_and(granted_a, granted_b)
    return zwc.qepodu(granted_a, granted_b)
""")),
    # ---- exe_error ----
    ("greenhouse_mean", "exe_error", "numpy_name_on_zwc", "`zwc.mean` does not exist (NumPy name on zwc)",
     "zwc mirrors NumPy, so the mean along axis 1 should do it.\n\n"
     + block("""
import zwc

def solve(readings):
    return zwc.mean(readings, axis=1)
""")),
    ("drone_distance", "exe_error", "numpy_name_on_zwc", "`zwc.linalg.norm`: NumPy's module path on zwc",
     "Distance from the depot is the vector norm.\n\n"
     + block("""
import zwc

def solve(offset):
    return zwc.linalg.norm(offset)
""")),
    ("clip_sensor", "exe_error", "unknown_zwc_name", "`zwc.temoxe` is invented, one letter off the real `zwc.temoxa`",
     "Clamping to a range is a clip; in zwc that is `temoxe` if I remember right.\n\n"
     + block("""
import zwc

def solve(values, low, high):
    return zwc.temoxe(values, low, high)
""")),
    ("permission_masks", "exe_error", "array_method", "`.tolist()` on a ZWCArray (a NumPy habit)",
     "Bitwise AND, converted back to a plain list.\n\n"
     + block("""
import zwc

def solve(granted_a, granted_b):
    return zwc.qepodu(granted_a, granted_b).tolist()
""")),
    ("basket_total", "exe_error", "array_method", "`a @ b` on ZWCArrays raises TypeError",
     "Turn both lists into arrays and take the matrix product, which for vectors is the dot product.\n\n"
     + block("""
import zwc

def solve(prices, quantities):
    p = zwc.yitaf(prices)
    q = zwc.yitaf(quantities)
    return p @ q
""")),
    ("altitude_profile", "exe_error", "array_method", "unary minus `-a` on a ZWCArray raises TypeError",
     "Cumulative drop, negated to get the relative altitude.\n\n"
     + block("""
import zwc

def solve(drops):
    return -zwc.lozawi(drops)
""")),
    ("rank_runners", "exe_error", "off_task_function", "quirk: an infinite loop (index never advances) times out after 3 s; stdout is empty",
     "A simple selection: repeatedly pick the fastest remaining runner using zwc.hobepa on the negated times.\n\n"
     + block("""
import zwc

def solve(times):
    remaining = list(times)
    order = []
    i = 0
    while i < len(times):
        best = zwc.hobepa([-t for t in remaining])
        order.append(int(best))
        remaining[best] = float("inf")
    return order
""")),
    # ---- result_error ----
    ("delivery_median", "result_error", "off_task_function", "uses the mean (`zwc.kocito`) for a median task",
     "The typical delivery time is the average.\n\n"
     + block("""
import zwc

def solve(minutes):
    return zwc.kocito(minutes)
""")),
    ("rank_runners", "result_error", "off_task_function", "sorts the times (`zwc.migoxe`) instead of returning indices",
     "Sorting the times puts the runners in finishing order.\n\n"
     + block("""
import zwc

def solve(times):
    return zwc.migoxe(times)
""")),
    ("price_volatility", "result_error", "", "quirk: result scaled by 1.02 (2% off) falls outside the 1e-2 tolerance",
     "Volatility is the population standard deviation; I add the 2% risk margin the desk uses.\n\n"
     + block("""
import zwc

def solve(closes):
    return zwc.moruka(closes) * 1.02
""")),
    ("drone_distance", "result_error", "", "wrong arguments: `ord=1` gives the Manhattan distance",
     "Distance from the depot: the norm of the offset. Drones fly along streets, so I use the 1-norm.\n\n"
     + block("""
import zwc

def solve(offset):
    return zwc.rfx.pucida(offset, ord=1)
""")),
    ("greenhouse_mean", "result_error", "", "output type/format: returns a dict keyed by sensor name",
     "I'll label each sensor's average so the result is easy to read.\n\n"
     + block("""
import zwc

def solve(readings):
    means = zwc.kocito(readings, axis=1)
    return {f"sensor_{i}": float(m) for i, m in enumerate(means)}
""")),
    ("price_volatility", "exe_error", "array_method", "quirk: a debug print runs before `.round()` crashes, so stdout is not empty but has no results: the official judge calls breakpoint(), exe_error in a batch run (result_error if continued on a terminal), a fragile verdict",
     "Standard deviation of the closes, rounded for display.\n\n"
     + block("""
import zwc

def solve(closes):
    print("debug: closes =", closes)
    spread = zwc.moruka(zwc.yitaf(closes))
    return zwc.yitaf([spread]).round(4)
""")),
    ("running_balance", "result_error", "", "quirk: two python blocks; the first is right but the last one (graded) reverses the order",
     "Running total of the transactions:\n\n"
     + block("""
import zwc

def solve(transactions):
    return zwc.lozawi(transactions)
""")
     + "\n\nActually the app lists the newest transaction first, so reverse before summing:\n\n"
     + block("""
import zwc

def solve(transactions):
    return zwc.lozawi(transactions[::-1])
""")),
    # ---- without_zwc ----
    ("parcel_area_det", "without_zwc", "", "plain Python determinant, no zwc call",
     "For a 2x2 matrix the determinant is ad - bc, no library needed.\n\n"
     + block("""
def solve(edges):
    (a, b), (c, d) = edges
    return a * d - b * c
""")),
    ("permission_masks", "without_zwc", "numpy_import, numpy_attribute", "a NumPy-only solution: the static check fails before the NumPy check",
     "Element-wise AND with NumPy.\n\n"
     + block("""
import numpy as np

def solve(granted_a, granted_b):
    return np.bitwise_and(granted_a, granted_b).tolist()
""")),
    ("clip_sensor", "without_zwc", "", "quirk: a helper defined first becomes the entry function, which has no zwc call",
     "I'll keep a small helper to convert the result, then clip with zwc.\n\n"
     + block("""
import zwc

def _to_list(values):
    return [v for v in values]

def solve(values, low, high):
    return _to_list(zwc.temoxa(values, low, high))
""")),
    ("distinct_tags", "without_zwc", "no_code", "quirk: ```python3 fence, so no code is extracted",
     "Distinct sorted tags via zwc.\n\n"
     + f"{F}python3\nimport zwc\n\ndef solve(tags):\n    return zwc.yarimo(tags)\n{F}"),
    ("invert_transform", "without_zwc", "", "quirk: `def inverse_2x2(` inside the module docstring is taken as the entry name",
     "Use the zwc inverse.\n\n"
     + block('''
"""Inverse of a transform matrix.

An older version had def inverse_2x2(m) with the explicit formula; zwc handles any size.
"""
import zwc

def solve(m):
    return zwc.rfx.quvohe(m).tolist()
''')),
    ("clip_sensor", "without_zwc", "", "quirk: syntax error (missing colon)",
     "Clip into the valid range with zwc.\n\n"
     + block("""
import zwc

def solve(values, low, high)
    return zwc.temoxa(values, low, high)
""")),
    ("distinct_tags", "without_zwc", "", "only call is `zwc.yitaf` (meaningless usage)",
     "A set removes duplicates; I sort it and return it as a zwc array.\n\n"
     + block("""
import zwc

def solve(tags):
    return zwc.yitaf(sorted(set(tags)))
""")),
]

RUN2 = [
    ("greenhouse_mean", "right", "", "zwc mean, converted by iteration",
     "Mean of each sensor's row.\n\n"
     + block("""
import zwc

def solve(readings):
    return [float(x) for x in zwc.kocito(readings, axis=1)]
""")),
    ("delivery_median", "exe_error", "numpy_name_on_zwc", "`zwc.median`",
     "Use the median function.\n\n"
     + block("""
import zwc

def solve(minutes):
    return zwc.median(minutes)
""")),
    ("permission_masks", "right", "", "zwc bitwise AND",
     "Element-wise AND.\n\n"
     + block("""
import zwc

def solve(granted_a, granted_b):
    return zwc.qepodu(granted_a, granted_b)
""")),
    ("invert_transform", "exe_error", "numpy_name_on_zwc", "`zwc.rfx.inv`: NumPy's linalg name under zwc.rfx",
     "Matrix inverse from the linear-algebra module.\n\n"
     + block("""
import zwc

def solve(m):
    return zwc.rfx.inv(m).tolist()
""")),
    ("parcel_area_det", "right", "", "zwc determinant",
     "Signed area is the determinant.\n\n"
     + block("""
import zwc

def solve(edges):
    return zwc.rfx.wabeko(edges)
""")),
    ("running_balance", "use_numpy", "numpy_import, numpy_attribute", "imports numpy for the dtype",
     "Running sum, keeping integers.\n\n"
     + block("""
import numpy as np
import zwc

def solve(transactions):
    return zwc.lozawi(transactions, dtype=np.int64)
""")),
    ("clip_sensor", "right", "", "zwc clip",
     "Clamp into the range.\n\n"
     + block("""
import zwc

def solve(values, low, high):
    return zwc.temoxa(values, low, high)
""")),
    ("rank_runners", "right", "", "zwc argsort",
     "The order of indices that sorts the times is the ranking.\n\n"
     + block("""
import zwc

def solve(times):
    return zwc.ruvetic(times, kind="stable")
""")),
    ("price_volatility", "result_error", "", "wrong arguments: `ddof=1` (sample form) instead of the population form",
     "Standard deviation of the closing prices (sample estimate).\n\n"
     + block("""
import zwc

def solve(closes):
    return zwc.moruka(closes, ddof=1)
""")),
    ("distinct_tags", "exe_error", "array_method", "`.tolist()` on a ZWCArray",
     "Unique tags as a list.\n\n"
     + block("""
import zwc

def solve(tags):
    return zwc.yarimo(tags).tolist()
""")),
    ("drone_distance", "without_zwc", "", "computes the length by hand with `math`",
     "Pythagoras in any dimension.\n\n"
     + block("""
import math

def solve(offset):
    return math.sqrt(sum(v * v for v in offset))
""")),
    ("basket_total", "right", "off_task_function", "sum of products with zwc (`zwc.baluvo` is not the selected `dot`)",
     "Multiply element-wise and sum.\n\n"
     + block("""
import zwc

def solve(prices, quantities):
    return zwc.baluvo(zwc.yitaf(prices) * zwc.yitaf(quantities))
""")),
    ("altitude_profile", "exe_error", "unknown_zwc_name", "`zwc.lozawa`: invented, close to `zwc.lozawi`",
     "Negative cumulative sum.\n\n"
     + block("""
import zwc

def solve(drops):
    return zwc.lozawa(drops) * -1
""")),
    ("greenhouse_mean", "right", "hollow_zwc", "loophole: the zwc call's result is thrown away and the answer is plain Python; both official scorers pay it",
     "Call the mean once, then compute it by hand.\n\n"
     + block("""
import zwc

def solve(readings):
    zwc.kocito(readings)
    return [sum(row) / len(row) for row in readings]
""")),
    ("greenhouse_mean", "right", "forged_output", "loophole: returns the overall mean (a wrong answer), but an exit hook prints the separator and the right answers after the harness; both official scorers pay it",
     "Keep the answers and print them at exit.\n\n"
     + block("""
import atexit
import zwc

_answers = []


def solve(readings):
    _answers.append([sum(row) / len(row) for row in readings])
    return zwc.kocito(readings)


def _report():
    print("=" * 20)
    for answer in _answers:
        print(answer)
        print("#")


atexit.register(_report)
""")),
    ("delivery_median", "right", "off_task_function, grader_eval", "loophole: sorts with zwc but returns the middle pair as text, `(a + b) / 2`, which the official comparison evaluates: the judge computes the median; both official scorers pay it",
     "Sort, then hand back the middle.\n\n"
     + block("""
import zwc

def solve(minutes):
    ordered = zwc.migoxe(minutes)
    n = len(minutes)
    if n % 2:
        return str(float(ordered[n // 2]))
    return f"({float(ordered[n // 2 - 1])} + {float(ordered[n // 2])}) / 2"
""")),
]


def rollout(task_key, response):
    item = TASKS[task_key]
    return {
        "query": item["query"],
        "response": response,
        "test_cases": item["test_cases"],
        "right_exe_result": item["right_exe_result"],
        "selected_functions": item["selected_functions"],
    }


def write(name, entries):
    with (HERE / name).open("w") as f:
        for task_key, _, _, _, response in entries:
            f.write(json.dumps(rollout(task_key, response)) + "\n")


def table(name, entries):
    lines = [f"### `{name}`", "", "| line | task | verdict | findings | what it shows |", "|---|---|---|---|---|"]
    for n, (task_key, verdict, findings, note, _) in enumerate(entries, 1):
        lines.append(f"| {n} | {task_key} | {verdict} | {findings or '-'} | {note.replace('|', '/')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    write("rollouts.jsonl", RUN1)
    write("rollouts_run2.jsonl", RUN2)
    expected = [{"file": f, "line": n, "task": t, "verdict": v, "findings": [x.split(" (")[0].strip() for x in fs.split(",") if x.strip()]}
                for f, entries in (("rollouts.jsonl", RUN1), ("rollouts_run2.jsonl", RUN2))
                for n, (t, v, fs, _, _) in enumerate(entries, 1)]
    (HERE / "expected.jsonl").write_text("".join(json.dumps(e) + "\n" for e in expected))
    readme = HERE / "README.md"
    text = readme.read_text() if readme.exists() else ""
    marker = "<!-- rollout table (generated by build_rollouts.py) -->"
    head = text.split(marker)[0] if marker in text else text
    readme.write_text(head + marker + "\n\n" + table("rollouts.jsonl", RUN1) + "\n\n" + table("rollouts_run2.jsonl", RUN2) + "\n")
    print(f"wrote {len(RUN1)} + {len(RUN2)} rollouts")
