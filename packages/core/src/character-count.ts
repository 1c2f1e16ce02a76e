/**
 * Whether `text` holds `min` to `max` characters, counted as the limits of nudge count them: in
 * Unicode code points, so an emoji is one character although UTF-16 (`text.length`) holds it in
 * two units. JSON Schema's `minLength` and `maxLength` count the same way.
 */
export function hasCharacterCountIn(text: string, min: number, max: number): boolean {
  // Code points never outnumber UTF-16 units, and at most halve them: count only when needed.
  if (text.length >= min && text.length <= max) return true;
  if (text.length < min || text.length > 2 * max) return false;
  let count = 0;
  for (const _ of text) {
    count += 1;
    if (count > max) return false;
  }
  return count >= min;
}
