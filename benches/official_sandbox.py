"""A stand-in for SE-Bench's official sandbox service, built the same way: every
`POST /run` with {"code": ...} writes main.py into a fresh directory and runs a fresh
`python main.py` there with a 3 s timeout; the answer is {"stdout", "stderr"}, or
stdout "" and stderr "TLE" past the timeout. Standard library only.

Captured bytes are decoded as UTF-8 with errors="replace" (what sebx serve does too;
see src/serve/mod.rs for why).

    python3 official_sandbox.py serve --python PY [--port N]   # HTTP on 127.0.0.1
    python3 official_sandbox.py once --python PY < main.py      # one run, JSON on stdout

The zwc package is found through PYTHONPATH, as in the official container.
Used by tests/serve_api.rs (as the reference for /run) and benches/serve_throughput.rs
(as the baseline).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TIMEOUT = 3.0


def run_code(python, code):
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "main.py"), "w", encoding="utf-8") as f:
            f.write(code)
        try:
            done = subprocess.run(
                [python, "main.py"],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return {"stdout": "", "stderr": "TLE"}
        return {
            "stdout": done.stdout.decode("utf-8", "replace"),
            "stderr": done.stderr.decode("utf-8", "replace"),
        }


def serve(python, port):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            try:
                code = json.loads(body)["code"]
                status, answer = 200, run_code(python, code)
            except Exception as err:  # the official app answers 500 here
                status, answer = 500, {"error": str(err)}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["serve", "once"])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.mode == "once":
        code = sys.stdin.buffer.read().decode("utf-8")
        sys.stdout.write(json.dumps(run_code(args.python, code)))
    else:
        serve(args.python, args.port)


if __name__ == "__main__":
    main()
