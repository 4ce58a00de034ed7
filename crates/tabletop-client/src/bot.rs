//! `tabletop bot`: a bot account plays on a `tabletop serve` server from its owner's machine
//! (docs/BOTS.md). The server never runs a bot's code: this client does, with any player the
//! terminal takes (`engine:level=5`, `external:cmd="python3 bot.py"`, Reversi's
//! `nboard:cmd="..."`), built by the library's [`tabletop::session::Session::local_player`].
//!
//! - The API token is read from a file (never from the command line, where `ps` shows it) and
//!   sent as `Authorization: Bearer` when joining and listing challenges; in a game the bot
//!   holds a seat's token like any person.
//! - Every half second it lists its challenges (`GET /api/bot/challenges`) and, with
//!   `--seeks`, the lobby's open games; it joins those its filters accept, up to `--games` at
//!   once, each played by a task of its own (the player thinks on a blocking thread).
//! - A game: the seat's event stream (a fresh ticket per connection); when the seat is to move,
//!   the player gets the moves so far and the clock's time left, and its move is posted with
//!   the ply it was chosen at. A player that cannot move (a program that crashed, hung or
//!   answered nonsense) plays no more in that game: the server's clock ends it, on time.
//! - Ctrl-C resigns the games under way, then exits.
//! - `http://` only: behind TLS, run the bot on the server's side of the proxy or through a
//!   tunnel (docs/BOTS.md says why: no TLS client is built into `tabletop`).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use tabletop::clock::TimeControl;
use tabletop::players::TimeLeft;
use tabletop::session::{SeatPlayer, Session};
use tabletop::PlayerSpec;

use crate::client::{exchange, Answer, EventStream};

/// Options of `tabletop bot`.
#[derive(clap::Args, Debug)]
pub struct BotArgs {
    /// The server, as http://HOST:PORT.
    #[arg(long)]
    pub server: String,
    /// A file holding the bot account's API token (from `POST /api/account/token`).
    #[arg(long)]
    pub token_file: PathBuf,
    /// The player, any spec the terminal takes: engine:level=5, external:cmd="python3 bot.py", ...
    #[arg(long)]
    pub player: String,
    /// Games played at once at most.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub games: u64,
    /// Which games to accept: rated, casual or any.
    #[arg(long, default_value = "any", value_parser = ["rated", "casual", "any"])]
    pub accept: String,
    /// Accept only these games (repeat the option; default: every game the player can play).
    #[arg(long = "game")]
    pub only: Vec<String>,
    /// Also take the lobby's open games (seeks) the filters accept, not only challenges.
    #[arg(long)]
    pub seeks: bool,
    /// Stop after this many games have ended (default: run until Ctrl-C).
    #[arg(long)]
    pub stop_after: Option<u64>,
}

/// Why `tabletop bot` stopped.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// A bad option (the server's URL, the player, a game).
    #[error("{0}")]
    Usage(String),
    /// The token file could not be read.
    #[error("cannot read the token file {path}: {reason}")]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The server could not be reached or answered something unexpected.
    #[error("{0}")]
    Server(String),
}

/// How the bot reaches the server.
#[derive(Clone)]
struct Server {
    addr: SocketAddr,
    host: String,
    token: String,
}

/// How long one request may take.
const REQUEST_LIMIT: Duration = Duration::from_secs(30);

/// How often challenges (and seeks) are listed.
const POLL: Duration = Duration::from_millis(500);

impl Server {
    /// One request (a JSON body, or none), with the API token when `api` is set.
    async fn call(&self, method: &str, path: &str, body: Option<&Value>, api: bool) -> Result<Answer, BotError> {
        let body = body.map_or_else(String::new, Value::to_string);
        let authorization = if api { format!("Authorization: Bearer {}\r\n", self.token) } else { String::new() };
        let bytes = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{authorization}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        );
        exchange(self.addr, None, bytes.as_bytes(), REQUEST_LIMIT)
            .await
            .map_err(|e| BotError::Server(format!("{method} {path}: {e}")))
    }
}

/// The server's reason in an answer, for messages.
fn reason(answer: &Answer) -> String {
    let text = answer.body["error"].as_str().map_or_else(|| answer.text.clone(), str::to_string);
    format!("{} {}", answer.status, text.chars().take(200).collect::<String>())
}

/// Reads `http://HOST[:PORT][/]` into an address and the Host header.
async fn parse_server(url: &str) -> Result<(SocketAddr, String), BotError> {
    if url.starts_with("https://") {
        return Err(BotError::Usage(
            "https:// is not supported: tabletop has no TLS client; run the bot against the server's http:// address \
             (on its machine, or through an SSH tunnel) — see docs/BOTS.md"
                .into(),
        ));
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| BotError::Usage(format!("--server {url:?}: give the server's address as http://HOST:PORT")))?;
    let host = rest.split('/').next().unwrap_or("").to_string();
    if host.is_empty() {
        return Err(BotError::Usage(format!("--server {url:?}: no host")));
    }
    let with_port = if host.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) && !host.ends_with(']') {
        host.clone()
    } else {
        format!("{host}:80")
    };
    let addr = tokio::net::lookup_host(with_port.as_str())
        .await
        .map_err(|e| BotError::Usage(format!("--server {url:?}: {e}")))?
        .next()
        .ok_or_else(|| BotError::Usage(format!("--server {url:?}: the name has no address")))?;
    Ok((addr, host))
}

/// The games the player can play (a local player of each can be built), among `only` when
/// given: an error when one named cannot be, or none can.
fn playable_games(spec: &PlayerSpec, only: &[String]) -> Result<Vec<String>, BotError> {
    let names: Vec<String> = if only.is_empty() {
        tabletop::registry::GAMES.iter().map(|g| g.name.to_string()).collect()
    } else {
        only.to_vec()
    };
    let mut playable = Vec::new();
    let mut refused = Vec::new();
    for name in names {
        let Some(entry) = tabletop::registry::find(&name) else {
            return Err(BotError::Usage(format!(
                "--game {name}: no such game; games: {}",
                tabletop::registry::names()
            )));
        };
        let made = entry
            .session
            .new_session(&json!({}), &json!({}))
            .map_err(|e| e.to_string())
            .and_then(|session| session.local_player(spec, 0).map(drop).map_err(|e| e.to_string()));
        match made {
            Ok(()) => playable.push(entry.name.to_string()),
            Err(e) if only.is_empty() => refused.push(format!("{}: {e}", entry.name)),
            Err(e) => return Err(BotError::Usage(format!("--player {spec} cannot play {}: {e}", entry.name))),
        }
    }
    if playable.is_empty() {
        return Err(BotError::Usage(format!("--player {spec} can play no game: {}", refused.join("; "))));
    }
    Ok(playable)
}

/// Runs `tabletop bot` until Ctrl-C (or `--stop-after` games).
pub fn run(args: BotArgs) -> Result<(), BotError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| BotError::Server(format!("cannot start: {e}")))?;
    runtime.block_on(run_async(args))
}

/// A game offered to the bot: a challenge or a seek.
struct Offer {
    id: String,
    game: String,
    options: Value,
    rated: bool,
    clock: String,
    from: String,
}

impl Offer {
    fn from_json(entry: &Value, from: String) -> Option<Offer> {
        Some(Offer {
            id: entry["id"].as_str()?.to_string(),
            game: entry["game"].as_str()?.to_string(),
            options: entry["options"].clone(),
            rated: entry["rated"].as_bool().unwrap_or(false),
            clock: entry["clock"].as_str().unwrap_or("none").to_string(),
            from,
        })
    }
}

async fn run_async(args: BotArgs) -> Result<(), BotError> {
    let (addr, host) = parse_server(&args.server).await?;
    let token = std::fs::read_to_string(&args.token_file)
        .map_err(|e| BotError::TokenFile { path: args.token_file.clone(), reason: e.to_string() })?
        .trim()
        .to_string();
    if token.is_empty() {
        return Err(BotError::TokenFile { path: args.token_file.clone(), reason: "it is empty".into() });
    }
    let spec: PlayerSpec = args.player.parse().map_err(|e| BotError::Usage(format!("--player: {e}")))?;
    let playable = playable_games(&spec, &args.only)?;
    let server = Server { addr, host, token };
    let me = server.call("GET", "/api/account", None, true).await?;
    if me.status != 200 || me.body["bot"] != true {
        return Err(BotError::Server(format!("the server refused the API token: {}", reason(&me))));
    }
    let name = me.body["name"].as_str().unwrap_or("?").to_string();
    eprintln!(
        "bot {name}: on {} with {spec}, up to {} game(s) at once, games: {}",
        args.server,
        args.games,
        playable.join(", ")
    );
    let mut playing: HashMap<String, String> = HashMap::new(); // game id -> seat token
    let mut passed: HashSet<String> = HashSet::new();
    let mut tasks = tokio::task::JoinSet::new();
    let mut ended = 0u64;
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {
                eprintln!("bot {name}: stopping; resigning {} game(s) under way", playing.len());
                for (id, seat_token) in &playing {
                    let body = json!({"token": seat_token});
                    let _ = server.call("POST", &format!("/api/games/{id}/resign"), Some(&body), false).await;
                }
                return Ok(());
            }
            Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                let (id, outcome): (String, Result<String, BotError>) = match done {
                    Ok(result) => result,
                    Err(e) => return Err(BotError::Server(format!("a game's task failed: {e}"))),
                };
                playing.remove(&id);
                ended += 1;
                match outcome {
                    Ok(result) => eprintln!("game {id}: {result}"),
                    Err(e) => eprintln!("game {id}: stopped: {e}"),
                }
                if args.stop_after.is_some_and(|n| ended >= n) {
                    return Ok(());
                }
            }
            _ = poll.tick() => {
                let mut offers = Vec::new();
                let answer = server.call("GET", "/api/bot/challenges", None, true).await;
                match answer {
                    Ok(a) if a.status == 200 => {
                        for entry in a.body["challenges"].as_array().into_iter().flatten() {
                            let from = entry["from"].as_str().map_or_else(|| "someone".to_string(), |f| f.to_string());
                            offers.extend(Offer::from_json(entry, format!("challenge from {from}")));
                        }
                    }
                    Ok(a) if a.status == 401 => {
                        return Err(BotError::Server(format!("the server refused the API token: {}", reason(&a))));
                    }
                    Ok(a) => eprintln!("bot {name}: listing challenges: {}", reason(&a)),
                    Err(e) => eprintln!("bot {name}: listing challenges: {e}"),
                }
                if args.seeks {
                    if let Ok(a) = server.call("GET", "/api/lobby", None, false).await {
                        for entry in a.body["games"].as_array().into_iter().flatten() {
                            offers.extend(Offer::from_json(entry, "seek".to_string()));
                        }
                    }
                }
                for offer in offers {
                    if playing.contains_key(&offer.id) || passed.contains(&offer.id) {
                        continue;
                    }
                    let refusal = if !playable.contains(&offer.game) {
                        Some(format!("the player does not play {}", offer.game))
                    } else if args.accept == "rated" && !offer.rated {
                        Some("casual, and --accept rated".to_string())
                    } else if args.accept == "casual" && offer.rated {
                        Some("rated, and --accept casual".to_string())
                    } else {
                        None
                    };
                    if let Some(why) = refusal {
                        passed.insert(offer.id.clone());
                        eprintln!("game {}: not taken ({}, {}): {why}", offer.id, offer.game, offer.from);
                        continue;
                    }
                    // At most --games at once: an offer it would take waits for a free slot.
                    if playing.len() as u64 >= args.games {
                        continue;
                    }
                    passed.insert(offer.id.clone());
                    let joined = server.call("POST", &format!("/api/games/{}/join", offer.id), Some(&json!({})), true).await;
                    let joined = match joined {
                        Ok(a) if a.status == 200 => a,
                        Ok(a) => {
                            eprintln!("game {}: could not join: {}", offer.id, reason(&a));
                            continue;
                        }
                        Err(e) => {
                            eprintln!("game {}: could not join: {e}", offer.id);
                            continue;
                        }
                    };
                    let (Some(seat), Some(seat_token)) =
                        (joined.body["seat"].as_u64(), joined.body["token"].as_str())
                    else {
                        eprintln!("game {}: the join's answer has no seat", offer.id);
                        continue;
                    };
                    let seat = usize::try_from(seat).unwrap_or(usize::MAX);
                    let built = tabletop::registry::find(&offer.game)
                        .ok_or_else(|| format!("no game {}", offer.game))
                        .and_then(|entry| entry.session.new_session(&offer.options, &json!({})).map_err(|e| e.to_string()))
                        .and_then(|session| {
                            let player = session.local_player(&spec, rand::random()).map_err(|e| e.to_string())?;
                            Ok((session, player))
                        });
                    let (session, player) = match built {
                        Ok(pair) => pair,
                        Err(e) => {
                            eprintln!("game {}: cannot play it here ({e}): resigning", offer.id);
                            let body = json!({"token": seat_token});
                            let _ = server.call("POST", &format!("/api/games/{}/resign", offer.id), Some(&body), false).await;
                            continue;
                        }
                    };
                    eprintln!(
                        "game {}: joined ({} {}, clock {}, {}{}) as seat {seat} with {}",
                        offer.id,
                        offer.game,
                        offer.options,
                        offer.clock,
                        offer.from,
                        if offer.rated { ", rated" } else { "" },
                        player.describe()
                    );
                    playing.insert(offer.id.clone(), seat_token.to_string());
                    let game = Game { server: server.clone(), id: offer.id.clone(), seat, token: seat_token.to_string() };
                    let id = offer.id.clone();
                    tasks.spawn(async move { (id, game.play(session, player).await) });
                }
            }
        }
    }
}

/// One game the bot plays.
struct Game {
    server: Server,
    id: String,
    seat: usize,
    token: String,
}

/// How many times in a row a game's event stream may fail before the bot gives the game up.
const STREAM_FAILURES: u32 = 10;

impl Game {
    /// The seat's event stream, from a fresh ticket.
    async fn stream(&self) -> Result<EventStream, BotError> {
        let body = json!({"token": self.token});
        let answer = self.server.call("POST", &format!("/api/games/{}/ticket", self.id), Some(&body), false).await?;
        let ticket = answer.body["ticket"]
            .as_str()
            .ok_or_else(|| BotError::Server(format!("no ticket for the event stream: {}", reason(&answer))))?;
        EventStream::open(self.server.addr, None, &format!("/api/games/{}/events?ticket={ticket}", self.id))
            .await
            .map_err(|e| BotError::Server(format!("the event stream: {e}")))
    }

    /// Plays the game to its end; answers the result in words.
    async fn play(self, session: Box<dyn Session>, player: Box<dyn SeatPlayer>) -> Result<String, BotError> {
        let mut session = Some(session);
        let mut player = Some(player);
        let mut moved_at: Option<usize> = None;
        let mut gave_up = false;
        let mut failures = 0;
        loop {
            let mut stream = match self.stream().await {
                Ok(stream) => stream,
                Err(e) if failures < STREAM_FAILURES => {
                    failures += 1;
                    eprintln!("game {}: {e}; trying again", self.id);
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
                Err(e) => return Err(e),
            };
            loop {
                let event = match stream.next().await {
                    Ok(event) => event,
                    Err(_) => break, // reconnect with a new ticket
                };
                failures = 0;
                if event.name != "state" {
                    continue;
                }
                let state = event.data;
                let moves: Vec<String> = state["moves"]
                    .as_array()
                    .map(|list| list.iter().filter_map(|m| m.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                if state["status"]["over"] == true {
                    let winners: Vec<usize> = state["status"]["winners"]
                        .as_array()
                        .map(|w| w.iter().filter_map(|s| s.as_u64()).filter_map(|s| usize::try_from(s).ok()).collect())
                        .unwrap_or_default();
                    let why = state["status"]["reason"].as_str().unwrap_or("").to_string();
                    let result = if winners.is_empty() {
                        "draw"
                    } else if winners.contains(&self.seat) {
                        "win"
                    } else {
                        "loss"
                    };
                    if let Some(mut player) = player.take() {
                        let (moves, winners, why) = (moves.clone(), winners.clone(), why.clone());
                        let _ = tokio::task::spawn_blocking(move || player.game_over(&moves, &winners, &why)).await;
                    }
                    return Ok(format!("over after {} moves: {result} ({why})", moves.len()));
                }
                let to_move = state["status"]["to_move"].as_u64().and_then(|s| usize::try_from(s).ok());
                if gave_up || to_move != Some(self.seat) || moved_at == Some(moves.len()) {
                    continue;
                }
                let (Some(mut chooser), Some(mut replay)) = (player.take(), session.take()) else { continue };
                let ply = moves.len();
                let clock = state["clock"].clone();
                let seat = self.seat;
                let chosen = tokio::task::spawn_blocking(move || {
                    let time = time_left(&mut replay, &moves, &clock, seat);
                    let choice = chooser.choose(&moves, time.as_ref());
                    (chooser, replay, choice)
                })
                .await
                .map_err(|e| BotError::Server(format!("the player's thread failed: {e}")))?;
                let (chooser, replay, choice) = chosen;
                player = Some(chooser);
                session = Some(replay);
                let notation = match choice {
                    Ok(notation) => notation,
                    Err(forfeit) => {
                        eprintln!(
                            "game {}: the player cannot move ({forfeit}): it plays no more; the clock ends the game",
                            self.id
                        );
                        gave_up = true;
                        continue;
                    }
                };
                moved_at = Some(ply);
                let body = json!({"move": notation, "token": self.token, "ply": ply});
                let answer =
                    self.server.call("POST", &format!("/api/games/{}/moves", self.id), Some(&body), false).await?;
                match answer.status {
                    200 => {}
                    // Someone moved first, or the time ran out: the next state says what now.
                    409 => eprintln!("game {}: move {notation} at ply {ply} not taken: {}", self.id, reason(&answer)),
                    _ => {
                        eprintln!("game {}: move {notation} refused: {}; it plays no more", self.id, reason(&answer));
                        gave_up = true;
                    }
                }
            }
        }
    }
}

/// The clock as the player is told it (`None` in a game without a limited clock), with the
/// replay brought to `moves` for the game's estimate of the moves left.
fn time_left(replay: &mut Box<dyn Session>, moves: &[String], clock: &Value, seat: usize) -> Option<TimeLeft> {
    let control: TimeControl = clock["control"].as_str()?.parse().ok()?;
    if !control.is_limited() {
        return None;
    }
    let known = replay.moves();
    if known.len() > moves.len() || known.iter().zip(moves).any(|(a, b)| a != b) {
        while replay.undo() {}
    }
    for text in moves.iter().skip(replay.ply()) {
        if replay.play(text).is_err() {
            break;
        }
    }
    let ms = |entry: &Value| Duration::from_millis(entry["ms"].as_u64().unwrap_or(0));
    let seats: Vec<Duration> = clock["seats"].as_array()?.iter().map(ms).collect();
    let own = *seats.get(seat)?;
    let periods = clock["seats"][seat]["periods"].as_u64().and_then(|p| u32::try_from(p).ok()).unwrap_or(0);
    Some(TimeLeft { control, own, periods, seats, moves_left: replay.expected_moves_left(), move_times: Vec::new() })
}
