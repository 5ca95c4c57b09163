"""Checks deploy/reward.py inside SE-Bench's verl fork itself, on CPU, against a running
`sebx serve` (not run in sebx's CI: it needs the fork's Python environment, torch included).

    python deploy/check_fork.py /path/to/SE-Bench/verl_evolve [rollouts.jsonl]

It loads reward.py the way the fork does (`load_reward_manager` with
`custom_reward_function.path`), builds a batch from the rollouts (default: sebx's demo
rollouts, one rollout object a line) in SE-Bench's RL data shape, with a stand-in tokenizer
that decodes each response to its text, and for the `naive` and `batch` managers:
  1. `compute_reward` gives each response's server score (`/grade?reward=1`, asked here
     directly) on its last token, and `score`, `verdict`, `reward_reason` as extra info;
  2. with one sample the server refuses in the middle, the fork's `compute_reward` calls the
     manager twice; the error is a built-in RuntimeError that unpickles in a fresh process,
     and no request is sent twice (counted at urllib).
SEBX_URL (and SEBX_TOKEN) name the server, as for training. Exits 1 on the first failure.
"""

import json
import os
import pickle
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


class Tokenizer:
    """Decodes token id i to text i: the batch's prompts and responses are one token each."""

    eos_token = ""

    def __init__(self, texts):
        self.texts = texts

    def decode(self, ids, skip_special_tokens=True):
        return "".join(self.texts[int(i)] for i in ids)


def server_score(rollout):
    base = os.environ.get("SEBX_URL", "http://127.0.0.1:8111").rstrip("/")
    headers = {"Content-Type": "application/json"}
    if os.environ.get("SEBX_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["SEBX_TOKEN"]
    request = urllib.request.Request(
        base + "/grade?reward=1", json.dumps(rollout).encode(), headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=600) as answer:
        return json.loads(answer.read())["score"]


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    import numpy as np
    import torch
    from omegaconf import OmegaConf

    from verl import DataProto
    from verl.trainer.ppo.reward import compute_reward, load_reward_manager

    source = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "samples", "demo", "rollouts.jsonl")
    rollouts = [json.loads(line) for line in open(source, encoding="utf-8") if line.strip()]

    def batch(rows):
        texts = ["prompt"] + [r["response"] for r in rows]
        n = len(rows)
        data = DataProto.from_dict(
            tensors={
                "prompts": torch.zeros((n, 1), dtype=torch.long),
                "responses": torch.arange(1, n + 1, dtype=torch.long).unsqueeze(1),
                "attention_mask": torch.ones((n, 2), dtype=torch.long),
            },
            non_tensors={
                "data_source": np.array(["query_doc"] * n, dtype=object),
                "reward_model": np.array(
                    [{"ground_truth": r["right_exe_result"]} for r in rows], dtype=object
                ),
                "extra_info": np.array(
                    [
                        {"split": "train", "index": i, "test_cases": r["test_cases"],
                         "right_exe_result": r["right_exe_result"]}
                        for i, r in enumerate(rows)
                    ],
                    dtype=object,
                ),
            },
        )
        return data, Tokenizer(texts)

    sent = []
    original = urllib.request.urlopen

    def counting(request, *args, **kwargs):
        if hasattr(request, "data") and request.data:
            sent.append(request.data)
        return original(request, *args, **kwargs)

    for name in ("naive", "batch"):
        config = OmegaConf.create({
            "custom_reward_function": {
                "path": os.path.join(HERE, "reward.py"), "name": "compute_score", "reward_kwargs": {},
            },
            "reward_model": {"reward_manager": name, "sandbox_fusion": None},
            "data": {"reward_fn_key": "data_source"},
        })
        data, tokenizer = batch(rollouts)
        manager = load_reward_manager(config, tokenizer, num_examine=0)
        rewards, extra = compute_reward(data, manager)
        got = rewards.sum(-1).tolist()
        want = [server_score({"query": "", "response": r["response"], "test_cases": r["test_cases"],
                              "right_exe_result": r["right_exe_result"]}) for r in rollouts]
        if got != want:
            fail(f"{name}: compute_reward gave {got}, the server {want}")
        if sorted(extra) != ["reward_reason", "score", "verdict"]:
            fail(f"{name}: reward_extra_info keys {sorted(extra)}")
        print(f"ok {name}: {len(got)} scores agree with the server")

        refused = dict(rollouts[0], test_cases="not a list")
        rows = rollouts[:2] + [refused] + rollouts[2:4]
        data, tokenizer = batch(rows)
        manager = load_reward_manager(config, tokenizer, num_examine=0)
        sent.clear()
        urllib.request.urlopen = counting
        try:
            compute_reward(data, manager)
            fail(f"{name}: a refused sample did not fail")
        except RuntimeError as err:
            error = err
        finally:
            urllib.request.urlopen = original
        if type(error) is not RuntimeError:
            fail(f"{name}: raised {type(error).__module__}.{type(error).__name__}")
        back = subprocess.run(
            [sys.executable, "-c", "import pickle, sys; print(pickle.loads(bytes.fromhex(sys.argv[1])))",
             pickle.dumps(error).hex()],
            capture_output=True, text=True,
        )
        if back.returncode != 0 or back.stdout.strip() != str(error):
            fail(f"{name}: the error does not unpickle in a fresh process: {back.stderr}")
        if len(sent) != len(set(sent)):
            fail(f"{name}: {len(sent)} requests, {len(set(sent))} distinct: something was sent twice")
        print(f"ok {name}: a refused sample fails with a RuntimeError, {len(sent)} requests, none twice")


if __name__ == "__main__":
    main()
