//! Shared helpers for the tests that start `sebx serve`: a server on a free loopback
//! port (it binds port 0 and prints the address it got) and a minimal HTTP/1.1 client.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The isolation helper, for the tests that include this file (one copy per test crate).
pub(crate) use crate::isolated;

pub fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

/// The demo's rollouts (`samples/demo/rollouts.jsonl`), one JSON value per line.
pub fn demo_rollouts() -> Vec<serde_json::Value> {
    std::fs::read_to_string(demo("rollouts.jsonl"))
        .expect("demo")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// A running `sebx serve`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// Every stderr line so far (the request log and lifecycle messages).
    pub log: Arc<Mutex<Vec<String>>>,
    /// The folder of the token file ([`Server::start_with_token`]), kept while the server runs.
    token_dir: Option<tempfile::TempDir>,
}

impl Server {
    /// Starts `sebx serve --bind 127.0.0.1:0 --api-doc <demo> EXTRA...` and waits for it to listen.
    pub fn start(extra: &[&str]) -> Server {
        Server::start_with_api(&demo("api_doc.jsonl"), extra)
    }

    /// [`Server::start`] with `--token-file` naming a file that holds exactly `token_file`
    /// (a trailing newline included, if given).
    pub fn start_with_token(token_file: &str, extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("token");
        std::fs::write(&path, token_file).expect("write token");
        let mut args = extra.to_vec();
        args.extend(["--token-file", path.to_str().expect("path")]);
        let mut server = Server::start(&args);
        server.token_dir = Some(dir);
        server
    }

    /// [`Server::start`] with another API doc.
    pub fn start_with_api(api_doc: &std::path::Path, extra: &[&str]) -> Server {
        // Its own score cache and data folders, no `$SEBX_API_DOC` (see isolated.rs).
        let mut child = isolated::isolate(&mut Command::new(env!("CARGO_BIN_EXE_sebx")))
            .arg("serve")
            .args(["--bind", "127.0.0.1:0", "--api-doc"])
            .arg(api_doc)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sebx serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.strip_prefix("sebx serve: listening on http://") {
                    let addr = rest.split_whitespace().next().unwrap_or("").to_string();
                    let _ = tx.send(addr);
                }
                sink.lock().expect("log").push(line);
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(a) => a.parse().expect("address"),
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "sebx serve did not start; log:\n{}",
                    log.lock().expect("log").join("\n")
                );
            }
        };
        Server {
            child,
            addr,
            log,
            token_dir: None,
        }
    }

    pub fn post(&self, path: &str, body: &[u8]) -> Reply {
        request(self.addr, "POST", path, &[], body).expect("request")
    }

    /// [`Server::post`] with `Authorization: Bearer <token>`.
    pub fn post_bearer(&self, path: &str, token: &str, body: &[u8]) -> Reply {
        let auth = format!("Bearer {token}");
        request(self.addr, "POST", path, &[("Authorization", &auth)], body).expect("request")
    }

    pub fn get(&self, path: &str) -> Reply {
        request(self.addr, "GET", path, &[], b"").expect("request")
    }

    pub fn post_json(&self, path: &str, body: &serde_json::Value) -> Reply {
        self.post(path, body.to_string().as_bytes())
    }

    /// The value of a metric line that starts with `prefix` (name and labels), or 0.
    pub fn metric(&self, prefix: &str) -> f64 {
        metric_value(&self.get("/metrics").text(), prefix)
    }

    /// Polls `/metrics` until `ok` holds for `prefix`'s value; panics after 20 s.
    pub fn wait_metric(&self, prefix: &str, ok: impl Fn(f64) -> bool) {
        let start = Instant::now();
        loop {
            let v = self.metric(prefix);
            if ok(v) {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "metric {prefix} stuck at {v}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log_text(&self) -> String {
        self.log.lock().expect("log").join("\n")
    }

    /// The log once `done` holds of it, or after 10 s: the server's stderr is read by a
    /// thread of this process, so the line of a request just answered may still be on its way.
    pub fn log_when(&self, done: impl Fn(&str) -> bool) -> String {
        let start = std::time::Instant::now();
        loop {
            let text = self.log_text();
            if done(&text) || start.elapsed() > std::time::Duration::from_secs(10) {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn metric_value(text: &str, prefix: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            (name == prefix).then(|| value.parse().ok())?
        })
        .unwrap_or(0.0)
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8 body")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads the answer.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_reply(&raw).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("bad reply: {:?}", String::from_utf8_lossy(&raw)),
        )
    })
}

fn parse_reply(raw: &[u8]) -> Option<Reply> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let nl = rest.windows(2).position(|w| w == b"\r\n")?;
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..nl]).ok()?.trim(), 16).ok()?;
            if size == 0 {
                break;
            }
            out.extend_from_slice(rest.get(nl + 2..nl + 2 + size)?);
            rest = rest.get(nl + 4 + size..)?;
        }
        body = out;
    }
    Some(Reply {
        status,
        headers,
        body,
    })
}
