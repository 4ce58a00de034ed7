//! The `tabletop` command: a thin front end that translates between people and the library.
//!
//! The command tree is built from the game registry (`tabletop::registry`): every game offers its
//! own `play`, `match`, `solve`, ... commands and options from its folder, and this file names no
//! game. What is not a game's (`serve`, `bench serve`, `bot`) is added here.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use tabletop::registry::{self, GameEntry};
use tabletop::tools::commands::Place;
use tabletop::tools::{Tool, Verb};

/// The command tree: `tabletop VERB GAME [OPTIONS]` for every game's tools, the top-level tools
/// games add, and the server's commands.
fn command_tree(tools: &[(&'static GameEntry, Tool)]) -> Command {
    let mut root = Command::new("tabletop")
        .version(env!("CARGO_PKG_VERSION"))
        .about("tabletop: classic board games in the terminal, with strong computer players.")
        .subcommand_required(true)
        .arg_required_else_help(true);
    for verb in Verb::ALL {
        let mut sub =
            Command::new(verb.word()).about(verb.about()).subcommand_required(true).arg_required_else_help(true);
        for game in registry::GAMES {
            match tools.iter().find(|(g, t)| g.name == game.name && t.place == Place::Verb(verb)) {
                Some((_, tool)) => sub = sub.subcommand(tool.command(game.name)),
                // Answered with a sentence instead of clap's "unrecognized subcommand".
                None => sub = sub.subcommand(missing(game.name)),
            }
        }
        // A verb no game offers in this build (`tune` without the feature) is not listed.
        if !tools.iter().any(|(_, t)| t.place == Place::Verb(verb)) {
            sub = sub.hide(true);
        }
        if verb == Verb::Bench {
            sub = sub.subcommand(
                tabletop_client::command::ServeBenchArgs::augment_args(Command::new("serve"))
                    .about("Load benchmark of `tabletop serve`: many games at once over loopback")
                    .long_about(None),
            );
        }
        root = root.subcommand(sub);
    }
    root = root.subcommand(
        tabletop_web::command::ServeArgs::augment_args(Command::new("serve"))
            .about("Serve the web page and JSON API (games kept in SQLite or PostgreSQL)")
            .long_about(None),
    );
    root = root.subcommand(
        tabletop_client::bot::BotArgs::augment_args(Command::new("bot"))
            .about("Play as a bot account on a tabletop server: challenges (and seeks) with any player")
            .long_about(None),
    );
    for (_, tool) in tools {
        if let Place::TopLevel(word) = tool.place {
            root = root.subcommand(tool.command(word));
        }
    }
    root
}

/// A hidden command for a game that lacks a verb: it takes anything and says so.
fn missing(game: &'static str) -> Command {
    Command::new(game)
        .hide(true)
        .disable_help_flag(true)
        .arg(Arg::new("rest").num_args(0..).allow_hyphen_values(true).trailing_var_arg(true))
}

fn main() {
    let tools: Vec<(&'static GameEntry, Tool)> =
        registry::GAMES.iter().flat_map(|g| g.commands.tools().into_iter().map(move |t| (*g, t))).collect();
    let matches = command_tree(&tools).get_matches();
    // A player that runs another program (`nboard:cmd=...`) must see its closed pipe as an
    // error it handles, not as the end of tabletop; so must the server.
    let runs_programs = std::env::args().any(|a| a.contains("cmd="));
    if matches.subcommand_name() != Some("serve") && !runs_programs {
        end_quietly_on_closed_pipe();
    }
    if let Err(err) = run(&tools, &matches) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

fn run(tools: &[(&'static GameEntry, Tool)], matches: &ArgMatches) -> anyhow::Result<()> {
    let Some((word, sub)) = matches.subcommand() else { anyhow::bail!("no command given; see tabletop --help") };
    if word == "serve" {
        return Ok(tabletop_web::command::serve(tabletop_web::command::ServeArgs::from_arg_matches(sub)?)?);
    }
    if word == "bot" {
        return Ok(tabletop_client::bot::run(tabletop_client::bot::BotArgs::from_arg_matches(sub)?)?);
    }
    if let Some(verb) = Verb::ALL.into_iter().find(|v| v.word() == word) {
        let Some((name, args)) = sub.subcommand() else { anyhow::bail!("tabletop {word}: name a game") };
        if verb == Verb::Bench && name == "serve" {
            return Ok(tabletop_client::command::bench(tabletop_client::command::ServeBenchArgs::from_arg_matches(
                args,
            )?)?);
        }
        return match tools.iter().find(|(g, t)| g.name == name && t.place == Place::Verb(verb)) {
            Some((_, tool)) => Ok((tool.run)(args)?),
            None => {
                let offered: Vec<&str> = tools
                    .iter()
                    .filter(|(g, _)| g.name == name)
                    .filter_map(|(_, t)| match t.place {
                        Place::Verb(v) => Some(v.word()),
                        Place::TopLevel(_) => None,
                    })
                    .collect();
                let with: Vec<&str> =
                    tools.iter().filter(|(_, t)| t.place == Place::Verb(verb)).map(|(g, _)| g.name).collect();
                let others = if with.is_empty() {
                    "no game offers it in this build".to_string()
                } else {
                    format!("{word} is offered for: {}", with.join(", "))
                };
                anyhow::bail!("{name} has no {word} command (its commands: {}); {others}", offered.join(", "))
            }
        };
    }
    match tools.iter().find(|(_, t)| matches!(t.place, Place::TopLevel(w) if w == word)) {
        Some((_, tool)) => Ok((tool.run)(sub)?),
        None => anyhow::bail!("unknown command {word}; see tabletop --help"),
    }
}

/// Restores the default action of SIGPIPE, which Rust programs ignore: otherwise
/// `tabletop ... | head` makes the next `println!` panic on the closed pipe, where Unix tools
/// end quietly. Not for the server, whose closed connections must not end it.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_pipe() {}
