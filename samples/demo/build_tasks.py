"""Writes samples/demo/tasks.jsonl: the demo's own dataset items.

Expected outputs are what NumPy 2.3.0 prints for each reference solution, recorded
the way the official harness does (`print(result)` per test case, joined by `#`).
Run with the NumPy 2.3.0 venv:
    /root/.cache/sebx/py311-numpy2.3.0/bin/python samples/demo/build_tasks.py
"""
import contextlib
import io
import json
from pathlib import Path

import numpy as np

assert np.__version__ == "2.3.0", np.__version__

# (key, query, signature, selected NumPy functions, reference solution, test inputs)
TASKS = [
    (
        "greenhouse_mean",
        "A greenhouse has several sensors, and each one logs a row of hourly temperature "
        "readings. Given `readings`, a list of rows (one row per sensor, all the same length), "
        "return the average temperature of each sensor as a list.",
        "def solve(readings):",
        ["mean"],
        "import numpy as np\n\ndef solve(readings):\n    return np.mean(readings, axis=1).tolist()\n",
        [
            "readings=[[20, 23], [22.5, 24]]",
            "readings=[[18, 19, 20], [25, 25, 26], [30, 31, 29]]",
            "readings=[[12.5, 13.5, 14.0, 15.0]]",
            "readings=[[0, 0], [-4, 4], [7, 9]]",
        ],
    ),
    (
        "delivery_median",
        "A courier company wants a robust summary of its delivery times that is not thrown off "
        "by a few very late parcels. Given `minutes`, the delivery times of one day, return the "
        "median delivery time.",
        "def solve(minutes):",
        ["median"],
        "import numpy as np\n\ndef solve(minutes):\n    return np.median(minutes)\n",
        [
            "minutes=[30, 45, 25, 300, 40]",
            "minutes=[12, 18, 15, 21]",
            "minutes=[60]",
            "minutes=[5, 95, 50, 52, 48, 51]",
        ],
    ),
    (
        "permission_masks",
        "Two services each grant a permission bit mask per user. A user may only do what both "
        "services allow. Given the lists `granted_a` and `granted_b` (one integer mask per user), "
        "return the effective masks.",
        "def solve(granted_a, granted_b):",
        ["bitwise_and"],
        "import numpy as np\n\ndef solve(granted_a, granted_b):\n    return np.bitwise_and(granted_a, granted_b).tolist()\n",
        [
            "granted_a=[7, 12, 255], granted_b=[5, 10, 15]",
            "granted_a=[1, 2, 4, 8], granted_b=[15, 15, 0, 8]",
            "granted_a=[1023], granted_b=[512]",
        ],
    ),
    (
        "invert_transform",
        "A 2-D graphics pipeline stores each transform as a square matrix. To undo a transform "
        "the renderer needs its inverse. Given the matrix `m`, return its inverse as nested lists.",
        "def solve(m):",
        ["inv"],
        "import numpy as np\n\ndef solve(m):\n    return np.linalg.inv(m).tolist()\n",
        [
            "m=np.array([[4, 7], [2, 6]])",
            "m=np.array([[2, 0], [0, 5]])",
            "m=np.array([[1, 2, 0], [0, 1, 0], [0, 0, 4]])",
        ],
    ),
    (
        "parcel_area_det",
        "A surveyor describes a parallelogram-shaped parcel by the two edge vectors that meet at "
        "one corner, given as the rows of the 2x2 matrix `edges`. Return the signed area of the "
        "parcel (the determinant of the matrix).",
        "def solve(edges):",
        ["det"],
        "import numpy as np\n\ndef solve(edges):\n    return np.linalg.det(edges)\n",
        [
            "edges=[[3, 1], [1, 2]]",
            "edges=[[0, 4], [2, 0]]",
            "edges=[[1.5, 0.5], [0.5, 1.5]]",
        ],
    ),
    (
        "running_balance",
        "A wallet app shows the balance after every transaction. Given `transactions` "
        "(deposits positive, payments negative) on an account that starts empty, return the "
        "balance after each transaction as a list.",
        "def solve(transactions):",
        ["cumsum"],
        "import numpy as np\n\ndef solve(transactions):\n    return np.cumsum(transactions).tolist()\n",
        [
            "transactions=[100, -20, -30, 50]",
            "transactions=[5, 5, 5]",
            "transactions=[-10, 25, -15, 0, 40]",
        ],
    ),
    (
        "clip_sensor",
        "A pressure sensor sometimes reports impossible spikes. Given `values` and the valid "
        "range `low` to `high`, replace every value outside the range by the nearest bound and "
        "return the cleaned values as a list.",
        "def solve(values, low, high):",
        ["clip"],
        "import numpy as np\n\ndef solve(values, low, high):\n    return np.clip(values, low, high).tolist()\n",
        [
            "values=[1, 15, -3, 7], low=0, high=10",
            "values=[2.5, 9.75, 4.0], low=3, high=9",
            "values=[100, 200], low=150, high=160",
        ],
    ),
    (
        "rank_runners",
        "A race timer records each runner's finishing time in `times` (runner i at position i). "
        "Return the runner indices from fastest to slowest.",
        "def solve(times):",
        ["argsort"],
        "import numpy as np\n\ndef solve(times):\n    return np.argsort(times, kind='stable').tolist()\n",
        [
            "times=[12.4, 11.9, 13.1, 12.0]",
            "times=[30, 10, 20]",
            "times=[9.5, 9.8, 9.6, 9.7, 9.9]",
        ],
    ),
    (
        "price_volatility",
        "A trader measures the volatility of a stock as the population standard deviation of "
        "its closing prices. Given `closes`, return that standard deviation.",
        "def solve(closes):",
        ["std"],
        "import numpy as np\n\ndef solve(closes):\n    return np.std(closes)\n",
        [
            "closes=[100, 104, 98, 110, 95]",
            "closes=[20, 22, 24, 26]",
            "closes=[50, 50, 57, 43]",
        ],
    ),
    (
        "distinct_tags",
        "A photo library stores numeric tag ids for every photo, with repeats. Given `tags`, "
        "return the distinct tag ids in ascending order.",
        "def solve(tags):",
        ["unique"],
        "import numpy as np\n\ndef solve(tags):\n    return np.unique(tags).tolist()\n",
        [
            "tags=[4, 1, 4, 9, 1, 1]",
            "tags=[7]",
            "tags=[3, 2, 1, 2, 3]",
        ],
    ),
    (
        "drone_distance",
        "A delivery drone reports its displacement from the depot as a vector `offset` "
        "(metres along each axis). Return the straight-line distance from the depot.",
        "def solve(offset):",
        ["norm"],
        "import numpy as np\n\ndef solve(offset):\n    return np.linalg.norm(offset)\n",
        [
            "offset=[3, 4]",
            "offset=[1, 2, 2]",
            "offset=[-6, 8, 0]",
        ],
    ),
    (
        "basket_total",
        "A shop computes the value of a basket from the unit `prices` of its products and the "
        "`quantities` bought (same order). Return the total value of the basket.",
        "def solve(prices, quantities):",
        ["dot"],
        "import numpy as np\n\ndef solve(prices, quantities):\n    return np.dot(prices, quantities)\n",
        [
            "prices=[2.5, 4.0, 1.25], quantities=[2, 1, 4]",
            "prices=[10, 20], quantities=[3, 0]",
            "prices=[0.99, 5.49, 3.75, 12.0], quantities=[3, 1, 2, 1]",
        ],
    ),
    (
        "altitude_profile",
        "A descending aircraft logs how many metres it dropped in each minute, as positive "
        "numbers in `drops`. Return its altitude relative to the starting altitude after each "
        "minute (so the values are zero or negative), as a list.",
        "def solve(drops):",
        ["cumsum"],
        "import numpy as np\n\ndef solve(drops):\n    return (-np.cumsum(drops)).tolist()\n",
        [
            "drops=[100, 150, 50]",
            "drops=[10, 0, 30, 20]",
            "drops=[250]",
        ],
    ),
]


def run_reference(code, signature, case_input):
    """Runs the reference like the harness: call the entry, print the result."""
    env = {}
    exec(code, env)
    entry = signature[len("def ") : signature.index("(")]
    result = eval(f"{entry}({case_input})", env)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(result)
    return out.getvalue()[:-1]  # print's newline is not part of the recorded output


def items():
    for n, (key, query, signature, selected, reference, inputs) in enumerate(TASKS):
        cases = [{"input": i, "output": run_reference(reference, signature, i)} for i in inputs]
        yield {
            "query": query,
            "function_name": signature,
            "selected_functions": selected,
            "example_output": [reference],
            "example": cases[0],
            "test_cases": cases,
            "right_exe_result": "#".join(c["output"] for c in cases),
            "is_valid": True,
            "demo_task": key,
            "1func_query_id": n,
        }


if __name__ == "__main__":
    out = Path(__file__).with_name("tasks.jsonl")
    with out.open("w") as f:
        for item in items():
            f.write(json.dumps(item) + "\n")
    print(f"wrote {out} ({len(TASKS)} tasks)")
