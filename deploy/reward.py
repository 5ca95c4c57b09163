"""SE-Bench's RL reward for verl, computed by `sebx serve` (standard library only, Python 3.8+).

Point verl's `custom_reward_function.path` at this file and `custom_reward_function.name`
at `compute_score`. The same function serves both of verl's calling conventions:

  per sample (reward_model.reward_manager=naive, or a direct call), posts to /grade?reward=1:
    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)
  per batch (reward_model.reward_manager=batch), one POST to /grade/batch?reward=1:
    compute_score(data_sources=[...], solution_strs=[...], ground_truths=[...],
                  extra_infos=[...])  ->  a list, in order

Positional per-sample calls work too. Other keyword arguments (verl's `reward_kwargs`, or
the keys it adds itself) are accepted and ignored. The score is the one the server answers
for `?reward=1`: by default SE-Bench's official RL reward (its verl fork's
`self_question.compute_score`, which differs from the evaluation verdict; see the server's
docs).

What a sample carries, in either of two shapes:
  official (what SE-Bench's RL data scripts write into the parquet files):
    ground_truth = the task's `right_exe_result` text, e.g. "[1 2]#[3 4]"
    extra_info   = {"split": ..., "index": ..., "right_exe_result": str,
                    "test_cases": [{"input": str, "output": str}, ...]}
  a dict (or its JSON text) holding the tests itself:
    ground_truth = {"test_cases": [...], "right_exe_result": str, "query": str (optional)}
ground_truth is taken as the dict shape only when it is a mapping, or text that parses as a
JSON object with a "test_cases" key; any other text (even valid JSON such as "5" or
"[1, 2]") is the expected result itself, with the tests taken from extra_info. `query`
comes from the dict, else extra_info["query"], else "". Missing tests raise an error.

Returns (SEBX_RETURN):
  dict (default)   {"score": float, "verdict": str, "reward_reason": str}; verl uses
                   "score" as the reward and keeps the other keys as reward_extra_info (they
                   land in rollout dumps). A missing verdict or reason is "", never None.
  float            the score alone.
A rollout the server could not grade (it answers `error`) raises an error: an ungraded
response is never silently rewarded 0.

Errors are the built-in RuntimeError (`RewardError` is that same class, kept as a name to
catch), with the message kept. verl loads this file from its path as `custom_module`, a
module no other process has, so an exception class defined here could not be unpickled by
the Ray process that receives it ("Failed to deserialize exception").

Retries: a request the server never took (connection refused: no server yet, or one
restarting; 503: its queue is full) is sent again, a bounded number of times with short
waits, then the error says no server answers. A request cut off while the server had it
(connection reset: the server died or restarted) is sent again too, since that work is
gone. A request that timed out is NOT sent again: the server may still be grading it (it
drops the rest of an abandoned request's programs and logs it); the error says to raise
SEBX_TIMEOUT instead.

verl's second call. On an error, verl's `compute_reward` (verl.trainer.ppo.reward) prints
it and calls the reward manager again with the same data. So that this second call
neither sends again a request that just failed nor grades again what was already graded,
this module remembers, per process and by content (a SHA-256 of the request path and
body), the last 4096 answers and the failure of the last call that failed. Until the retry
is over, a call making a request it has an answer for is answered from memory, without a
request. The retry is over at the first of: the call making the failed request again (it
raises the same message at once, marked "not sent again", without a request); a call
failing again with the same message (an answer with `error`, or bad data, met again); a call
making any other request (it is sent, as are all calls after). So a failure costs its
time once, and the second call then fails at once: SEBX_TIMEOUT for a timeout, about 7 s
of attempts (SEBX_ATTEMPTS=8) when no server answers, one answer for a refused rollout.

Settings (environment):
  SEBX_URL          base URL of sebx serve (default http://127.0.0.1:8111); with a Ray
                    cluster started beforehand, pass it to the workers through Ray's
                    runtime_env (env_vars), where reward functions run: with verl
                    +ray_kwargs.ray_init.runtime_env.env_vars.SEBX_URL=...
  SEBX_TOKEN        bearer token, if the server was started with --token-file
  SEBX_TIMEOUT      seconds per HTTP attempt (default 60); a batch is one attempt, so set it
                    above the time the server needs for a whole batch
  SEBX_ATTEMPTS     attempts when the server did not take the request (default 8; waits
                    follow Retry-After, else 0.1 s doubling up to 2 s: about 7 s in all)
  SEBX_RETURN       dict (default) or float
  SEBX_DATA_SOURCES comma-separated data sources sent to sebx (default SE-Bench's four);
                    "*" sends every sample
"""

import hashlib
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request

_RETURN_FORMS = ("dict", "float")
# The data sources SE-Bench's verl fork scores with self_question.compute_score.
_SEBENCH_SOURCES = ("query_doc", "query_doc_train", "test_with_doc", "train_for_test_doc")


# What is raised: the built-in class itself, so that any process can unpickle it (see the
# module doc). A subclass defined here would live in verl's `custom_module`.
RewardError = RuntimeError

# verl's second call after an error (see the module doc): answers by request key, the most
# recent last, and the (key or None, message) of the last failed call while it may be retried.
_REMEMBERED = 4096
_AGAIN = (
    " [not sent again: the same request failed just before in this process; verl's "
    "compute_reward calls the reward function a second time after an error]"
)
_lock = threading.Lock()
_answers = {}
_failed = None
_local = threading.local()  # .noted: the current call's failure is already recorded
_MISS = object()


def _key(path, body):
    return hashlib.sha256(path.encode("utf-8") + b"\0" + body).hexdigest()


def _recall(key):
    """A remembered answer for `key` while a failure may be retried, else _MISS; raises at
    once when `key` is the request that failed. Any other request ends the retry."""
    global _failed
    with _lock:
        if _failed is None:
            return _MISS
        failed_key, message = _failed
        if key == failed_key:
            _failed = None
            _local.noted = True
            raise RuntimeError(message + _AGAIN)
        if key in _answers:
            return _answers[key]
        _failed = None
        return _MISS


def _remember(key, answer):
    with _lock:
        _answers.pop(key, None)
        _answers[key] = answer
        while len(_answers) > _REMEMBERED:
            del _answers[next(iter(_answers))]


def _note_failure(key, message):
    """Records the current call's failure: `key` is the request that failed, or None when
    the failure came after its answer or before any request. A failure of the latter kind
    with the message of the one recorded is the retry meeting it again: that ends the retry."""
    global _failed
    with _lock:
        if key is None and _failed is not None and _failed[1] == message:
            _failed = None
        else:
            _failed = (key, message)
    _local.noted = True


def _fail(key, message, cause=None):
    _note_failure(key, message)
    raise RuntimeError(message) from cause


def _settings():
    return (
        os.environ.get("SEBX_URL", "http://127.0.0.1:8111").rstrip("/"),
        os.environ.get("SEBX_TOKEN"),
        float(os.environ.get("SEBX_TIMEOUT", "60")),
        int(os.environ.get("SEBX_ATTEMPTS", "8")),
    )


def _return_form():
    form = os.environ.get("SEBX_RETURN", "dict").strip().lower() or "dict"
    if form not in _RETURN_FORMS:
        raise RuntimeError(f"SEBX_RETURN must be dict or float, found {form!r}")
    return form


def _plain(value):
    """JSON fallback for what verl's data may hold: NumPy arrays and scalars (parquet lists
    come back as arrays), other mappings and sequences."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "keys"):
        return dict(value)
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _retry_wait(err):
    try:
        return max(0.0, float(err.headers.get("Retry-After") or 1))
    except ValueError:  # an HTTP date instead of seconds
        return 1.0


def _post(path, payload):
    """POSTs `payload` as JSON to `path`; returns the decoded answer. Sent again only when
    the server did not take it or lost it (see the module doc), never after a timeout; not
    sent at all by verl's second call after a failure (see "verl's second call")."""
    base, token, timeout, attempts = _settings()
    attempts = max(1, attempts)
    try:
        body = json.dumps(payload, default=_plain).encode("utf-8")
    except (TypeError, ValueError) as err:
        raise RuntimeError(f"cannot send the rollout as JSON: {err}") from err
    key = _key(path, body)
    remembered = _recall(key)
    if remembered is not _MISS:
        return remembered
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    last = None
    started = time.monotonic()
    for attempt in range(attempts):
        request = urllib.request.Request(base + path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                text = answer.read()
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace")
            if err.code != 503:
                _fail(key, f"sebx answered {err.code}: {detail}", err)
            last = f"503: {detail}"
            wait = _retry_wait(err)
        except Exception as err:  # noqa: BLE001 - sorted below
            kind = _failure(err)
            if kind == "timeout":
                _fail(
                    key,
                    f"{base} did not answer within SEBX_TIMEOUT={timeout:g} s; not sent again, "
                    "since the server may still be grading it: raise SEBX_TIMEOUT above the "
                    "time a batch takes",
                    err,
                )
            if kind is None:
                _note_failure(key, str(err))
                raise
            last = f"{kind}: {err}"
            wait = min(0.1 * 2**attempt, 2.0)
        else:
            try:
                answer = json.loads(text)
            except ValueError as err:
                _fail(key, f"sebx answered something that is not JSON: {err}", err)
            _remember(key, answer)
            return answer
        if attempt + 1 < attempts:
            time.sleep(wait)
    _fail(
        key,
        f"no sebx server took the request at {base} ({attempts} attempts over "
        f"{time.monotonic() - started:.1f} s; last: {last}): start `sebx serve` or set SEBX_URL",
    )


def _failure(err):
    """What a failed attempt was: "timeout" (not to be sent again), "refused" (the server
    never took it), "lost" (the connection broke while the server had it), or None (not a
    connection failure)."""
    reason = getattr(err, "reason", err) if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return "timeout"
    if isinstance(reason, ConnectionRefusedError):
        return "refused"
    if isinstance(reason, (ConnectionError, http.client.HTTPException, OSError)):
        return "lost"
    if isinstance(err, urllib.error.URLError):
        return "refused"
    return None


def grade_reward(rollout):
    """POSTs one official rollout object to /grade?reward=1; returns the server's answer."""
    return _post("/grade?reward=1", rollout)


def grade_rewards(rollouts):
    """POSTs a list of rollout objects to /grade/batch?reward=1; returns the answers, in order."""
    rollouts = list(rollouts)
    if not rollouts:
        return []
    answers = _post("/grade/batch?reward=1", rollouts)
    if not isinstance(answers, list) or len(answers) != len(rollouts):
        got = len(answers) if isinstance(answers, list) else type(answers).__name__
        raise RuntimeError(f"sent {len(rollouts)} rollouts, sebx answered {got}")
    return answers


def _mapping(value, name):
    if value is None:
        return {}
    if hasattr(value, "keys"):
        return dict(value)
    raise RuntimeError(f"{name} should be a dict, found {type(value).__name__}")


def _truth_dict(ground_truth):
    """The dict form of ground_truth, or None when it is the expected result text."""
    if hasattr(ground_truth, "keys"):
        return dict(ground_truth)
    if isinstance(ground_truth, str):
        try:
            parsed = json.loads(ground_truth)
        except ValueError:
            return None
        if isinstance(parsed, dict) and "test_cases" in parsed:
            return parsed
    return None


def _test_cases(value):
    """A list of test cases; JSON text of a list is decoded, anything else is left for the
    server to reject with its own message."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, list) else value
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    return value


def make_rollout(solution_str, ground_truth, extra_info=None):
    """The rollout object sebx grades, from one sample in either shape (see the module doc)."""
    extra = _mapping(extra_info, "extra_info")
    if isinstance(ground_truth, bytes):
        ground_truth = ground_truth.decode("utf-8")
    truth = _truth_dict(ground_truth)
    if truth is not None:
        tests = truth.get("test_cases", extra.get("test_cases"))
        expected = truth.get("right_exe_result", extra.get("right_exe_result"))
        query = truth.get("query") or extra.get("query") or ""
    else:
        if ground_truth is not None and not isinstance(ground_truth, str):
            raise RuntimeError(
                "ground_truth should be the right_exe_result text or a dict with test_cases, "
                f"found {type(ground_truth).__name__}"
            )
        tests = extra.get("test_cases")
        expected = ground_truth if ground_truth is not None else extra.get("right_exe_result")
        query = extra.get("query") or ""
    if tests is None:
        raise RuntimeError(
            "no test_cases: ground_truth is not a dict with test_cases and extra_info has none "
            "(SE-Bench's RL data keeps them in extra_info['test_cases'])"
        )
    if expected is None:
        raise RuntimeError("no right_exe_result: neither ground_truth nor extra_info has one")
    if isinstance(solution_str, bytes):
        solution_str = solution_str.decode("utf-8", "replace")
    return {
        "query": query,
        "response": solution_str,
        "test_cases": _test_cases(tests),
        "right_exe_result": expected,
    }


def _result(answer, form, where):
    if not isinstance(answer, dict) or "score" not in answer:
        raise RuntimeError(f"unexpected answer for {where}: {answer!r}")
    if answer.get("error"):
        raise RuntimeError(f"sebx could not grade {where}: {answer['error']}")
    score = float(answer["score"])
    if form == "float":
        return score
    return {
        "score": score,
        "verdict": answer.get("verdict") or "",
        "reward_reason": answer.get("reward_reason") or "",
    }


def _sebench_sources():
    text = os.environ.get("SEBX_DATA_SOURCES", "").strip()
    if not text:
        return _SEBENCH_SOURCES
    if text == "*":
        return None
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _for_sebx(data_source, sources):
    return data_source is None or sources is None or str(data_source) in sources


def _verl_score(data_source, solution_str, ground_truth, extra_info, form):
    """verl's own default scorer for a sample that is not SE-Bench's, in `form`."""
    try:
        from verl.utils.reward_score import default_compute_score
    except ImportError as err:
        raise RuntimeError(
            f"data_source {data_source!r} is not SE-Bench's ({', '.join(_SEBENCH_SOURCES)}; "
            f"SEBX_DATA_SOURCES changes the list) and verl's default scorer cannot be imported: {err}"
        ) from err
    result = default_compute_score(data_source, solution_str, ground_truth, extra_info)
    if hasattr(result, "keys"):
        score = float(result["score"])
    else:
        score = float(result)
    if form == "float":
        return score
    return {"score": score, "verdict": "", "reward_reason": ""}


def _batch(data_sources, solution_strs, ground_truths, extra_infos, form):
    solutions = list(solution_strs)
    n = len(solutions)
    truths = [None] * n if ground_truths is None else list(ground_truths)
    extras = [None] * n if extra_infos is None else list(extra_infos)
    sources = [None] * n if data_sources is None else list(data_sources)
    for name, values in (("ground_truths", truths), ("extra_infos", extras), ("data_sources", sources)):
        if len(values) != n:
            raise RuntimeError(f"{n} solution_strs but {len(values)} {name}")
    ours = _sebench_sources()
    mine = [i for i in range(n) if _for_sebx(sources[i], ours)]
    rollouts = []
    for i in mine:
        try:
            rollouts.append(make_rollout(solutions[i], truths[i], extras[i]))
        except RuntimeError as err:
            raise RuntimeError(f"batch item {i}: {err}") from err
    answers = grade_rewards(rollouts)
    out = [None] * n
    for i, a in zip(mine, answers):
        out[i] = _result(a, form, f"batch item {i}")
    for i in range(n):
        if out[i] is None:
            out[i] = _verl_score(sources[i], solutions[i], truths[i], extras[i], form)
    return out


def compute_score(
    data_source=None,
    solution_str=None,
    ground_truth=None,
    extra_info=None,
    data_sources=None,
    solution_strs=None,
    ground_truths=None,
    extra_infos=None,
    **kwargs,
):
    """SE-Bench's RL reward of one response, or (called with the plural keywords, as verl's
    batch reward manager does) of a batch, as a list in order; samples of other data sources
    go to verl's default scorer. Extra keyword arguments are ignored. See the module doc
    for the data shapes, the return form, and what a call after a failure does."""
    _local.noted = False
    try:
        return _score(
            data_source, solution_str, ground_truth, extra_info,
            data_sources, solution_strs, ground_truths, extra_infos,
        )
    except Exception as err:
        if not _local.noted:
            _note_failure(None, str(err))
        raise


def _score(
    data_source, solution_str, ground_truth, extra_info,
    data_sources, solution_strs, ground_truths, extra_infos,
):
    form = _return_form()
    if solution_strs is not None:
        if solution_str is not None:
            raise RuntimeError("pass either solution_str (one sample) or solution_strs (a batch)")
        return _batch(data_sources, solution_strs, ground_truths, extra_infos, form)
    if solution_str is None:
        raise RuntimeError("no solution_str (one sample) or solution_strs (a batch) given")
    if not _for_sebx(data_source, _sebench_sources()):
        return _verl_score(data_source, solution_str, ground_truth, extra_info, form)
    rollout = make_rollout(solution_str, ground_truth, extra_info)
    return _result(grade_reward(rollout), form, "the rollout")
