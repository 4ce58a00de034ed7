// Small helpers the game modules share.

// A short mark for a value in words ("win in 7 plies" -> "W7", "+4 discs" -> "+4").
export function shortValue(entry) {
  const text = String(entry.value || "");
  let m = /\bwin\w* in (\d+)/i.exec(text);
  if (m) return "W" + m[1];
  m = /\bl(?:oss|ose)\w* in (\d+)/i.exec(text);
  if (m) return "L" + m[1];
  if (/^draw/i.test(text) || /\bdraw\b/i.test(text)) return "=";
  m = /[+-]?\d+(\.\d+)?/.exec(text);
  if (m) return m[0];
  if (typeof entry.score === "number") return String(entry.score);
  return "?";
}

// "d3" -> 19 (index on the 8 x 8 board, rank 1 at the top).
export const FILES = "abcdefghijklmnopqrstuvwxyz";
