//! The `tabletop` command tried as a person would, one module per topic, in one test binary (the
//! server-process tests stay in binaries of their own: they must not share a process with
//! CPU-heavy tests).

mod clocks;
mod closed_pipe;
mod common;
mod connect_play;
mod external_players;
mod mathable_play;
mod mathable_tournament;
mod nboard;
mod positions;
mod random_input;
mod reversi_levels;
mod reversi_play;
mod reversi_time;
#[cfg(feature = "tune")]
mod reversi_tune;
mod review;
mod shared_loop;
mod sharp_edges;
mod slide_cli;
mod tournament;
mod vocabulary;
