//! The worker's side of the wire: a JSON ready line first ([`WireReady`]: versions, pid,
//! protections), then per program a JSON result header ([`WireResult`]) followed by the raw
//! stdout and stderr bytes; read by a thread per worker into [`Message`]s.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;

use serde::Deserialize;

use super::report::Protection;

#[derive(Debug, Deserialize)]
pub(super) struct WireReady {
    pub(super) ready: bool,
    #[serde(default)]
    pub(super) error: Option<String>,
    #[serde(default)]
    pub(super) python: Option<String>,
    #[serde(default)]
    pub(super) numpy: Option<String>,
    /// The process that runs programs (the spawned process itself, or the child it
    /// moved into a pid namespace of its own).
    #[serde(default)]
    pub(super) pid: Option<u32>,
    #[serde(default)]
    pub(super) protections: Vec<Protection>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireResult {
    pub(super) timed_out: bool,
    pub(super) elapsed: f64,
    pub(super) exit_code: Option<i32>,
    pub(super) signal: Option<i32>,
    pub(super) contained: Vec<String>,
    pub(super) stdout_omitted: u64,
    pub(super) stderr_omitted: u64,
    #[serde(default)]
    pub(super) zwc_calls: Option<u64>,
    #[serde(default)]
    pub(super) profile: Option<Vec<f64>>,
    stdout_len: usize,
    stderr_len: usize,
}

pub(super) enum Message {
    Ready(WireReady),
    Result(WireResult, Vec<u8>, Vec<u8>),
    Broken(String),
}

pub(super) fn read_worker_messages(
    stdout: std::process::ChildStdout,
    sender: mpsc::Sender<Message>,
) {
    let mut reader = BufReader::new(stdout);
    let mut first = true;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(err) => {
                let _ = sender.send(Message::Broken(format!("cannot read from worker: {err}")));
                return;
            }
        }
        let message = if first {
            first = false;
            match serde_json::from_str::<WireReady>(&line) {
                Ok(ready) => Message::Ready(ready),
                Err(err) => Message::Broken(format!("bad ready line from worker: {err}")),
            }
        } else {
            match serde_json::from_str::<WireResult>(&line) {
                Ok(result) => {
                    let mut stdout = vec![0; result.stdout_len];
                    let mut stderr = vec![0; result.stderr_len];
                    if let Err(err) = reader
                        .read_exact(&mut stdout)
                        .and_then(|()| reader.read_exact(&mut stderr))
                    {
                        let _ = sender.send(Message::Broken(format!("truncated result: {err}")));
                        return;
                    }
                    Message::Result(result, stdout, stderr)
                }
                Err(err) => Message::Broken(format!("bad result line from worker: {err}")),
            }
        };
        let broken = matches!(message, Message::Broken(_));
        if sender.send(message).is_err() || broken {
            return;
        }
    }
}
