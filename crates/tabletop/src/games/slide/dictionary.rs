//! The origin document's configuration dictionary, written by hand as the document asks:
//! separate chaining, a prime table size chosen by the caller, and a hash function of its own.
//!
//! The classic player memoises configurations in it. The hash is FNV-1a (64-bit) followed by a
//! final avalanche, reduced modulo the table size: on the document's test (10,000 keys made of
//! repeated digits in 9,887 buckets) it collides about as often as a uniformly random hash
//! (about 3,709 times; the test asserts at most 4,000).

/// Why a dictionary operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DictionaryError {
    /// `put` of a key that is already present.
    #[error("key {0:?} is already in the dictionary")]
    DuplicateKey(String),
    /// `remove` of a key that is not present.
    #[error("key {0:?} is not in the dictionary")]
    MissingKey(String),
    /// A table size of zero buckets.
    #[error("a dictionary needs at least one bucket")]
    NoBuckets,
}

/// A hash dictionary from configuration strings to scores.
///
/// ```
/// use tabletop::games::slide::dictionary::Dictionary;
/// let mut dict = Dictionary::new(9887).unwrap();
/// assert_eq!(dict.put("answer", 42), Ok(false));
/// assert!(dict.put("answer", 1).is_err());
/// assert_eq!(dict.get("answer"), Some(42));
/// assert_eq!(dict.get("chicken"), None);
/// assert!(dict.remove("chicken").is_err());
/// assert_eq!(dict.remove("answer"), Ok(42));
/// ```
#[derive(Clone, Debug)]
pub struct Dictionary {
    buckets: Vec<Vec<(String, i32)>>,
    len: usize,
    collisions: u64,
}

/// The dictionary's own hash function: FNV-1a over the bytes, then a final mix so that keys
/// differing only in their last bytes still spread over every bucket.
///
/// ```
/// use tabletop::games::slide::dictionary::hash_key;
/// assert_ne!(hash_key("obbbogbog"), hash_key("obbbogboo"));
/// ```
pub fn hash_key(key: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key.bytes() {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^ (hash >> 33)
}

impl Dictionary {
    /// An empty dictionary with `buckets` chains; the document suggests a prime of 5,000-10,000.
    pub fn new(buckets: usize) -> Result<Self, DictionaryError> {
        if buckets == 0 {
            return Err(DictionaryError::NoBuckets);
        }
        Ok(Dictionary { buckets: vec![Vec::new(); buckets], len: 0, collisions: 0 })
    }

    fn bucket(&self, key: &str) -> usize {
        (hash_key(key) % self.buckets.len() as u64) as usize
    }

    /// Inserts a new key. Returns whether the insertion collided (its chain was not empty), or
    /// an error if the key is already present.
    pub fn put(&mut self, key: &str, score: i32) -> Result<bool, DictionaryError> {
        let index = self.bucket(key);
        let chain = &mut self.buckets[index];
        if chain.iter().any(|(k, _)| k == key) {
            return Err(DictionaryError::DuplicateKey(key.to_string()));
        }
        let collided = !chain.is_empty();
        chain.push((key.to_string(), score));
        self.len += 1;
        self.collisions += collided as u64;
        Ok(collided)
    }

    /// The score stored for `key`, or `None` (the document's -1) if absent.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.buckets[self.bucket(key)].iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    }

    /// Removes `key` and returns its score, or an error if it is absent.
    pub fn remove(&mut self, key: &str) -> Result<i32, DictionaryError> {
        let index = self.bucket(key);
        let chain = &mut self.buckets[index];
        let at =
            chain.iter().position(|(k, _)| k == key).ok_or_else(|| DictionaryError::MissingKey(key.to_string()))?;
        self.len -= 1;
        Ok(chain.swap_remove(at).1)
    }

    /// The number of keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of buckets.
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// How many insertions so far landed in a non-empty chain.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Removes every key (the collision count is kept).
    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.len = 0;
    }
}

/// The document's test of the dictionary: `"answer"` and 10,000 keys of a number's digits
/// repeated 32 times, in 9,887 buckets. Returns the number of collisions (about 3,709).
///
/// ```
/// assert!(tabletop::games::slide::dictionary::document_test().unwrap() <= 4000);
/// ```
pub fn document_test() -> Result<u64, DictionaryError> {
    let mut dict = Dictionary::new(9887)?;
    dict.put("answer", 42)?;
    for i in 0..10_000 {
        dict.put(&i.to_string().repeat(32), i)?;
    }
    Ok(dict.collisions())
}

/// The document's `Configuration`: a board's configuration string (column by column, `b`,
/// `o`, `g`) and its score, the record the dictionary holds.
///
/// ```
/// use tabletop::games::slide::dictionary::{Configuration, Dictionary};
/// use tabletop::games::slide::Slide;
/// let board = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
/// let config = Configuration::of(&board);
/// assert_eq!((config.config(), config.score()), ("obbbogboo", 3)); // won by the computer
/// let mut dict = Dictionary::new(9887).unwrap();
/// assert_eq!(dict.is_repeated_config(&board), None); // isRepeatedConfig: not seen yet
/// dict.put_config(&config).unwrap(); // putConfig
/// assert_eq!(dict.is_repeated_config(&board), Some(3)); // seen, with its score
/// assert!(dict.put_config(&config).is_err()); // a configuration is stored once
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Configuration {
    config: String,
    score: i32,
}

impl Configuration {
    /// A configuration string with a score.
    pub fn new(config: impl Into<String>, score: i32) -> Self {
        Configuration { config: config.into(), score }
    }

    /// A board's configuration with the document's score for the computer, `evalBoard`
    /// ([`Slide::classic_score`](super::Slide::classic_score): 3 won, 0 lost, 2 draw, 1 undecided).
    pub fn of(position: &super::Slide) -> Self {
        Configuration::new(position.configuration(), position.classic_score() as i32)
    }

    /// The configuration string (`getStringConfiguration`).
    pub fn config(&self) -> &str {
        &self.config
    }

    /// The score (`getScore`).
    pub fn score(&self) -> i32 {
        self.score
    }
}

impl Dictionary {
    /// The document's `putConfig`: stores a configuration with its score; an error if that
    /// configuration is already stored. True when it landed in a non-empty chain.
    pub fn put_config(&mut self, config: &Configuration) -> Result<bool, DictionaryError> {
        self.put(&config.config, config.score)
    }

    /// The document's `isRepeatedConfig`: the score stored for the board's configuration, or
    /// `None` (the document's -1) when it was never stored.
    pub fn is_repeated_config(&self, position: &super::Slide) -> Option<i32> {
        self.get(&position.configuration())
    }
}
