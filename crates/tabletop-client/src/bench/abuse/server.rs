//! The server under attack: `tabletop serve` as a child process (its own memory is then
//! measured) or a server in this process (the whole process is measured).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use super::{AbuseReport, AbuseSettings};
use crate::bench::BenchError;

/// The server under attack: a child process or one in this process.
pub(super) enum Target {
    /// `tabletop serve` run as a child process, and its log file.
    Child(std::process::Child, PathBuf),
    /// A server in this process.
    InProcess(tabletop_web::RunningServer),
}

impl Target {
    /// The process whose memory is measured: the child's id, or `self`.
    pub(super) fn pid(&self) -> String {
        match self {
            Target::Child(child, _) => child.id().to_string(),
            Target::InProcess(_) => "self".to_string(),
        }
    }

    /// Stops the server and reports whether it was still running and its log's errors.
    pub(super) async fn stop(self, report: &mut AbuseReport) {
        let pid = self.pid();
        match self {
            Target::Child(mut child, log) => {
                report.server = format!("child process {pid}");
                report.server_alive = matches!(child.try_wait(), Ok(None));
                let _ = child.kill();
                let _ = child.wait();
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                report.log_errors = text.lines().filter(|l| l.contains("ERROR")).count() as u64;
            }
            Target::InProcess(server) => {
                report.server = "in process (memory of the whole benchmark)".to_string();
                report.server_alive = true;
                server.shutdown().await;
            }
        }
    }
}

/// Starts the server `settings` ask for: a child process of [`AbuseSettings::server_exe`], or
/// one in this process with the defaults of `tabletop serve` (on a free port and
/// [`AbuseSettings::db`]).
pub(super) async fn start(settings: &AbuseSettings) -> Result<(Target, SocketAddr), BenchError> {
    match &settings.server_exe {
        Some(exe) => {
            let (child, addr, log) = start_child(exe, &settings.db)?;
            Ok((Target::Child(child, log), addr))
        }
        None => {
            // The defaults of `tabletop serve`, on a free port and a temporary database.
            let config = tabletop_web::ServeConfig {
                addr: SocketAddr::from(([127, 0, 0, 1], 0)),
                db: settings.db.clone(),
                ..tabletop_web::ServeConfig::default()
            };
            let server = tabletop_web::start(config).await.map_err(|e| BenchError::Protocol(e.to_string()))?;
            let addr = server.addr;
            Ok((Target::InProcess(server), addr))
        }
    }
}

/// Runs `exe serve` on a free loopback port and the database `db` (its log beside it): the
/// child, its address and the log's path.
fn start_child(exe: &Path, db: &Path) -> Result<(std::process::Child, SocketAddr, PathBuf), BenchError> {
    use std::io::BufRead;
    let log = db.with_extension("log");
    let log_file = std::fs::File::create(&log)?;
    let mut child = std::process::Command::new(exe)
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .stderr(log_file)
        .spawn()?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        std::io::BufReader::new(stdout).read_line(&mut line)?;
    }
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| BenchError::Protocol(format!("the server did not start: {line:?}")));
    match addr {
        Ok(addr) => Ok((child, addr, log)),
        Err(err) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(err)
        }
    }
}
