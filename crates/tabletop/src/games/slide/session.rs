//! Slide on the server: its options, its board as JSON, hints and computer moves.


use serde_json::{json, Value};

use crate::session::{SessionError, option_usize, slot_player, Adapter, Caps, EngineSlot, Served};
use crate::{Game, PlayerKind, PlayerSpec, Record};
use super::players::{player_from_spec as slide_player, PLAYER_KINDS as SLIDE_KINDS};
use super::{Cell, Slide, SlideMove, SlideVariant};

/// Slide on the web.
pub struct SlideAdapter;

/// The sliding moves a served game may have after the placing (see [`Adapter::move_limit`]).
pub const SLIDING_MOVES_SERVED: usize = 400;

impl Adapter<Slide> for SlideAdapter {
    const NAME: &'static str = "slide";
    const REVIEW: Option<crate::session::ReviewRange<Slide>> = Some(crate::review::review_range);
    const OPTION_KEYS: &'static [&'static str] = &["size", "empty"];

    fn player_kinds() -> &'static [PlayerKind] {
        SLIDE_KINDS
    }

    fn start(options: &Value, _secret: &Value) -> Result<Slide, SessionError> {
        let size = option_usize(options, "size", 3)?;
        let empty = option_usize(options, "empty", 1)?;
        let variant = SlideVariant::new(size, empty).map_err(SessionError::options)?;
        Ok(Slide::start(&variant))
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "Blue" } else { "Orange" }.to_string()
    }

    /// The placing, then [`SLIDING_MOVES_SERVED`] slides: sliding can go on forever (the third
    /// repetition of a position draws, but a long game need never repeat one), so a served game
    /// reaching the limit ends drawn, as repetition would end it.
    fn move_limit(start: &Slide) -> usize {
        let variant = start.slide_variant();
        let placing = (variant.size() * variant.size()).saturating_sub(variant.empty());
        placing + SLIDING_MOVES_SERVED
    }

    fn describe_reason(reason: String) -> String {
        // "b has 3 in a line" -> "Blue has 3 in a line".
        match reason.split_once(' ') {
            Some(("b", rest)) => format!("Blue {rest}"),
            Some(("o", rest)) => format!("Orange {rest}"),
            _ => reason,
        }
    }

    fn board(record: &Record<Slide>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let n = position.size();
        let cells: Vec<String> =
            (0..n * n).map(|sq| position.cell(sq / n, sq % n).map_or('g', Cell::letter).to_string()).collect();
        json!({
            "size": n,
            "empty": position.slide_variant().empty(),
            "cells": cells,
            "phase": if position.is_placement_phase() { "placement" } else { "slide" },
            "last_move": record.moves().last().map(|m| m.to_string()),
            "winning_line": position.winning_squares(),
        })
    }

    fn choose(
        record: &Record<Slide>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<SlideMove, SessionError> {
        // The player is kept for the next move of the same spec (its search table is reused).
        let player = slot_player(slot, spec.to_string(), || slide_player(spec).map_err(SessionError::player))?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Slide>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), SessionError> {
        // Slide's players hold no big tables: building one checks every value.
        slide_player(spec).map(|_| ()).map_err(SessionError::player)
    }
}

/// Slide for the server's registry entry.
pub static SESSIONS: Served<Slide, SlideAdapter> = Served::new();
