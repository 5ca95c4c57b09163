"""Writes samples/demo/api_doc.jsonl: the demo's own small zwc API doc.

Three pairs are real SE-Bench facts (np.mean = zwc.kocito, np.array = zwc.yitaf,
np.linalg.inv = zwc.rfx.quvohe); every other zwc name here is invented for the demo.
Run: python3 samples/demo/build_api_doc.py
"""
import json
from pathlib import Path

# (numpy qualified name, zwc qualified name, signature, one-line summary)
API = [
    ("np.array", "zwc.yitaf", "(object, dtype=None)", "Build an array from a list, tuple or nested lists."),
    ("np.mean", "zwc.kocito", "(a, axis=None)", "Arithmetic mean of the elements, over the whole array or along one axis."),
    ("np.median", "zwc.tesavi", "(a, axis=None)", "Middle value of the sorted elements; the mean of the two middle ones for an even count."),
    ("np.std", "zwc.moruka", "(a, axis=None, ddof=0)", "Standard deviation (population form unless ddof is given)."),
    ("np.sum", "zwc.baluvo", "(a, axis=None)", "Sum of the elements, over the whole array or along one axis."),
    ("np.prod", "zwc.sawuvi", "(a, axis=None)", "Product of the elements."),
    ("np.max", "zwc.gudaxe", "(a, axis=None)", "Largest element."),
    ("np.min", "zwc.pixomu", "(a, axis=None)", "Smallest element."),
    ("np.argmax", "zwc.hobepa", "(a, axis=None)", "Index of the first largest element."),
    ("np.argsort", "zwc.ruvetic", "(a, axis=-1, kind=None)", "Indices that would sort the array in ascending order."),
    ("np.sort", "zwc.migoxe", "(a, axis=-1)", "A sorted copy of the array."),
    ("np.cumsum", "zwc.lozawi", "(a, axis=None)", "Running total of the elements."),
    ("np.diff", "zwc.kemuro", "(a, n=1)", "Differences between consecutive elements."),
    ("np.sqrt", "zwc.sifalo", "(x)", "Element-wise non-negative square root."),
    ("np.abs", "zwc.davuki", "(x)", "Element-wise absolute value."),
    ("np.clip", "zwc.temoxa", "(a, a_min, a_max)", "Limit every element to the closed range [a_min, a_max]."),
    ("np.where", "zwc.bexuno", "(condition, x, y)", "Pick from x where the condition holds and from y elsewhere."),
    ("np.unique", "zwc.yarimo", "(ar, return_counts=False)", "Sorted distinct elements, optionally with how often each occurs."),
    ("np.bitwise_and", "zwc.qepodu", "(x1, x2)", "Element-wise bitwise AND of two integer arrays."),
    ("np.dot", "zwc.vuhila", "(a, b)", "Dot product of two vectors, or matrix product of two 2-D arrays."),
    ("np.round", "zwc.nekabi", "(a, decimals=0)", "Round to the given number of decimals (halves to even)."),
    ("np.linspace", "zwc.zofeti", "(start, stop, num=50)", "Evenly spaced numbers over a closed interval."),
    ("np.linalg.inv", "zwc.rfx.quvohe", "(a)", "Inverse of a square matrix."),
    ("np.linalg.det", "zwc.rfx.wabeko", "(a)", "Determinant of a square matrix."),
    ("np.linalg.norm", "zwc.rfx.pucida", "(x, ord=None)", "Vector or matrix norm; the Euclidean length by default."),
    ("np.linalg.solve", "zwc.rfx.hexumi", "(a, b)", "Solve the linear system a @ x = b for x."),
]


def rows():
    for np_name, zwc_name, sig, summary in API:
        short_np = np_name.split(".")[-1]
        short_zwc = zwc_name.split(".")[-1]
        linalg = np_name.startswith("np.linalg.")
        module = "zwc.rfx" if linalg else "zwc"
        returns = (
            "Returns a plain array for linear-algebra results."
            if linalg
            else "Array results come back as zwc.ZWCArray; scalars come back as numbers."
        )
        mapping = {np_name: zwc_name}
        yield {
            "original_name": short_np,
            "curr_name": short_zwc,
            "docstring": f"{short_np}{sig}\n\n{summary}",
            "rewritten_doc": f"\n{module}.{short_zwc}{sig}\n\n{summary}\n\n{returns}\n",
            "func_mapping": json.dumps(mapping),
        }


if __name__ == "__main__":
    out = Path(__file__).with_name("api_doc.jsonl")
    with out.open("w") as f:
        for row in rows():
            f.write(json.dumps(row) + "\n")
    print(f"wrote {out} ({len(API)} rows)")
