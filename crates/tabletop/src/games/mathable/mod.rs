//! mathable: see its issue. (Being built.)
