//! The games, one module tree each: rules, notation, evaluation, computer players, analysis,
//! and (feature `cli`) the terminal presenter and command-line tools. [`GAMES`] lists them for
//! the [registry](crate::registry).

/// Declares each game's module and lists its `ENTRY` in [`GAMES`]: one line per game.
macro_rules! registry {
    ($($game:ident),* $(,)?) => {
        $(pub mod $game;)*
        /// Every game, in the order menus list them.
        pub static GAMES: &[&crate::registry::GameEntry] = &[$(&$game::ENTRY),*];
    };
}

registry! {
    slide,
    reversi,
    connect,
    mathable,
    gomoku,
    mnk,
}
