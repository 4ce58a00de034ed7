//! How a game offers commands to the `tabletop` binary: a list of [`Tool`]s, each a verb
//! (`play`, `match`, `solve`, ...), the game's options for it (a clap [`Args`] type) and the
//! function that runs it. The binary builds `tabletop VERB GAME [OPTIONS]` from the
//! [registry](crate::registry) and names no game itself.

use clap::{ArgMatches, Args, FromArgMatches};

use super::{ToolError, ToolResult};

/// The commands the binary offers per game, in the order `tabletop --help` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    /// Play in the terminal.
    Play,
    /// Computer-vs-computer matches.
    Match,
    /// Count move paths.
    Perft,
    /// Exact values of positions.
    Solve,
    /// Speed benchmarks.
    Bench,
    /// Build an opening book.
    Book,
    /// The legal moves of a position.
    Moves,
    /// The value of every legal move.
    Analyze,
    /// Every move of a saved game against the best move.
    Review,
    /// Fit evaluation weights.
    Tune,
    /// Many players, ratings, SPRT.
    Tournament,
    /// Balanced start positions for tournaments.
    Openings,
}

impl Verb {
    /// Every verb, in help order.
    pub const ALL: [Verb; 12] = [
        Verb::Play,
        Verb::Match,
        Verb::Perft,
        Verb::Solve,
        Verb::Bench,
        Verb::Book,
        Verb::Moves,
        Verb::Analyze,
        Verb::Review,
        Verb::Tune,
        Verb::Tournament,
        Verb::Openings,
    ];

    /// The word on the command line.
    ///
    /// ```
    /// assert_eq!(tabletop::tools::Verb::Analyze.word(), "analyze");
    /// ```
    pub fn word(self) -> &'static str {
        match self {
            Verb::Play => "play",
            Verb::Match => "match",
            Verb::Perft => "perft",
            Verb::Solve => "solve",
            Verb::Bench => "bench",
            Verb::Book => "book",
            Verb::Moves => "moves",
            Verb::Analyze => "analyze",
            Verb::Review => "review",
            Verb::Tune => "tune",
            Verb::Tournament => "tournament",
            Verb::Openings => "openings",
        }
    }

    /// What the verb does, for `tabletop --help`.
    pub fn about(self) -> &'static str {
        match self {
            Verb::Play => "Play a game in the terminal (people and computer players)",
            Verb::Match => "Computer-vs-computer match with a win/draw/loss summary",
            Verb::Perft => "Count move paths to a depth (checks move generation)",
            Verb::Solve => "Exact game-theoretic values of positions",
            Verb::Bench => "Speed benchmarks",
            Verb::Book => "Build an opening book with the solver",
            Verb::Moves => "The legal moves of a position, in the game's notation",
            Verb::Analyze => "The value of every legal move of a position (exact where a solver answers in time)",
            Verb::Review => "Review a saved game: every move's loss against the best move, with inaccuracies, mistakes and blunders marked",
            Verb::Tune => "Fit evaluation weights to self-play positions labelled by exact solves",
            Verb::Tournament => "Tournament of many players: round-robin or gauntlet, Elo with error bars, SPRT, concurrency, resume",
            Verb::Openings => "Balanced start positions for tournaments (one a line, for --openings)",
        }
    }
}

/// Where a tool sits in the command tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// `tabletop VERB GAME`.
    Verb(Verb),
    /// A command of its own, `tabletop NAME` (Reversi's `nboard`).
    TopLevel(&'static str),
}

/// One command a game offers: its place, its options and what runs it.
pub struct Tool {
    /// `tabletop VERB GAME` or a top-level command.
    pub place: Place,
    /// One line for `--help`.
    pub about: &'static str,
    /// Adds the options to a command (a clap [`Args`] type's `augment_args`).
    pub args: fn(clap::Command) -> clap::Command,
    /// Reads the options back and runs the command.
    pub run: Box<dyn Fn(&ArgMatches) -> ToolResult + Send + Sync>,
}

impl Tool {
    /// `tabletop VERB GAME` with the options `A`, run by `run`.
    pub fn new<A: Args + FromArgMatches + 'static>(verb: Verb, about: &'static str, run: fn(A) -> ToolResult) -> Tool {
        Tool::at(Place::Verb(verb), about, run)
    }

    /// A tool at any place.
    pub fn at<A: Args + FromArgMatches + 'static>(place: Place, about: &'static str, run: fn(A) -> ToolResult) -> Tool {
        Tool {
            place,
            about,
            args: A::augment_args,
            run: Box::new(move |matches| {
                let args = A::from_arg_matches(matches).map_err(|e| ToolError::Invalid(e.to_string()))?;
                run(args)
            }),
        }
    }

    /// The clap command for this tool, named `name` (the game's name, or the top-level word).
    pub fn command(&self, name: &'static str) -> clap::Command {
        // After augment_args, which sets the about of the options struct's doc comment.
        (self.args)(clap::Command::new(name)).about(self.about).long_about(None)
    }
}

/// A short game at the terminal against a computer player, as a person would start it: what the
/// generic terminal suites (and the help's examples) play for every game.
#[derive(Clone, Copy, Debug)]
pub struct PlayExample {
    /// The options after `tabletop play GAME` (a quick computer opponent, no colours).
    pub args: &'static [&'static str],
    /// A legal first move, typed as a person types it.
    pub first_move: &'static str,
}

/// What a game offers the `tabletop` command; each game implements it in its folder.
pub trait GameCommands: Sync {
    /// The game's commands. Verbs it lacks are answered by the binary with a clear message.
    fn tools(&self) -> Vec<Tool>;
    /// Ways to start a short game against the computer (at least one; the first is the plain
    /// game, others may be the game's special modes such as an origin document's program).
    fn play_examples(&self) -> Vec<PlayExample>;
}
