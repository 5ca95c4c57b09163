"""A verl-style reward function backed by `sebx serve` (standard library only).

verl calls `compute_score(data_source, solution_str, ground_truth, extra_info)` for each
sampled response; point its `custom_reward_function.path` at this file and
`custom_reward_function.name` at `compute_score`. The score is 1.0 when the official
SE-Bench verdict is `right`, else 0.0, as `POST /grade?reward=1` decides it.

`ground_truth` holds the task's tests: a dict (or its JSON text) with `test_cases` (list of
{"input", "output"}) and `right_exe_result` (expected printed results joined by `#`), as in
the SE-Bench dataset items; `query` may be in it or in `extra_info`.

Settings (environment):
  SEBX_URL         base URL of sebx serve (default http://127.0.0.1:8111)
  SEBX_TOKEN       bearer token, if the server was started with --token-file
  SEBX_TIMEOUT     seconds per HTTP attempt (default 60)
  SEBX_ATTEMPTS    attempts on connection errors and 503 (default 8; waits follow Retry-After)
"""

import json
import os
import time
import urllib.error
import urllib.request


class RewardError(RuntimeError):
    """The server could not grade the response (bad rollout, or no server answered)."""


def _settings():
    return (
        os.environ.get("SEBX_URL", "http://127.0.0.1:8111").rstrip("/"),
        os.environ.get("SEBX_TOKEN"),
        float(os.environ.get("SEBX_TIMEOUT", "60")),
        int(os.environ.get("SEBX_ATTEMPTS", "8")),
    )


def grade_reward(rollout):
    """POSTs one official rollout object to /grade?reward=1; returns {"score", "verdict"}."""
    base, token, timeout, attempts = _settings()
    body = json.dumps(rollout).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    last = None
    for attempt in range(max(1, attempts)):
        request = urllib.request.Request(
            base + "/grade?reward=1", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace")
            if err.code != 503:
                raise RewardError(f"sebx answered {err.code}: {detail}") from err
            last = f"503: {detail}"
            wait = float(err.headers.get("Retry-After") or 1)
        except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
            # A connection refused or reset (an instance going away): try again.
            last = f"connection error: {err}"
            wait = min(0.1 * 2**attempt, 2.0)
        time.sleep(wait)
    raise RewardError(f"no answer from {base} after {attempts} attempts ({last})")


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """The reward of one response: 1.0 if the official verdict is `right`, else 0.0."""
    truth = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    query = truth.get("query") or (extra_info or {}).get("query") or ""
    rollout = {
        "query": query,
        "response": solution_str,
        "test_cases": truth["test_cases"],
        "right_exe_result": truth["right_exe_result"],
    }
    return float(grade_reward(rollout)["score"])
