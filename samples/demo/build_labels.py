"""Writes samples/demo/rollouts.jsonl.labels.jsonl: example labels by two annotators.

`ana` labels every failing rollout of run 1 (lines 13-36), `ben` the first eighteen of
them (lines 13-30); they disagree on lines 22, 24, 26 and 28. `ana` changed her mind on
line 29 (two records; the later one counts). Try:
    sebx labels agreement samples/demo/rollouts.jsonl --annotators ana,ben
Run: python3 samples/demo/build_labels.py   (after build_rollouts.py)
"""
import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent

# line -> (categories, note)
ANA = {
    13: (["numpy_import"], ""),
    14: (["numpy_import"], "np.asarray only to convert the input"),
    15: (["numpy_import"], "the import is dead code but still counts"),
    16: (["numpy_name_on_zwc"], "zwc.mean"),
    17: (["numpy_name_on_zwc"], "zwc.linalg.norm"),
    18: (["invented_zwc_name"], "temoxe vs temoxa"),
    19: (["numpy_method_on_zwcarray"], ".tolist()"),
    20: (["numpy_method_on_zwcarray"], "a @ b"),
    21: (["numpy_method_on_zwcarray"], "unary minus"),
    22: (["timeout", "logic_error"], "index never advances"),
    23: (["wrong_zwc_function"], "mean instead of median"),
    24: (["wrong_zwc_function"], "sort instead of argsort"),
    25: (["logic_error"], "extra 2% factor"),
    26: (["wrong_arguments"], "ord=1"),
    27: (["output_format"], "dict instead of list"),
    28: (["numpy_method_on_zwcarray"], ".round() after a debug print"),
    29: (["logic_error"], "reversed before summing"),
    30: (["not_using_zwc"], ""),
    31: (["not_using_zwc", "numpy_import"], "NumPy-only answer"),
    32: (["other"], "helper defined first becomes the entry (grader quirk)"),
    33: (["no_code"], "python3 fence"),
    34: (["other"], "def in the docstring becomes the entry (grader quirk)"),
    35: (["no_code"], "syntax error"),
    36: (["not_using_zwc"], "only zwc.yitaf"),
}
BEN = {line: ANA[line] for line in range(13, 31)}
BEN[22] = (["timeout"], "")
BEN[24] = (["wrong_zwc_function", "output_format"], "values instead of indices")
BEN[26] = (["logic_error"], "")
BEN[28] = (["other"], "debug print hides the crash")


def rollout_id(query, response):
    """Same as sebx's RolloutId::derive for a first occurrence."""
    digest = hashlib.sha256(query.encode() + b"\0" + response.encode()).digest()
    return digest[:8].hex()


def main():
    lines = (HERE / "rollouts.jsonl").read_text().splitlines()
    ids = [rollout_id(r["query"], r["response"]) for r in map(json.loads, lines)]
    assert len(set(ids)) == len(ids), "the demo has no duplicate rollouts"
    records = []
    minute = 0

    def add(line, categories, note, annotator):
        nonlocal minute
        minute += 1
        records.append({
            "rollout": ids[line - 1],
            "categories": categories,
            "note": note,
            "annotator": annotator,
            "time": f"2026-11-20T{9 + minute // 60:02d}:{minute % 60:02d}:00.000Z",
        })

    add(29, ["other"], "", "ana")  # first thought, replaced below
    for line, (cats, note) in ANA.items():
        add(line, cats, note, "ana")
    for line, (cats, note) in BEN.items():
        add(line, cats, note, "ben")
    out = HERE / "rollouts.jsonl.labels.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"wrote {out} ({len(records)} records)")


if __name__ == "__main__":
    main()
