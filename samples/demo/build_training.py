"""Writes the demo's training run: samples/demo/training/{rollout,validation}/{step}.jsonl,
in the shape verl dumps (`trainer.rollout_data_dir`, `trainer.validation_data_dir`).

A made-up GRPO run over five demo tasks, 4 samples per prompt, steps 1-3 (validation at
steps 0 and 3). Every response is written for the demo. The story it tells:
- greenhouse_mean: NumPy names at step 1 (`zwc.mean`, `.tolist()` on a ZWCArray), learned
  by step 2 in the evaluation's eyes; but the RL reward gives every right answer 0 (the
  printed array keeps 8 decimals: within the evaluation's 1e-2, not the reward's 1e-10), so
  at step 3 four right answers all score 0 (a zero-advantage group).
- delivery_median: solved at step 2, forgotten at step 3 in the verdict's eyes: the
  answers' first block is right and their last block is not, so the RL reward (first
  block) still gives 1 while the evaluation (last block) says exe_error.
- price_volatility: never solved (invented names, then the population/sample mix-up);
  at step 1 every sample scores 0 (a zero-advantage group).
- parcel_area_det: learned at step 3 (`zwc.rfx.wabeko`).
- running_balance: right from step 1; one step-3 sample prints a debug line to stderr
  (right, but reward 0), and one step-3 sample's `gts` is not the task's expected result
  (so training scored a right answer 0).
- one step-2 sample's prompt is for a task the dataset does not have (unjoined).
- two stored scores are not what the official reward gives (a partial-credit pipeline).
Qwen3-style: prompts keep the chat template's role words, answers may open with
<think>...</think> (one thinks in a python block, which the RL reward then takes).

Run: python3 samples/demo/build_training.py   (after build_tasks.py)
"""
import json
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "training"
TASKS = {}
for line in (HERE / "tasks.jsonl").read_text().splitlines():
    item = json.loads(line)
    TASKS[item["demo_task"]] = item
DOCS = {}
for line in (HERE / "api_doc.jsonl").read_text().splitlines():
    doc = json.loads(line)
    DOCS[doc["original_name"]] = doc

F = "```"


def block(code):
    return f"{F}python\n{code.strip()}\n{F}"


def prompt(task, train=True, query=None):
    item = TASKS[task]
    example = item["example"]
    parts = ["user", "Solve the problem below with the zwc library. Answer with one python code block."]
    if train:
        docs = []
        for name in item["selected_functions"]:
            doc = DOCS.get(name)
            if doc:
                docs.append(f"- zwc.{'rfx.' if name in ('inv', 'det', 'norm', 'solve') else ''}{doc['curr_name']}: {doc.get('rewritten_doc', '').strip()[:200]}")
        parts += ["", "### zwc Codebase Functions", *docs]
    parts += [
        "",
        "### Problem",
        query if query is not None else item["query"],
        "",
        "### Test Cases",
        f"Input: {example['input']}",
        f"Output: {example['output']}",
        "",
        "### Function to Complete",
        item["function_name"],
        "assistant",
        "",
    ]
    return "\n".join(parts)


def answer(code, prose="Here is the solution.", think=None):
    head = f"<think>\n{think}\n</think>\n\n" if think else ""
    return f"{head}{prose}\n\n{block(code)}"


MEAN_RIGHT = """
import zwc

def solve(readings):
    return zwc.kocito(readings, axis=1)
"""
MEAN_NUMPY_NAME = """
import zwc

def solve(readings):
    return zwc.mean(readings, axis=1)
"""
MEAN_TOLIST = """
import zwc

def solve(readings):
    return zwc.kocito(readings, axis=1).tolist()
"""
MEDIAN_RIGHT = """
import zwc

def solve(minutes):
    return zwc.tesavi(minutes)
"""
MEDIAN_NUMPY_NAME = """
import zwc

def solve(minutes):
    return zwc.median(minutes)
"""
STD_INVENTED = """
import zwc

def solve(closes):
    return zwc.stdev(closes)
"""
STD_SAMPLE = """
import zwc

def solve(closes):
    return zwc.moruka(closes, ddof=1)
"""
DET_NUMPY_NAME = """
import zwc

def solve(edges):
    return abs(zwc.linalg.det(edges))
"""
DET_RIGHT = """
import zwc

def solve(edges):
    return zwc.rfx.wabeko(edges)
"""
BALANCE_RIGHT = """
import zwc

def solve(transactions):
    return list(zwc.lozawi(transactions))
"""
BALANCE_DEBUG = """
import sys
import zwc

def solve(transactions):
    balance = zwc.lozawi(transactions)
    print("debug: balance computed", file=sys.stderr)
    return list(balance)
"""


def first_right_last_wrong(right, wrong):
    return (
        "The median is `zwc.tesavi`:\n\n" + block(right)
        + "\n\nOn second thought, the NumPy name reads better:\n\n" + block(wrong)
    )


# Per step: task -> list of (response, stored score). Stored scores are what the
# official reward gives, except where a comment says otherwise.
ROLLOUT = {
    1: {
        "greenhouse_mean": [
            (answer(MEAN_NUMPY_NAME, "zwc mirrors NumPy, so the mean should be `zwc.mean`."), 0.0),
            (answer(MEAN_TOLIST, think="One mean per row: axis=1."), 0.0),
            (answer(MEAN_RIGHT, "The mean along axis 1 is `zwc.kocito`."), 0.0),
            (answer(MEAN_NUMPY_NAME, "Use the mean."), 0.0),
        ],
        "delivery_median": [
            (answer(MEDIAN_NUMPY_NAME), 0.0),
            (answer(MEDIAN_NUMPY_NAME, "The median resists outliers."), 0.0),
            (answer(MEDIAN_NUMPY_NAME, think="median, not mean"), 0.0),
            (answer(MEDIAN_NUMPY_NAME, "zwc.median."), 0.0),
        ],
        "price_volatility": [
            (answer(STD_INVENTED), 0.0),
            (answer(STD_INVENTED, "Volatility is a standard deviation."), 0.0),
            (answer(STD_SAMPLE, "zwc.moruka with the sample correction."), 0.0),
            (answer(STD_INVENTED, think="stdev?"), 0.0),
        ],
        "running_balance": [
            (answer(BALANCE_RIGHT), 1.0),
            (answer(BALANCE_RIGHT, "A running total is a cumulative sum."), 1.0),
            (answer(BALANCE_RIGHT, think="cumsum is lozawi"), 1.0),
            # A partial-credit pipeline, not the official reward (which gives 1 here).
            (answer(BALANCE_RIGHT, "Cumulative sum, then a list."), 0.5),
        ],
    },
    2: {
        "greenhouse_mean": [
            (answer(MEAN_RIGHT), 0.0),
            (answer(MEAN_RIGHT, "Row means: zwc.kocito along axis 1."), 0.0),
            (answer(MEAN_TOLIST, "Means, as a list."), 0.0),
            (answer(MEAN_RIGHT, think="axis=1 again"), 0.0),
        ],
        "delivery_median": [
            (answer(MEDIAN_RIGHT), 1.0),
            (answer(MEDIAN_RIGHT, "The median is zwc.tesavi."), 1.0),
            (answer(MEDIAN_NUMPY_NAME), 0.0),
            (answer(MEDIAN_RIGHT, think="tesavi"), 1.0),
        ],
        "price_volatility": [
            (answer(STD_SAMPLE), 0.0),
            (answer(STD_INVENTED, "A deviation."), 0.0),
            (answer(STD_SAMPLE, "Sample standard deviation."), 0.0),
            # Another pipeline's score: the official reward gives 0.
            (answer(STD_SAMPLE, think="ddof=1"), 1.0),
        ],
        "parcel_area_det": [
            (answer(DET_NUMPY_NAME), 0.0),
            (answer(DET_NUMPY_NAME, "The area of a parallelogram is |det|."), 0.0),
            (answer(DET_NUMPY_NAME, think="determinant"), 0.0),
            (answer(DET_NUMPY_NAME, "linalg.det"), 0.0),
        ],
    },
    3: {
        "greenhouse_mean": [
            (answer(MEAN_RIGHT), 0.0),
            (answer(MEAN_RIGHT, "zwc.kocito, axis 1."), 0.0),
            (answer(MEAN_RIGHT, think="row means"), 0.0),
            (answer(MEAN_RIGHT, "Means per sensor."), 0.0),
        ],
        "delivery_median": [
            (first_right_last_wrong(MEDIAN_RIGHT, MEDIAN_NUMPY_NAME), 1.0),
            (first_right_last_wrong(MEDIAN_RIGHT, MEDIAN_NUMPY_NAME), 1.0),
            (answer(MEDIAN_NUMPY_NAME), 0.0),
            (
                # Thinks in a python block: the RL reward grades that first block.
                answer(
                    MEDIAN_NUMPY_NAME,
                    "Final answer.",
                    think="Draft:\n" + block(MEDIAN_RIGHT),
                ),
                1.0,
            ),
        ],
        "parcel_area_det": [
            (answer(DET_RIGHT), 1.0),
            (answer(DET_RIGHT, "zwc.rfx.wabeko is the determinant."), 1.0),
            (answer(DET_NUMPY_NAME), 0.0),
            (answer(DET_RIGHT, think="rfx holds linalg"), 1.0),
        ],
        "running_balance": [
            (answer(BALANCE_RIGHT), 1.0),
            (answer(BALANCE_DEBUG, "With a debug line."), 0.0),
            (answer(BALANCE_RIGHT, "Cumulative sum."), 1.0),
            (answer(BALANCE_RIGHT, think="lozawi"), 1.0),
        ],
    },
}

VALIDATION = {
    0: {
        "greenhouse_mean": (answer(MEAN_NUMPY_NAME), 0.0),
        "delivery_median": (answer(MEDIAN_NUMPY_NAME), 0.0),
        "price_volatility": (answer(STD_INVENTED), 0.0),
        "parcel_area_det": (answer(DET_NUMPY_NAME), 0.0),
        "running_balance": (answer(BALANCE_RIGHT), 1.0),
    },
    3: {
        "greenhouse_mean": (answer(MEAN_RIGHT), 0.0),
        "delivery_median": (answer(MEDIAN_NUMPY_NAME), 0.0),
        "price_volatility": (answer(STD_SAMPLE), 0.0),
        "parcel_area_det": (answer(DET_RIGHT), 1.0),
        "running_balance": (answer(BALANCE_RIGHT), 1.0),
    },
}


def gts(task):
    return TASKS[task]["right_exe_result"]


def write(folder, step, lines):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{step}.jsonl", "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def main():
    for step, tasks in ROLLOUT.items():
        lines = []
        for task, samples in tasks.items():
            for k, (output, score) in enumerate(samples):
                truth = gts(task)
                if step == 3 and task == "running_balance" and k == 0:
                    # A pipeline bug in the gts: training compared with it, so it scored 0.
                    truth = truth.replace("100]", "110]", 1)
                    score = 0.0
                lines.append({
                    "input": prompt(task),
                    "output": output,
                    "gts": truth,
                    "score": score,
                    "step": step,
                    "acc": score == 1.0,
                })
        if step == 2:
            # A prompt for a task the dataset does not have.
            lines.append({
                "input": prompt("delivery_median", query="Given `minutes`, return the mode of the delivery times."),
                "output": answer("import zwc\n\ndef solve(minutes):\n    return zwc.mode(minutes)\n"),
                "gts": "30",
                "score": 0.0,
                "step": step,
                "acc": False,
            })
        write(OUT / "rollout", step, lines)
    for step, tasks in VALIDATION.items():
        lines = []
        for task, (output, score) in tasks.items():
            lines.append({
                "input": prompt(task, train=False),
                "output": output,
                "gts": gts(task),
                "score": score,
                "reward": score,
                "step": step,
            })
        write(OUT / "validation", step, lines)


if __name__ == "__main__":
    main()
