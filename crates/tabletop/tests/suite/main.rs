//! The library's integration tests, one module per topic, in one test binary (one link instead of
//! one per file: the suite builds faster on two cores).

mod analysis_hint;
mod cancel;
mod clocks;
mod connect_engine;
mod connect_rules;
mod connect_solver;
mod external_player;
mod mathable_conformance;
mod mathable_engine;
mod mathable_rules;
mod parsing_props;
mod player_vocabulary;
mod registry;
mod repository;
mod reversi_accuracy;
mod reversi_ffo;
mod reversi_levels;
mod reversi_rules;
mod reversi_symmetry;
mod reversi_time;
mod review;
mod search_options;
mod slide_conformance;
mod slide_dictionary;
mod slide_engine;
mod slide_rules;
mod slide_solver;
mod tournament;
