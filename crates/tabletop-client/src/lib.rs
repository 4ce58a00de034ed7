//! A client of the tabletop server (`tabletop serve`), kept out of the server itself:
//!
//! - [`client`]: a minimal raw HTTP/1.1 and Server-Sent Events client, shared by the benchmarks
//!   and the server's test suites (this crate's `tests/`).
//! - [`mod@bench`]: the load benchmark and the abuse benchmark behind `tabletop bench serve`;
//!   `scenarios` holds the games they play.
//! - [`watchers`]: the watchers benchmark, what many watchers of one long game cost.
//! - [`command`]: the options of `tabletop bench serve` and its printed report.
//! - [`bot`]: `tabletop bot`, a bot account playing from its owner's machine.

#![warn(missing_docs)]

pub mod bench;
pub mod bot;
pub mod client;
pub mod command;
mod scenarios;
pub mod watchers;
