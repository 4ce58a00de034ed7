//! The origin document's test program for the configuration dictionary.

use tabletop::games::slide::dictionary::{Dictionary, DictionaryError};

#[test]
fn the_documents_test_program() {
    let mut dict = Dictionary::new(9887).unwrap();
    assert_eq!(dict.put("answer", 42), Ok(false));
    assert_eq!(dict.put("answer", 42), Err(DictionaryError::DuplicateKey("answer".into())));
    assert_eq!(dict.get("answer"), Some(42));
    assert_eq!(dict.get("chicken"), None);
    assert_eq!(dict.remove("chicken"), Err(DictionaryError::MissingKey("chicken".into())));
    assert_eq!(dict.remove("answer"), Ok(42));
    assert_eq!(dict.get("answer"), None);

    let key = |i: i32| i.to_string().repeat(32);
    let mut collided = 0;
    for i in 0..10_000 {
        collided += dict.put(&key(i), i).unwrap() as u64;
    }
    assert_eq!(collided, dict.collisions());
    for i in 0..10_000 {
        assert_eq!(dict.get(&key(i)), Some(i), "key {i}");
    }
    for i in 0..1_000 {
        assert_eq!(dict.remove(&key(i)), Ok(i));
    }
    for i in 1_000..10_000 {
        assert_eq!(dict.get(&key(i)), Some(i));
    }
    for i in 0..1_000 {
        assert_eq!(dict.get(&key(i)), None);
    }
    assert_eq!(dict.len(), 9_000);
    // A uniformly random hash gives about 3,709 here; the document's pass mark is 5,000.
    assert!(dict.collisions() <= 4_000, "{} collisions", dict.collisions());
}

#[test]
fn a_table_needs_buckets() {
    assert_eq!(Dictionary::new(0).unwrap_err(), DictionaryError::NoBuckets);
}
