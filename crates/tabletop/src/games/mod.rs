//! The games, one module tree each: rules, notation, evaluation and computer players.

pub mod connect;
pub mod mathable;
pub mod reversi;
pub mod slide;
