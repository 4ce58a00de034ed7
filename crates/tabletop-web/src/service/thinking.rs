//! What the engines compute for people, on the engine pool under the asking client's turn: a
//! hint, an analysis of the position (and its refinement steps), the review of a finished game.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::engines::{JobKey, PoolError};
use crate::error::ApiError;
use crate::live::{AppState, LiveGame, Shared};

/// `POST /api/games/{id}/hint`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HintRequest {
    /// The token of the seat to move.
    pub token: Option<String>,
    /// Accepted as before (the hint is always for the current position), not read.
    pub ply: Option<usize>,
}

/// `POST /api/games/{id}/analysis`: the body. `step` (default 0) asks for a refinement step
/// of the analysis (see [`refine_budget`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisRequest {
    /// The token of the seat to move (during a game) or of a player (to refine a finished one).
    pub token: Option<String>,
    /// The position, by its number of moves (a finished game's any; else the current one).
    pub ply: Option<usize>,
    /// The refinement step.
    pub step: Option<u32>,
}

/// The engine pool's refusal as the client's error: busy (503), or the server's fault.
fn pool_error(error: PoolError) -> ApiError {
    match error {
        PoolError::Busy => ApiError::Busy,
        other => ApiError::Internal(other.to_string()),
    }
}

/// The seat a hint or analysis is for, if this viewer may have it now.
fn may_think_for(game: &LiveGame, token: Option<&str>) -> Result<usize, ApiError> {
    let seat = game
        .seat_of(token)
        .ok_or_else(|| ApiError::Forbidden("hints are for the seat to move: send its token".into()))?;
    if game.to_move() != Some(seat) {
        return Err(ApiError::Forbidden("hints are only for the seat to move".into()));
    }
    if !game.hints_allowed() {
        return Err(ApiError::Forbidden("hints are off in this game between people".into()));
    }
    Ok(seat)
}

/// `POST /api/games/{id}/hint`: the best move for the seat to move, as the analysis would
/// give it (`null` when there is none).
pub async fn hint(state: &Shared, client: IpAddr, id: &str, request: HintRequest) -> Result<Value, ApiError> {
    let live = state.game(id).await?;
    let (snapshot, flag) = {
        let game = live.lock().await;
        may_think_for(&game, request.token.as_deref())?;
        (game.session.boxed_clone(), game.cancel.clone())
    };
    // The analysis' settings, so that the hint is the analysis' best move.
    let budget = analysis_budget(state);
    let name = snapshot.game();
    let caps = state.caps();
    let key = JobKey::Address(client);
    let advice = state
        .pool
        .run(key, true, flag, move |slots| snapshot.hint(slots.slot(name), budget, &caps))
        .await
        .map_err(pool_error)?;
    Ok(advice.unwrap_or(Value::Null))
}

/// The time setting of the page's analysis and hint (the same, so that the hint is the
/// analysis' best move): 1.5 s, or the server's longest thinking time if shorter. It picks the
/// depth and the solvers' budgets from each game's calibration before searching (see
/// `tabletop::analysis`), so the values do not depend on how busy the server is.
fn analysis_budget(state: &AppState) -> Duration {
    state.config.max_think.min(ANALYSIS_TIME)
}

/// The time setting of refinement step `step` of an analysis, and the last step there is: the
/// analysis' time (1.5 s, or `--max-think` if shorter) doubled per step, up to half of
/// `--max-think` (half, so that a search planned from the calibration still ends before the
/// watchdog on a busy machine). The last step is the first that reaches that cap (0 when the
/// analysis' time already does). Each step's setting is fixed, so the same step of the same
/// position gets the same values; `None` past the last step.
///
/// With the defaults (`--max-think 10`): 1.5 s, 3 s, 5 s, so steps 0 to 2.
pub fn refine_budget(max_think: Duration, step: u32) -> Option<(Duration, u32)> {
    let base = max_think.min(ANALYSIS_TIME);
    let cap = base.max(max_think / 2);
    let mut last = 0;
    while last < 30 && base.saturating_mul(1 << last) < cap {
        last += 1;
    }
    (step <= last).then(|| (base.saturating_mul(1 << step).min(cap), last))
}

/// The analysis' time setting of the page (the hint's too), before any refinement.
pub const ANALYSIS_TIME: Duration = Duration::from_millis(1500);

/// `POST /api/games/{id}/analysis`: every move of the position valued. During a game, for the
/// seat to move and its current position; a finished game (without hidden information) by
/// anyone at any position, refined by its players only.
pub async fn analysis(state: &Shared, client: IpAddr, id: &str, request: AnalysisRequest) -> Result<Value, ApiError> {
    let step = request.step.unwrap_or(0);
    let Some((budget, last_step)) = refine_budget(state.config.max_think, step) else {
        let last = refine_budget(state.config.max_think, 0).map_or(0, |(_, last)| last);
        return Err(ApiError::BadRequest(format!("no refinement step {step}: the steps are 0 to {last}")));
    };
    let live = state.game(id).await?;
    let (snapshot, flag, ply, may_refine) = {
        let game = live.lock().await;
        let over = game.to_move().is_none();
        if over && !game.session.hidden_information() {
            let ply = request.ply.unwrap_or(game.session.ply());
            if ply > game.session.ply() {
                return Err(ApiError::BadRequest(format!("the game has {} moves", game.session.ply())));
            }
            // Anyone may analyse a finished game, as before; only its players refine it.
            let player = game.seat_of(request.token.as_deref()).is_some();
            if step > 0 && !player {
                return Err(ApiError::Forbidden(
                    "refining the analysis of a finished game is for its players: send a seat's token".into(),
                ));
            }
            (game.session.boxed_clone(), game.cancel.clone(), Some(ply), player)
        } else {
            may_think_for(&game, request.token.as_deref())?;
            if request.ply.is_some_and(|p| p != game.session.ply()) {
                return Err(ApiError::Forbidden("during the game, only the current position can be analysed".into()));
            }
            (game.session.boxed_clone(), game.cancel.clone(), None, true)
        }
    };
    let key = JobKey::Address(client);
    let job = flag.clone();
    let work = move |_: &mut crate::engines::Slots| snapshot.analyze(ply, budget);
    // Step 0 is a hint-sized job; the longer refinements wait in the long lane, which never
    // holds every worker (computer moves keep one), both refused (503) when too many wait.
    let answer = if step == 0 {
        state.pool.run(key, true, job, work).await
    } else {
        state.pool.run_long_optional(key, job, work).await
    }
    .map_err(pool_error)?;
    if flag.is_cancelled() {
        // Stopped by an undo, a resignation or the watchdog: not the reproducible answer.
        let mut game = live.lock().await;
        if game.cancel.is_same(&flag) && !game.thinking {
            // The watchdog raised the game's flag: the game's next thinking needs a fresh one
            // (a computer thinking under it renews it itself when it is done).
            game.cancel = tabletop::cancel::CancelFlag::new();
        }
        return Err(ApiError::Busy);
    }
    let mut answer = answer.map_err(|e| ApiError::Illegal(e.to_string()))?;
    let open = answer["open"].as_array().is_some_and(|open| !open.is_empty());
    // A further step can value more: some move is open and searched (a depth), not one of the
    // values no search gives (Mathable's points).
    let refinable = may_refine && step < last_step && open && !answer["depth"].is_null();
    answer["step"] = step.into();
    answer["last_step"] = last_step.into();
    answer["refinable"] = refinable.into();
    Ok(answer)
}

/// The time the analysis of each position of a review may take.
pub const REVIEW_PER_POSITION: Duration = Duration::from_millis(250);

/// Positions of a review per engine job: each job stays well within the wait an optional job
/// is given ([`crate::engines::OPTIONAL_WAIT`]).
pub const REVIEW_CHUNK: usize = 8;

/// `GET /api/games/{id}/review`: every move of a finished game against the best move, for
/// anyone who may see the game (a finished game hides nothing). Computed once per game through
/// the engine pool, position after position in jobs of [`REVIEW_CHUNK`], as the analysis is;
/// every other request for it waits for that one computation.
pub async fn review(state: &Shared, client: IpAddr, id: &str) -> Result<Value, ApiError> {
    let live = state.game(id).await?;
    let (snapshot, flag, cell) = {
        let mut game = live.lock().await;
        if game.to_move().is_some() {
            return Err(ApiError::Conflict("only a finished game can be reviewed".into()));
        }
        if !game.session.has_review() {
            // A game may come without a review (the registry's optional capability).
            return Err(ApiError::NotFound(format!("{} has no review", game.session.game())));
        }
        let moves = game.session.moves();
        let cell = match &game.review {
            Some((of, cell)) if *of == moves => cell.clone(),
            _ => {
                let cell = Arc::new(tokio::sync::OnceCell::new());
                game.review = Some((moves, cell.clone()));
                cell
            }
        };
        (game.session.boxed_clone(), game.cancel.clone(), cell)
    };
    let budget = state.config.max_think.min(REVIEW_PER_POSITION);
    let settings = tabletop::review::ReviewSettings::time(budget);
    let key = JobKey::Address(client);
    let value = cell
        .get_or_try_init(|| async move {
            let plies = snapshot.ply();
            let mut whole: Option<Value> = None;
            let mut from = 0;
            while from < plies.max(1) {
                let to = (from + REVIEW_CHUNK).min(plies);
                let part = snapshot.boxed_clone();
                let answer = state
                    .pool
                    .run(key.clone(), true, flag.clone(), move |_slots| part.review(from, to, settings))
                    .await
                    .map_err(pool_error)?
                    .map_err(|e| ApiError::Internal(e.to_string()))?;
                match &mut whole {
                    None => whole = Some(answer),
                    Some(w) => {
                        for field in ["moves", "values"] {
                            if let (Some(into), Some(more)) = (w[field].as_array_mut(), answer[field].as_array()) {
                                into.extend(more.iter().cloned());
                            }
                        }
                    }
                }
                from = to.max(from + 1);
            }
            whole.ok_or_else(|| ApiError::Internal("empty review".into()))
        })
        .await?;
    Ok(value.clone())
}
